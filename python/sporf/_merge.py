"""merge_forests: join forests grown as shards of one fit (see first_tree)."""
import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._forest import _BaseForest
from ._native import merge


def merge_forests(forests):
    """Join forests grown as shards of one forest into that forest.

    A fit with ``first_tree=a, n_estimators=m`` grows trees a .. a+m-1 of the
    forest its ``random_state`` seeds. Shards whose tree ranges join without
    gap or overlap -- grown on other machines, at other times, or in R
    (``sporf_load`` their files first) -- merge into exactly the forest a
    single fit of the whole range grows: the same trees in the same order,
    the same model bytes, the same predictions. With
    ``min_samples_leaf="auto"`` (the default of SPORFClassifier and
    SPORFRegressor) a shard does not choose its leaf size from its own
    trees: it keeps every training row's out-of-bag sums over them, and the
    merge adds the shards' sums and chooses for the whole forest, as the
    single fit does. A forest that chose from its own trees (fitted without
    ``first_tree``) does not join a shard.

    Parameters
    ----------
    forests : sequence of fitted estimators of one class
        Shards, in any order. They must have the same features (and feature
        names), classes and parameters, except ``n_estimators``,
        ``first_tree``, ``n_jobs`` and ``verbose``.

    Returns
    -------
    estimator
        A new fitted estimator of the shards' class. Out-of-bag attributes
        are not merged (each shard saw only its own trees' out-of-bag rows):
        :func:`sporf.distributed.fit` computes them for the whole forest.
        A merged :class:`URerF` keeps the training rows when every shard
        holds the same ones.

    Raises
    ------
    ValueError
        If the shards differ in features, classes, parameters or training
        data, their tree ranges overlap or leave a gap, or one chose its leaf
        size and another did not (the message says which).
    TypeError
        If the estimators are of different classes or not sporf forests.

    Examples
    --------
    >>> import sporf
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(300, n_features=8, random_state=0)
    >>> a = sporf.SPORFClassifier(n_estimators=30, first_tree=0, random_state=1).fit(X, y)
    >>> b = sporf.SPORFClassifier(n_estimators=30, first_tree=30, random_state=1).fit(X, y)
    >>> both = sporf.merge_forests([a, b])
    >>> whole = sporf.SPORFClassifier(n_estimators=60, random_state=1).fit(X, y)
    >>> both.to_bytes() == whole.to_bytes(), both.min_samples_leaf_ == whole.min_samples_leaf_
    (True, True)
    """
    forests = list(forests)
    if not forests:
        raise ValueError("merge_forests needs at least one forest")
    cls = type(forests[0])
    for i, est in enumerate(forests):
        if not isinstance(est, _BaseForest):
            raise TypeError("merge_forests takes sporf estimators; item %d is a %s" % (i, type(est).__name__))
        if type(est) is not cls:
            raise TypeError("merge_forests: item %d is a %s, item 0 a %s; shards of one forest are of one class"
                            % (i, type(est).__name__, cls.__name__))
        check_is_fitted(est, "_forest")
    merged = cls._from_native(merge([est._forest for est in forests]))
    rows = [getattr(est, "_fit_X", None) for est in forests]
    if rows[0] is not None and all(r is not None and np.array_equal(r, rows[0]) for r in rows[1:]):
        merged._fit_X = rows[0]
    return merged
