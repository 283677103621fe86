"""scikit-learn estimators over the sporf core."""
import numbers
import warnings
from collections import namedtuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _params, _proximity
from ._core import Progress, check, double_ptr, matrix_view, new_error, progress_args
from ._exclusive import exclusive_fit
from ._io import NativeForest, save_bytes
from ._sporf_cffi import ffi, lib

_PARAM_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Split quality measure ("log_loss" is a synonym of "entropy").
    max_depth : int or None, default=None
        Maximum depth of a tree; None grows until leaves are pure or smaller
        than ``min_samples_split``.
    min_samples_split : int, float or "sqrt", default=2
        Minimum number of samples to split a node (a float is a fraction of
        n; "sqrt" is ceil(sqrt(n))).
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split.
    min_weight_fraction_leaf : float, default=0.0
        Each child of a split keeps at least this fraction of the tree's total
        sample weight (bootstrap multiplicities, sample and class weights).
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease
        ``N_t / N * (impurity - N_l / N_t * left_impurity - N_r / N_t * right_impurity)``
        is at least this value.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Number d of candidate projections per node: floor(sqrt(p)),
        floor(log2(p)), an int, a fraction of p, or p (None). For oblique
        projections it may exceed p (a float > 1.0 or an int > p), up to
        d = p**2 as in the SPORF paper's sparse parity experiments.
    feature_combinations : float, default=1.5
        Mean number of non-zeros per projection. "sparse" and "gaussian": each
        node draws ceil(feature_combinations * d) non-zeros at uniform random
        positions of a p x d matrix (an empty column becomes one random
        feature); "frc": exactly ceil(feature_combinations) features per
        projection; "poisson": Poisson(feature_combinations) features per
        projection (0 becomes 1). Ignored for "axis".
    projection : {"sparse", "axis", "frc", "gaussian", "poisson"}, default="sparse"
        Projection distribution (the SPORF paper's family): "sparse" is SPORF
        (weights +1/-1); "axis" splits on single features (Breiman's random
        forest); "frc" is Breiman's Forest-RC (weights uniform in [-1, 1]);
        "gaussian" places non-zeros as "sparse" with N(0, 1) weights;
        "poisson" draws a Poisson number of +1/-1 non-zeros per projection.
    bootstrap : bool, default=True
        Whether each tree is grown on a bootstrap sample.
    honest_fraction : float, default=0.0
        Honest trees when > 0: each tree's distinct in-bag rows are shuffled
        and this fraction of them (rounded down) is held out of growing; the
        leaf values are then computed from those held-out rows only. In [0, 1).
    honest_prior : {"empirical", "uniform", "ignore"}, default="empirical"
        What an honest leaf that received no held-out row predicts: the tree's
        held-out class distribution (or mean), the uniform distribution
        (classification only), or nothing ("ignore": the tree abstains for
        that row).
    max_samples : int, float or None, default=None
        Bootstrap sample size: all n rows (None), a count, or a fraction of n.
    oob_score : bool, default=False
        Whether to compute the out-of-bag accuracy ``oob_score_`` and
        ``oob_decision_function_``.
    class_weight : {"balanced", "balanced_subsample"}, dict or None, default=None
        Weights of the classes, as in scikit-learn's RandomForestClassifier.
        (Classifiers only.)
    n_jobs : int or None, default=None
        Threads for fitting and prediction; None means 1, -1 all cores.
        The fitted forest does not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed. An int is used as the core's master seed directly, so the same
        int gives the same forest in Python and in R, on any thread count.
    first_tree : int, default=0
        Grow trees ``first_tree`` to ``first_tree + n_estimators - 1`` of the
        forest that ``random_state`` seeds (tree t always draws from the
        stream (seed, t)). Shards grown with disjoint ranges -- on other
        machines, or in R -- join with :func:`sporf.merge_forests` into
        exactly the forest one fit of the whole range grows;
        :func:`sporf.distributed.fit` does this on a Dask cluster.
    verbose : int, default=0
        Print progress to stderr during fit when > 0.
"""


def _warn_missing_oob(oob_count):
    if np.any(oob_count == 0):
        warnings.warn(
            "Some inputs do not have OOB scores. This probably means too few "
            "trees were used to compute any reliable OOB estimates.",
            UserWarning,
        )


def _max_features_from_core(p):
    mode = p.max_features_mode
    if mode == lib.SPORF_MAXF_SQRT:
        return "sqrt"
    if mode == lib.SPORF_MAXF_LOG2:
        return "log2"
    if mode == lib.SPORF_MAXF_INT:
        return int(p.max_features_value)
    if mode == lib.SPORF_MAXF_FRACTION:
        return float(p.max_features_value)
    return None


ProjectionImportance = namedtuple("ProjectionImportance", ["features", "weights", "importance"])
ProjectionImportance.__doc__ = """One distinct split projection and its importance, as returned by
:meth:`SPORFClassifier.projection_importances`.

Attributes
----------
features : ndarray of int64
    The projection's features (0-based, ascending).
weights : ndarray of float64
    Their weights; the first is positive (a projection and its negation are one).
importance : float
    The share of the forest's impurity decrease made by splits on it.

Examples
--------
>>> pi = ProjectionImportance(np.array([0, 2]), np.array([1.0, -1.0]), 0.25)
>>> pi.features.tolist(), pi.importance
([0, 2], 0.25)
"""

_CLASSIFIER_ONLY = [
    ('''    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Split quality measure ("log_loss" is a synonym of "entropy").''',
     '''    criterion : {"squared_error"}, default="squared_error"
        Split quality measure: the decrease of the weighted sum of squared
        errors.'''),
    ('''        Whether to compute the out-of-bag accuracy ``oob_score_`` and
        ``oob_decision_function_``.''',
     '''        Whether to compute the out-of-bag R^2 ``oob_score_`` and
        ``oob_prediction_``.'''),
    ('''    class_weight : {"balanced", "balanced_subsample"}, dict or None, default=None
        Weights of the classes, as in scikit-learn's RandomForestClassifier.
        (Classifiers only.)
''', ""),
    ('''What an honest leaf that received no held-out row predicts: the tree's
        held-out class distribution (or mean), the uniform distribution
        (classification only), or nothing''',
     '''What an honest leaf that received no held-out row predicts: the mean
        of the tree's held-out rows, or nothing'''),
    ('{"empirical", "uniform", "ignore"}, default="empirical"', '{"empirical", "ignore"}, default="empirical"'),
    ('''    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Number d of candidate projections per node: floor(sqrt(p)),''',
     '''    max_features : {"sqrt", "log2"}, int, float or None, default=None
        Number d of candidate projections per node (by default p, as in
        scikit-learn's and treeple's forest regressors: with floor(sqrt(p))
        oblique candidates a regression forest misses weak signals among
        many features -- twice the test MSE on Friedman #1 with 45 noise
        features, see BENCHMARKS.md): floor(sqrt(p)),'''),
]


def _drop_param_docs(doc, names):
    """`doc` without the entries of the named parameters (an entry runs from
    its "    name :" line to the next line indented by four spaces only)."""
    lines, out, skipping = doc.split("\n"), [], False
    for line in lines:
        if line.startswith("    ") and not line.startswith("     ") and " : " in line:
            skipping = line.split(" : ")[0].strip() in names
        if not skipping:
            out.append(line)
    return "\n".join(out)


def _regressor_doc(doc):
    """The classifier's parameter text adapted to regression."""
    for old, new in _CLASSIFIER_ONLY:
        if old not in doc:
            raise AssertionError("parameter docs drifted: %r" % old[:40])
        doc = doc.replace(old, new)
    return doc


class _BaseForest(BaseEstimator):
    """What classifiers and regressors share: the native handle, prediction
    plumbing, importances, persistence. Subclasses define fit and predict."""

    # Hooks for patch forests, whose samples may come as images or grids.
    def _flatten_input(self, X, fitting=False):
        return X

    def _resolve_data_dims(self, n_features):
        return None

    def _fit_native(self, X, params, fit_call, n_out, sample_weight):
        """Run one core fit; returns (forest, oob values or None)."""
        n = X.shape[0]
        sw = None
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            sw = np.ascontiguousarray(sw)
        want_oob = getattr(self, "oob_score", False)  # an unsupervised forest has none
        oob = np.zeros((n, n_out), dtype=np.float64) if want_oob else None
        oob_count = np.zeros(n, dtype=np.int64) if want_oob else None
        view, keep = matrix_view(X)
        progress = Progress(verbose=self.verbose, what="trees")
        cb, user, keep_cb = progress_args(progress)
        out = ffi.new("sporf_forest **")
        err = new_error()
        rc = fit_call(params, view,
                      double_ptr(sw) if sw is not None else ffi.NULL,
                      ffi.from_buffer("double[]", oob) if oob is not None else ffi.NULL,
                      ffi.from_buffer("int64_t[]", oob_count) if oob is not None else ffi.NULL,
                      cb, user, out, err)
        del keep, keep_cb
        check(rc, err)
        forest = NativeForest(out[0])
        if hasattr(self, "feature_names_in_"):
            forest.set_strings(lib.SPORF_STR_FEATURE_NAMES, self.feature_names_in_)
        if want_oob:
            _warn_missing_oob(oob_count)
        return forest, oob

    def _oob_from_forest(self, X, n_out):
        """Out-of-bag values of the fitted forest for its training rows X,
        from the trees' regenerated bootstrap draws (a forest merged from
        shards: each shard saw only its own trees' out-of-bag rows)."""
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        count = np.zeros(X.shape[0], dtype=np.int64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_predict(self._forest.ptr, view, self._n_threads(),
                                          ffi.from_buffer("double[]", out), ffi.from_buffer("int64_t[]", count), err)
        del keep
        check(rc, err)
        _warn_missing_oob(count)
        return out

    # ---- prediction ----
    def _check_X(self, X):
        # Fast path for the common case -- a float64 matrix of the right
        # width, from a model fitted without feature names -- so one-row
        # prediction costs microseconds, not scikit-learn's full validation
        # (~0.1 ms). It accepts what validate_data would accept unchanged,
        # plus NaN and infinity, which every core call rejects itself
        # (ValueError naming the row and column), sparing a pass over X;
        # anything else takes the full path and its messages.
        if (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0
                and "_forest" in self.__dict__ and "feature_names_in_" not in self.__dict__
                and X.shape[1] == self.n_features_in_):
            return X
        check_is_fitted(self, "_forest")
        X = self._flatten_input(X)
        return validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=False)

    def _n_threads(self):
        return _params.resolve_n_jobs(self.n_jobs)

    def _leaf_means(self, X, n_out):
        """The mean over trees of the leaf values reached by each row."""
        X = self._check_X(X)
        out = np.empty((X.shape[0], n_out), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_predict_proba(self._forest.ptr, view, self._n_threads(),
                                            ffi.from_buffer("double[]", out), ffi.NULL, ffi.NULL, err)
        del keep
        check(rc, err)
        return out

    def apply(self, X):
        """Leaf reached in each tree: node index within its tree (root = 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of shape (n_samples, n_estimators), dtype int64

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
        >>> clf.apply(X[:2]).shape
        (2, 5)
        """
        X = self._check_X(X)
        T = self._forest.info().n_trees
        out = np.empty((X.shape[0], T), dtype=np.int64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_apply(self._forest.ptr, view, self._n_threads(),
                                    ffi.from_buffer("int64_t[]", out), ffi.NULL, ffi.NULL, err)
        del keep
        check(rc, err)
        return out

    # ---- proximity ----
    def _reference_rows(self):
        """The rows proximities are taken against by default: None for
        supervised forests, which do not keep their training data."""
        return None

    def proximity(self, X=None, reference=None, *, dense=False, n_neighbors=None):
        """Forest proximity: S(i, j) is the fraction of trees that put rows
        i and j in the same leaf (every tree evaluates every row).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features) or None
            Rows to compare with the reference rows; None: the reference rows
            themselves.
        reference : array-like of shape (n_reference, n_features) or None
            Rows to compare with; None: the training rows when the estimator
            keeps them (:class:`URerF`), otherwise X itself.
        dense : bool, default=False
            Return the full matrix (refused when it would take more than half
            of the machine's memory) instead of each row's ``n_neighbors``
            most similar reference rows.
        n_neighbors : int or None
            Entries kept per row in the sparse result; None: the estimator's
            ``n_neighbors`` (:class:`URerF`) or 10.

        Returns
        -------
        scipy.sparse.csr_matrix or ndarray of shape (n_queries, n_reference)
            When X is None, row i also stores S(i, i) = 1 and its
            ``n_neighbors`` most similar other rows.

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(200, n_features=5, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=20, random_state=0).fit(X, y)
        >>> S = clf.proximity(X, n_neighbors=5)
        >>> S.shape, float(S[0, 0])
        ((200, 200), 1.0)
        """
        check_is_fitted(self, "_forest")
        if reference is None:
            reference = self._reference_rows()
            if reference is None:
                if X is None:
                    raise ValueError("%s does not keep its training rows: pass the rows to compare as X"
                                     % type(self).__name__)
                reference, X = self._check_X(X), None
        else:
            reference = self._check_X(reference)
        query = None if X is None else self._check_X(X)
        if dense:
            return _proximity.dense(self._forest, reference, query, self._n_threads())
        if n_neighbors is None:
            n_neighbors = getattr(self, "n_neighbors", 10)
        sim, index = _proximity.neighbors(self._forest, reference, query, n_neighbors, self._n_threads(),
                                          verbose=self.verbose)
        return _proximity.sparse_graph(sim, index, reference.shape[0], diagonal=query is None)

    @property
    def feature_usage_(self):
        """How often each feature appears in split projections, over all
        trees, as a fraction of all appearances (the MORF papers' importance)."""
        check_is_fitted(self, "_forest")
        out = np.empty(self.n_features_in_, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_feature_usage(self._forest.ptr, ffi.from_buffer("double[]", out), err), err)
        return out

    @property
    def feature_importances_(self):
        """Impurity-based feature importances (sum to 1)."""
        check_is_fitted(self, "_forest")
        out = np.empty(self.n_features_in_, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_feature_importances(self._forest.ptr, ffi.from_buffer("double[]", out), err), err)
        return out

    def projection_importances(self, top=None):
        """Impurity decrease per distinct split projection (SPORF paper, 4.5).

        A projection and its negation count as one. Where
        ``feature_importances_`` says which inputs matter, this says which
        learned combinations of them do.

        Parameters
        ----------
        top : int or None, default=None
            Return only the ``top`` most important projections.

        Returns
        -------
        list of ProjectionImportance
            ``(features, weights, importance)`` named tuples, most important
            first; importances over all projections sum to 1.

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(300, n_features=10, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=20, random_state=0).fit(X, y)
        >>> best = clf.projection_importances(top=1)[0]
        >>> best._fields
        ('features', 'weights', 'importance')
        """
        check_is_fitted(self, "_forest")
        if top is not None and (not _params._is_int(top) or top < 1):
            raise ValueError("top must be None or an int >= 1, got %r" % (top,))
        n, nnz = ffi.new("int64_t *"), ffi.new("int64_t *")
        err = new_error()
        fp = self._forest.ptr
        check(lib.sporf_forest_projection_importances(fp, n, nnz, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, err), err)
        start = np.empty(n[0] + 1, dtype=np.int64)
        feature = np.empty(max(nnz[0], 1), dtype=np.int32)
        weight = np.empty(max(nnz[0], 1), dtype=np.float64)
        importance = np.empty(max(n[0], 1), dtype=np.float64)
        check(lib.sporf_forest_projection_importances(
            fp, n, nnz, ffi.from_buffer("int64_t[]", start), ffi.from_buffer("int32_t[]", feature),
            ffi.from_buffer("double[]", weight), ffi.from_buffer("double[]", importance), err), err)
        m = int(n[0]) if top is None else min(int(n[0]), int(top))
        return [ProjectionImportance(feature[start[i]:start[i + 1]].astype(np.int64),
                                     weight[start[i]:start[i + 1]].copy(), float(importance[i]))
                for i in range(m)]

    # ---- persistence ----
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

    @classmethod
    def _projection_kwargs(cls, p):
        return dict(feature_combinations=float(p.feature_combinations),
                    projection=_params.PROJECTION_NAMES[p.projection])

    @classmethod
    def _task_kwargs(cls, p):
        return {}

    @classmethod
    def _from_native(cls, forest):
        p = forest.params()
        kwargs = dict(
            **cls._projection_kwargs(p),
            **cls._task_kwargs(p),
            n_estimators=int(p.n_estimators),
            criterion=_params.CRITERION_NAMES[p.criterion],
            max_depth=int(p.max_depth) if p.max_depth > 0 else None,
            min_samples_split=int(p.min_samples_split),
            min_samples_leaf=int(p.min_samples_leaf),
            min_weight_fraction_leaf=float(p.min_weight_fraction_leaf),
            min_impurity_decrease=float(p.min_impurity_decrease),
            max_features=_max_features_from_core(p),
            bootstrap=bool(p.bootstrap),
            max_samples=(int(p.max_samples_count) if p.max_samples_count > 0
                         else float(p.max_samples_fraction) if p.max_samples_fraction > 0 else None),
            honest_fraction=float(p.honest_fraction),
            honest_prior=_params.HONEST_PRIOR_NAMES[p.honest_prior],
            random_state=int(p.random_state),
            first_tree=int(p.first_tree),
        )
        # Each class takes the parameters it has (an unsupervised forest has no honesty).
        est = cls(**{k: v for k, v in kwargs.items() if k in cls._get_param_names()})
        info = forest.info()
        est._forest = forest
        est.n_features_in_ = int(info.n_features)
        names = forest.get_strings(lib.SPORF_STR_FEATURE_NAMES)
        if len(names):
            est.feature_names_in_ = names
        est._restore_task(forest, info)
        est._restore_fitted(p)
        return est

    def _restore_task(self, forest, info):
        pass

    def _restore_fitted(self, p):
        pass


class SPORFClassifier(ClassifierMixin, _BaseForest):
    __doc__ = (
        """Sparse projection oblique randomer forest classifier (SPORF).

    Each split node draws d sparse random projections of the features (weights
    +1/-1), sorts the samples along each and takes the best cut, so the trees
    can split on sparse linear combinations as well as on single features.
    With ``projection="axis"`` it is Breiman's random forest.
"""
        + _PARAM_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X had string column names.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Impurity-based importances; an oblique split's decrease is shared by
        its features in proportion to |weight|. Sums to 1.
    oob_score_ : float
        Out-of-bag accuracy (when ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities (when ``oob_score=True``).

    Examples
    --------
    >>> from sporf import SPORFClassifier
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(500, n_features=10, random_state=0)
    >>> clf = SPORFClassifier(n_estimators=50, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    >>> round(float(clf.predict_proba(X[:1]).sum()), 6)
    1.0
    """
    )

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features="sqrt",
        feature_combinations=1.5,
        projection="sparse",
        bootstrap=True,
        max_samples=None,
        honest_fraction=0.0,
        honest_prior="empirical",
        oob_score=False,
        class_weight=None,
        n_jobs=None,
        random_state=None,
        first_tree=0,
        verbose=0,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.feature_combinations = feature_combinations
        self.projection = projection
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.honest_fraction = honest_fraction
        self.honest_prior = honest_prior
        self.oob_score = oob_score
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.first_tree = first_tree
        self.verbose = verbose

    @exclusive_fit
    def fit(self, X, y, sample_weight=None):
        """Grow the forest from training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; converted to float64. NaN and infinity are refused.
        y : array-like of shape (n_samples,)
            Class labels of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self : SPORFClassifier
        """
        X = self._flatten_input(X, fitting=True)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1,
                             accept_sparse=False, y_numeric=False)
        check_classification_targets(y)
        params = _params.build(self, X.shape[0], X.shape[1], data_dims=self._resolve_data_dims(X.shape[1]))
        classes, y_enc = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                "%s needs samples of at least 2 classes in the data, but the data "
                "contains only one class: %r" % (type(self).__name__, classes[0])
            )
        y_enc = np.ascontiguousarray(y_enc, dtype=np.int32)
        K = classes.shape[0]
        cw = None
        if isinstance(self.class_weight, dict):
            cw = np.ones(K, dtype=np.float64)
            index = {c: i for i, c in enumerate(classes.tolist())}
            unknown = [k for k in self.class_weight if k not in index]
            if unknown:
                raise ValueError("The classes, %r, are not in class_weight" % (unknown,))
            for k, v in self.class_weight.items():
                if not isinstance(v, numbers.Real) or not np.isfinite(v) or v < 0:
                    raise ValueError("class_weight[%r] must be a finite number >= 0, got %r" % (k, v))
                cw[index[k]] = float(v)

        def fit_call(params, view, sw, oob, oob_count, cb, user, out, err):
            return lib.sporf_forest_fit(params, view, ffi.from_buffer("int32_t[]", y_enc), K, sw,
                                        double_ptr(cw) if cw is not None else ffi.NULL,
                                        oob, oob_count, cb, user, out, err)

        forest, oob = self._fit_native(X, params, fit_call, K, sample_weight)
        forest.set_strings(lib.SPORF_STR_CLASSES, classes)
        self._forest = forest
        self.classes_ = classes
        self.n_classes_ = K
        if self.oob_score:
            self._set_oob(oob, y)
        return self

    def _set_oob(self, oob, y):
        self.oob_decision_function_ = oob
        self.oob_score_ = float(np.mean(self.classes_[np.argmax(oob, axis=1)] == y))

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class distributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        # _check_X (in _leaf_means) raises NotFittedError before n_classes_ is read
        if "_forest" not in self.__dict__:
            check_is_fitted(self, "_forest")
        return self._leaf_means(X, self.n_classes_)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Predicted class: the class of highest mean probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        return self.classes_.take(np.argmax(proba, axis=1), axis=0)

    @classmethod
    def _task_kwargs(cls, p):
        cw = {lib.SPORF_CW_BALANCED: "balanced", lib.SPORF_CW_BALANCED_SUBSAMPLE: "balanced_subsample"}
        return dict(class_weight=cw.get(p.class_weight_mode))

    def _restore_task(self, forest, info):
        self.classes_ = forest.get_strings(lib.SPORF_STR_CLASSES)
        self.n_classes_ = int(info.n_classes)


class SPORFRegressor(RegressorMixin, _BaseForest):
    __doc__ = (
        """Sparse projection oblique randomer forest regressor (SPORF).

    The regression twin of :class:`SPORFClassifier`: the same projections,
    with splits chosen by the decrease of the squared error and leaves that
    predict the mean response of their samples; the forest predicts the mean
    of the trees' leaf means.
"""
        + _regressor_doc(_PARAM_DOC)
        + """
    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X had string column names.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Impurity (squared error) based importances. Sums to 1.
    oob_score_ : float
        Out-of-bag R^2 (when ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions (when ``oob_score=True``).

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sporf import SPORFRegressor
    >>> X, y = make_friedman1(300, random_state=0)
    >>> reg = SPORFRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """
    )

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        min_impurity_decrease=0.0,
        max_features=None,
        feature_combinations=1.5,
        projection="sparse",
        bootstrap=True,
        max_samples=None,
        honest_fraction=0.0,
        honest_prior="empirical",
        oob_score=False,
        n_jobs=None,
        random_state=None,
        first_tree=0,
        verbose=0,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.feature_combinations = feature_combinations
        self.projection = projection
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.honest_fraction = honest_fraction
        self.honest_prior = honest_prior
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.first_tree = first_tree
        self.verbose = verbose

    @exclusive_fit
    def fit(self, X, y, sample_weight=None):
        """Grow the forest from training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; converted to float64. NaN and infinity are refused.
        y : array-like of shape (n_samples,)
            Numeric response; NaN and infinity are refused.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self : SPORFRegressor
        """
        X = self._flatten_input(X, fitting=True)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1,
                             accept_sparse=False, y_numeric=True)
        if y.ndim != 1:
            raise ValueError("%s predicts one response: y must be 1-D, got shape %r"
                             % (type(self).__name__, y.shape))
        y = np.ascontiguousarray(y, dtype=np.float64)
        params = _params.build(self, X.shape[0], X.shape[1], data_dims=self._resolve_data_dims(X.shape[1]),
                               regression=True)

        def fit_call(params, view, sw, oob, oob_count, cb, user, out, err):
            return lib.sporf_forest_fit_regression(params, view, double_ptr(y), sw, oob, oob_count,
                                                   cb, user, out, err)

        forest, oob = self._fit_native(X, params, fit_call, 1, sample_weight)
        self._forest = forest
        if self.oob_score:
            self._set_oob(oob, y)
        return self

    def _set_oob(self, oob, y):
        self.oob_prediction_ = oob[:, 0]
        self.oob_score_ = float(r2_score(y, self.oob_prediction_))

    def predict(self, X):
        """Predicted response: the mean of the trees' leaf means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        return self._leaf_means(X, 1)[:, 0]
