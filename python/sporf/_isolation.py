"""Isolation forests: anomaly scores from random cuts of sparse oblique, axis
or patch projections (Liu, Ting and Zhou, 2008), with scikit-learn's
outlier-detector API."""
import numbers

import numpy as np
from sklearn.base import OutlierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _dask, _spec_gen
from ._exclusive import exclusive_fit
from ._forest import _BaseForest, _FitTarget
from ._morf import _MORFMixin
from ._native import FIT_DTYPES


def check_contamination(value):
    """contamination: "auto" or a share in (0, 0.5], as scikit-learn's
    IsolationForest takes it."""
    if isinstance(value, str) and value == "auto":
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and 0.0 < float(value) <= 0.5:
        return float(value)
    raise ValueError('contamination must be "auto" or a number in (0, 0.5], got %r' % (value,))


class _IsolationForest(OutlierMixin, _BaseForest):
    """What the isolation forests share: fit without labels, the scores, the
    threshold that contamination sets, and what they keep of it in the model."""

    @exclusive_fit
    def fit(self, X, y=None, sample_weight=None):
        """Grow the isolation trees on X (y is ignored).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Training rows (at least 2); converted to float64 (float32 is kept).
            NaN marks a missing value: a row is projected with its missing
            features at their training means, so it is scored, never refused;
            infinity is refused.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,) or None
            Row weights: a leaf's rows count by their weight in its path
            length, c(weight).

        Returns
        -------
        self
        """
        check_contamination(self.contamination)
        return self._fit_forest(X, None, sample_weight)

    # ---- the fit template's hooks (_forest.py) ----

    def _values_per_row(self):
        return 1

    def _validate_fit_data(self, X, y):
        X = validate_data(self, X, dtype=FIT_DTYPES, ensure_min_samples=2, accept_sparse=("csr", "csc"),
                          ensure_all_finite=False)
        return X, None

    def _target(self, y):
        return _FitTarget(1, {}, {}, None, {}, None, None)

    def _after_fit(self, X):
        # X: the fit's own matrix, categorical columns already at their positions
        self._fit_threshold(lambda: self._forest.predict_proba(np.ascontiguousarray(X, dtype=np.float64),
                                                               self._n_threads(), 1)[:, 0])

    def _after_warm_fit(self, X, y, n_out):
        self._fit_threshold(lambda: -self.score_samples(X))
        return self

    def _fit_threshold(self, training_scores):
        """offset_ from contamination: the paper's 0.5 ("auto"), or the
        training rows' score above which that share of them lies; kept in
        the model so that a loaded forest labels rows alike.
        training_scores: a callable giving them (anomaly scores, higher is
        more abnormal), called only when needed."""
        contamination = check_contamination(self.contamination)
        if contamination == "auto":
            self._forest.set_score_threshold(0.5)
        else:  # scikit-learn's offset_ = percentile(-scores, 100 c), computed in the core for both languages
            self._forest.set_outlier_share(training_scores(), contamination)
        self.offset_ = -self._forest.score_threshold()

    def _restore_task(self, forest, info):
        self.offset_ = -forest.score_threshold()

    # ---- scores ----

    def score_samples(self, X):
        """The opposite of the anomaly score of each row (scikit-learn's
        convention: the lower, the more abnormal).

        The anomaly score is the isolation forest paper's 2^(-E(h) / c(psi)):
        E(h) the row's mean path length over the trees (a leaf of k training
        rows adds c(k), the mean depth of a random tree on k rows), c(psi)
        that of a tree of the sample's size. It is near 1 for rows isolated
        in a few cuts, about 0.5 or below for the others.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,); a lazy Dask array, one task per row
        partition, when X is a Dask array or DataFrame
        """
        check_is_fitted(self, "_forest")
        if _dask.is_collection(X):
            return self._lazy(X, "score_samples", (), np.float64)
        return -self._leaf_means(X, 1)[:, 0]

    def decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) (lazy for Dask input)
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """-1 for outliers (``decision_function`` < 0), 1 for inliers.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) of int (lazy for Dask input)
        """
        decision = self.decision_function(X)
        if _dask.is_collection(decision):
            return (decision >= 0).astype(np.int64) * 2 - 1
        return np.where(decision < 0, -1, 1)


class SPORFIsolation(_spec_gen._SPORFIsolationParams, _IsolationForest):
    __doc__ = (
        """Isolation forest with sparse oblique projections.

    Anomalies are few and different, so random cuts isolate them sooner than
    ordinary rows (Liu, Ting and Zhou, 2008). Each tree draws ``max_samples``
    rows (256) without replacement and cuts them until every row stands alone
    (the paper's depth limit, ceil(log2(max_samples)), is ``max_depth``): each node draws candidate
    projections -- SPORF's sparse +-1 combinations of a few features, each
    feature over its spread in the node -- and cuts the first one that is not
    constant at a threshold uniform between its smallest and largest value.
    ``projection="axis"`` is the paper's isolation forest,
    ``projection="gaussian"`` with ``feature_combinations`` = p the extended
    isolation forest (Hariri et al., 2021). The same parameters and
    ``random_state`` give the same forest and scores as R's
    ``isolation_forest()``, byte for byte.

"""
        + _spec_gen.PARAM_DOCS["SPORFIsolation"]
        + """
    Attributes
    ----------
    offset_ : float
        The threshold of ``decision_function``: -0.5 for contamination
        "auto", else the training scores' quantile (kept in the model file).
    n_features_in_ : int
        Number of features seen during fit.
    feature_importances_ : ndarray of shape (n_features,)
        The rows each feature's cuts separated, as a share.

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import SPORFIsolation
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(200, 4)), rng.normal(6, 1, size=(4, 4))])
    >>> forest = SPORFIsolation(n_estimators=100, random_state=0).fit(X)
    >>> sorted(np.argsort(forest.score_samples(X))[:4].tolist())
    [200, 201, 202, 203]
    >>> forest.predict(X[-2:]).tolist()
    [-1, -1]
    """
    )


class MORFIsolation(_MORFMixin, _spec_gen._MORFIsolationParams, _IsolationForest):
    __doc__ = (
        """Isolation forest with MORF's patch projections, for images and signals.

    As :class:`SPORFIsolation`, with every candidate projection a patch of
    neighbouring cells of the feature grid ``data_dims`` (a patch sum, or with
    ``patch_weights="haar"`` the contrast of its two halves): an image whose
    strokes, or a signal whose bumps, are out of place is isolated by cuts of
    the patches that cover them.

"""
        + _spec_gen.PARAM_DOCS["MORFIsolation"]
        + """
    Attributes
    ----------
    offset_ : float
        The threshold of ``decision_function`` (see :class:`SPORFIsolation`).
    data_dims_ : tuple of int
        The feature grid the forest was grown on.

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import MORFIsolation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 8, 8)) * 0.1
    >>> X[:3, 2:5, 2:5] += 3.0  # three images with a bright square
    >>> forest = MORFIsolation(n_estimators=100, random_state=0).fit(X)
    >>> sorted(np.argsort(forest.score_samples(X))[:3].tolist())
    [0, 1, 2]
    """
    )
