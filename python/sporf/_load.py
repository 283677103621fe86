"""load(): a saved model back as the estimator of its kind -- the public
function above the estimators (it imports them; nothing below imports it)."""
import os

from ._forest import SPORFClassifier, SPORFRegressor
from ._isolation import MORFIsolation, SPORFIsolation
from ._native import PROJ_PATCH, TASK_ISOLATION, TASK_REGRESSION, TASK_SURVIVAL, TASK_UNSUPERVISED, NativeForest
from ._morf import MORFClassifier, MORFRegressor, MORFSurvival
from ._survival import SPORFSurvival
from ._urerf import URerF

def load(source):
    """Load a model saved by ``save()`` in Python or ``sporf_save()`` in R.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like or binary file object
        A file written by :meth:`SPORFClassifier.save` or R's ``sporf_save``:
        its path, its bytes (``to_bytes()``; ``bytes``, ``bytearray`` or
        ``memoryview``), or a file object opened in binary mode (read to
        its end, as ``pickle.load`` does).

    Returns
    -------
    estimator : SPORFClassifier, SPORFRegressor, SPORFSurvival, MORFClassifier, MORFRegressor or URerF
        A fitted estimator of the kind that was saved (MORF for a patch
        forest, a regressor for a regression forest, SPORFSurvival for a survival
        forest, URerF for an
        unsupervised forest, which does not keep its training rows in the
        file) with the stored
        parameters, ``n_features_in_``, ``classes_`` (classifiers) and (when
        stored) ``feature_names_in_``.
        Out-of-bag results are not part of the model file: the file keeps
        the forest, not scores of its training rows, so a loaded estimator
        has no ``oob_score_``, ``oob_prediction_`` / ``oob_decision_function_``,
        ``oob_error_curve_``, ``permutation_importances_``, ``leaf_scores_``
        or ``interval_scores_`` (calibrate intervals again with
        ``calibrate_intervals``); ``oob=True`` predictions still work, given
        the training rows. Pickling keeps them all.

    Raises
    ------
    ValueError
        If the file is not a sporf model, or is truncated or corrupt.

    Examples
    --------
    >>> import sporf, tempfile, os
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(200, n_features=5, random_state=0)
    >>> clf = sporf.SPORFClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.sporf")
    >>> clf.save(path)
    >>> again = sporf.load(path)
    >>> bool((again.predict_proba(X) == clf.predict_proba(X)).all())
    True
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("load() needs a file opened in binary mode ('rb'); this one returned %s"
                            % type(data).__name__)
        data = bytes(data)
    elif isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as fh:
            data = fh.read()
    else:
        raise TypeError("load() takes a path, the model's bytes or a binary file object; got %s"
                        % type(source).__name__)
    forest = NativeForest.from_bytes(data)
    patch = forest.params().projection == PROJ_PATCH
    task = forest.info().task
    if task == TASK_UNSUPERVISED:
        cls = URerF
    elif task == TASK_ISOLATION:
        cls = MORFIsolation if patch else SPORFIsolation
    elif task == TASK_SURVIVAL:
        cls = MORFSurvival if patch else SPORFSurvival
    elif task == TASK_REGRESSION:
        cls = MORFRegressor if patch else SPORFRegressor
    else:
        cls = MORFClassifier if patch else SPORFClassifier
    return cls._from_native(forest)
