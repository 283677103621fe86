"""A fitted forest as bytes: its model file (save, to_bytes), pickling
through the same bytes, and the estimator rebuilt from a core forest
(_from_native, which sporf.load and the shard merge call) -- mixed into the
estimators' base (_forest._BaseForest); sporf.load (_load.py) reads files."""
import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from . import _native, _params
from ._native import NativeForest, save_bytes


class _PersistentForest:
    """The model file's bytes of a fitted forest, and an estimator from them."""

    def save(self, path):
        """Write the fitted model to `path` in sporf's portable binary format.

        The file is readable by :func:`sporf.load` and by R's ``sporf_load``.
        Same data, parameters and ``random_state`` give byte-identical files.
        The file is written next to `path` and renamed, so a failed write
        never leaves a truncated model behind.

        Parameters
        ----------
        path : str or os.PathLike

        Examples
        --------
        >>> import os, tempfile, sporf
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
        >>> path = os.path.join(tempfile.mkdtemp(), "trunk.sporf")
        >>> clf.save(path)
        >>> sporf.load(path).to_bytes() == clf.to_bytes()
        True
        """
        check_is_fitted(self, "_forest")
        save_bytes(path, self._forest.to_bytes())

    def to_bytes(self):
        """The model file's bytes (see :meth:`save`); pickling uses them too.

        Returns
        -------
        bytes

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> a = SPORFClassifier(n_estimators=5, random_state=3).fit(X, y).to_bytes()
        >>> b = SPORFClassifier(n_estimators=5, random_state=3, n_jobs=2).fit(X, y).to_bytes()
        >>> a[:8], a == b
        (b'SPORFMDL', True)
        """
        check_is_fitted(self, "_forest")
        return self._forest.to_bytes()

    def __getstate__(self):
        # A copy: object.__getstate__ returns the live __dict__ itself.
        state = dict(super().__getstate__())
        forest = state.pop("_forest", None)
        if forest is not None:
            state["_model_bytes"] = forest.to_bytes()
        return state

    def __setstate__(self, state):
        data = state.pop("_model_bytes", None)
        super().__setstate__(state)
        if data is not None:
            self._forest = NativeForest.from_bytes(data)
            if isinstance(self, (ClassifierMixin, RegressorMixin)):  # pickled before multi-output y
                self.__dict__.setdefault("n_outputs_", int(self._forest.info().n_outputs))

    @classmethod
    def _from_native(cls, forest):
        p = forest.params()
        info = forest.info()
        class_weights = None
        if info.task == _native.TASK_CLASSIFICATION:
            weights = forest.class_weights()
            if weights is not None:
                labels = forest.get_strings(_native.STR_CLASSES).tolist()
                class_weights = {label: float(w) for label, w in zip(labels, weights)}
        name, _ = _params.spec_of(cls)
        kwargs = _params.from_core(name, p, class_weights)
        est = cls(**kwargs)
        est._forest = forest
        est.n_features_in_ = int(info.n_features)
        names = forest.get_strings(_native.STR_FEATURE_NAMES)
        if len(names):
            est.feature_names_in_ = names
        levels = forest.get_levels()
        if levels is not None:
            est._levels = levels
            est.is_categorical_ = np.array([names is not None for names in levels])
        est._restore_task(forest, info)
        est._restore_fitted(p)
        est._set_leaf_choice(forest)
        return est

    def _restore_task(self, forest, info):
        pass

    def _restore_fitted(self, p):
        pass
