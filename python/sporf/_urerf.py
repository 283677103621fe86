"""URerF: unsupervised randomer forests (Fast-BIC or two-means splits on
sparse oblique, axis or patch projections) and the neighbours they induce."""
import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _dask, _params, _proximity, _spec_gen
from ._native import FIT_DTYPES
from ._exclusive import exclusive_fit
from ._forest import _BaseForest, _FitTarget


class URerF(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _spec_gen._URerFParams, _BaseForest):
    __doc__ = (
        """Unsupervised randomer forest (URerF) and its proximity.

    Trees are grown without labels: each split node draws candidate
    projections as :class:`SPORFClassifier` does and cuts the one whose values
    split best into two clusters -- by Fast-BIC (two Gaussians per cut, fitted
    by maximum likelihood, the better of the equal- and unequal-variance BIC)
    or by one-dimensional two-means. Rows that share leaves are similar:
    S(i, j) is the fraction of trees that put them in the same leaf. The
    forest keeps its training rows, so it answers neighbour queries against
    them without ever forming an n x n matrix.

"""
        + _spec_gen.PARAM_DOCS["URerF"]
        + """
    Every unsupervised cut also keeps at least 0.5% of the node's rows on each
    side (and at least min_samples_leaf). A Gaussian fitted to two or three
    rows has a tiny variance and a huge likelihood, so on a node with no
    cluster structure the unconstrained Fast-BIC cut peels a couple of extreme
    rows off, again and again: trees grow O(n) deep and a fit on 100,000 rows
    takes hours. The 0.5% floor keeps the fit O(n log n) and moved the paper's
    simulation precisions by at most a few hundredths (benchmarks/notes/papers.md).

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the projected values' spread removed by splits, by feature.

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import URerF
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 4)), rng.normal(6, 1, (50, 4))])
    >>> forest = URerF(n_estimators=50, random_state=0).fit(X)
    >>> similarity, index = forest.kneighbors(n_neighbors=5)
    >>> bool(np.all((index < 50) == (np.arange(100) < 50)[:, None]))
    True
    >>> forest.transform(X[:2]).shape
    (2, 100)
    """
    )


    @exclusive_fit
    def fit(self, X, y=None):
        """Grow the forest on X (y is ignored) and keep X as the reference
        rows of neighbour queries.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Training data; converted to float64. NaN marks a missing value (each
            split sends rows missing its projection to the side of the node's mean
            projected value); infinity is refused.
        y : None
            Ignored.

        Returns
        -------
        self : URerF
        """
        return self._fit_forest(X, None, None)

    # the fit template's hooks (_forest.py): no response, X kept for the queries

    def _validate_fit_data(self, X, y):
        X = validate_data(self, X, dtype=FIT_DTYPES, ensure_min_samples=2, accept_sparse=("csr", "csc"),
                          ensure_all_finite=False)
        return X, None

    def _resolve_data_dims(self, n_features):
        # A grid given with another projection goes to the core, which refuses it.
        if self.projection == "patch" or self.data_dims is not None:
            return _params.resolve_data_dims(self.data_dims, n_features)
        return None

    def _target(self, y):
        # n_neighbors is checked against the reference rows when a query runs
        # (as scikit-learn's NearestNeighbors does); here only its type.
        _proximity.check_n_neighbors(self.n_neighbors, np.inf, self_excluded=False)
        return _FitTarget(1, {}, {}, None, {}, None, None)

    def _after_fit(self, X):
        self._fit_X = np.ascontiguousarray(X, dtype=np.float64)  # the queries' reference rows, as they read them
        # transform's columns are the training rows (get_feature_names_out:
        # "urerf0", "urerf1", ...; set_output for the sparse result as for
        # scikit-learn's sparse transformers)
        self._n_features_out = X.shape[0]

    def _reference_rows(self):
        if getattr(self, "_fit_X", None) is None:
            raise ValueError("this URerF was loaded from a model file, which holds the trees but not the "
                             "training rows: fit again, or pass them as proximity(X, reference=...)")
        return self._fit_X

    def transform(self, X):
        """Similarity of each row of X to its ``n_neighbors`` most similar
        training rows, as a sparse matrix of shape (n_samples, n_train).

        Rows of X are new rows: a training row passed here finds itself with
        similarity 1.

        The result is sparse: each row keeps ``n_neighbors`` non-zeros among
        n_train columns, which a dense array would store as zeros (8 bytes
        each). scikit-learn's ``set_output(transform="pandas")`` does not
        apply to sparse output and raises; for a DataFrame, or a next step
        that needs dense input, densify: ``pandas.DataFrame(S.toarray())``, or
        ``FunctionTransformer(lambda S: S.toarray(), accept_sparse=True)``
        after this step in a Pipeline.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_train)

        Examples
        --------
        >>> from sporf import URerF
        >>> from sporf.datasets import make_manifold
        >>> X, _, _ = make_manifold("helix", 200, random_state=0)
        >>> forest = URerF(n_estimators=20, n_neighbors=5, random_state=0).fit(X)
        >>> S = forest.transform(X[:3])
        >>> S.shape, S.getnnz(axis=1).tolist()
        ((3, 200), [5, 5, 5])
        """
        check_is_fitted(self, "_forest")
        return self.proximity(X)

    def kneighbors(self, X=None, n_neighbors=None):
        """The most similar training rows of each row.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features) or None
            Query rows; None: the training rows, none of which is returned as
            its own neighbour.
        n_neighbors : int or None
            Neighbours per row; None: the estimator's ``n_neighbors``.

        Returns
        -------
        similarity : ndarray of shape (n_queries, n_neighbors)
            Forest proximities, most similar first.
        indices : ndarray of shape (n_queries, n_neighbors)
            Indices of the neighbours in the training rows (ties: smaller
            index first; rows with too few similar rows are completed with
            similarity-0 rows in index order).

        Examples
        --------
        >>> from sporf import URerF
        >>> from sporf.datasets import make_manifold
        >>> X, _, _ = make_manifold("linear", 100, random_state=0)
        >>> similarity, index = URerF(n_estimators=20, random_state=0).fit(X).kneighbors(n_neighbors=3)
        >>> index.shape, bool((index[:, 0] != range(100)).all())  # never a row itself
        ((100, 3), True)
        """
        check_is_fitted(self, "_forest")
        reference = self._reference_rows()
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if _dask.is_collection(reference):  # fitted from a Dask collection: the rows stay on the cluster
            query = None if X is None else (_dask.whole_rows(X) if _dask.is_collection(X) else self._check_X(X))
            return _proximity.partitioned_neighbors(self._forest, _dask.whole_rows(reference), query, k)
        query = None if X is None else self._check_X(X)
        return _proximity.neighbors(self._forest, reference, query, k, self._n_threads(), verbose=self.verbose)

