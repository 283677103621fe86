"""What a fitted forest tells about itself: the leaves rows reach
(apply, decision_path), its trees one by one (get_tree, predict_trees),
forest proximities between rows, and the importance of its features and
projections -- the methods every sporf estimator shares, mixed into the
estimators' base (_forest._BaseForest, which checks inputs and holds the
fitted core forest in self._forest)."""
from collections import namedtuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from . import _dask, _native, _params, _proximity, _sparse

ProjectionImportance = namedtuple("ProjectionImportance", ["features", "weights", "importance"])

TreeView = namedtuple("TreeView", ["children_left", "children_right", "proj_start", "proj_len", "proj_feature",
                                   "proj_weight", "threshold", "missing", "gain", "value"])
TreeView.__doc__ = """One tree of a fitted forest, read-only (numpy arrays; see get_tree).

Nodes are in preorder, node 0 the root (the numbering :meth:`apply` reports).
Node i sends a row left when ``sum(proj_weight[k] * x[proj_feature[k]])`` over
``k in range(proj_start[i], proj_start[i] + proj_len[i])`` is ``<= threshold[i]``;
``children_left[i]`` and ``children_right[i]`` are -1 for a leaf. ``missing[i]``
says where a row whose projection is missing goes: "left", "right" or "impute"
(the projection with the missing features at their training means). ``gain``
is each split's weighted impurity decrease (0 at leaves). ``value`` is
(n_nodes, n_classes) for classifiers (a leaf's class distribution) and
(n_nodes,) for regressors (a leaf's mean); NaN at internal nodes. A forest
fitted on multi-output y holds every output's values side by side:
(n_nodes, sum of n_classes_) or (n_nodes, n_outputs).
"""
_MISSING_WORDS = np.array(["right", "left", "impute"])
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


class _ForestInspection:
    """Leaves, trees, proximities and importances of a fitted forest."""

    def apply(self, X):
        """Leaf reached in each tree: node index within its tree (root = 0).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of shape (n_samples, n_trees), dtype int64
            Each row's leaf in each of the forest's n_trees trees (``n_estimators_``).

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
        >>> clf.apply(X[:2]).shape
        (2, 5)

        A Dask array or DataFrame gives a lazy Dask array, one task per row
        partition.
        """
        if _dask.is_collection(X):
            return self._lazy(X, "apply", (int(self._forest.info().n_trees),), np.int64)
        X = self._check_X(X)
        if _sparse.issparse(X):
            out = np.empty((X.shape[0], self._forest.info().n_trees), dtype=np.int64)
            for i, block in _sparse.row_blocks(X):
                out[i:i + block.shape[0]] = self.apply(block)
            return out
        return self._forest.apply(X, self._n_threads())

    # ---- per-tree access ----
    def get_tree(self, tree):
        """One tree's nodes, read-only: a ``TreeView`` named tuple of numpy arrays.

        Parameters
        ----------
        tree : int
            Which tree, in [0, n_trees), n_trees the ``n_estimators_`` the forest holds.

        Returns
        -------
        TreeView
            children, projections (features and weights), thresholds,
            missing-value directions, gains and leaf values by node.

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
        >>> t = clf.get_tree(0)
        >>> int(t.children_left[0]), t.value.shape[1]
        (1, 2)
        """
        check_is_fitted(self, "_forest")
        if not _params._is_int(tree) or not 0 <= tree < self._forest.info().n_trees:
            raise ValueError("tree must be an int in [0, %d), got %r" % (self._forest.info().n_trees, tree))
        a = self._forest.get_tree(int(tree))
        value = a["value"][:, 0] if self._one_value_per_leaf() else a["value"]
        return TreeView(a["left"], a["right"], a["proj_start"], a["proj_len"], a["proj_feature"], a["proj_weight"],
                        a["threshold"], _MISSING_WORDS[a["missing"]], a["gain"], value)

    def decision_path(self, X):
        """The nodes each row passes through, in scikit-learn's format.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Entry (i, j) is 1 when row i passes through node j, the nodes of
            all trees side by side.
        n_nodes_ptr : ndarray of shape (n_trees + 1,)
            Tree t's nodes are columns ``n_nodes_ptr[t]:n_nodes_ptr[t + 1]``.

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=3, random_state=0).fit(X, y)
        >>> indicator, ptr = clf.decision_path(X[:2])
        >>> bool(indicator.shape[1] == ptr[-1])
        True
        """
        leaves = self.apply(X)
        n, T = leaves.shape
        rows, cols, ptr = [], [], [0]
        for t in range(T):
            tree = self._forest.get_tree(t)
            parent = np.full(tree["left"].shape[0], -1, dtype=np.int64)
            internal = np.flatnonzero(tree["left"] >= 0)
            parent[tree["left"][internal]] = internal
            parent[tree["right"][internal]] = internal
            node, row = leaves[:, t].astype(np.int64), np.arange(n)
            while node.size:  # climb from each row's leaf to the root
                rows.append(row)
                cols.append(node + ptr[-1])
                up = parent[node]
                keep = up >= 0
                node, row = up[keep], row[keep]
            ptr.append(ptr[-1] + tree["left"].shape[0])
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        indicator = sp.csr_matrix((np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(n, ptr[-1]))
        indicator.sort_indices()
        return indicator, np.asarray(ptr, dtype=np.int64)

    def predict_trees(self, X):
        """Each tree's prediction for each row (randomForest's predict.all).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray
            Classifiers: (n_samples, n_trees, n_classes), each tree's
            class distribution at the row's leaf; regressors: (n_samples,
            n_trees), each tree's leaf mean. Multi-output y: every
            output's values side by side in the last axis. An honest tree whose leaf
            received no estimation row gives its prior (where the forest's
            prediction leaves that tree out with ``honest_prior="ignore"``).

        Examples
        --------
        >>> from sporf import SPORFRegressor
        >>> from sklearn.datasets import make_friedman1
        >>> X, y = make_friedman1(200, random_state=0)
        >>> reg = SPORFRegressor(n_estimators=4, random_state=0).fit(X, y)
        >>> reg.predict_trees(X[:3]).shape
        (3, 4)
        """
        leaves = self.apply(X)
        values = [self._forest.get_tree(t)["value"] for t in range(leaves.shape[1])]
        out = np.stack([values[t][leaves[:, t]] for t in range(leaves.shape[1])], axis=1)
        return out[:, :, 0] if self._one_value_per_leaf() else out

    def _one_value_per_leaf(self):
        """A single-output regression or unsupervised forest: its per-tree
        values drop the trailing axis of length 1."""
        info = self._forest.info()
        return info.task != _native.TASK_CLASSIFICATION and info.n_outputs == 1

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
            ``n_neighbors`` (:class:`URerF`) or 10. On fewer reference rows,
            every one of them.

        Returns
        -------
        scipy.sparse.csr_matrix or ndarray of shape (n_queries, n_reference)
            When X is None, row i also stores S(i, i) = 1 and its
            ``n_neighbors`` most similar other rows. When X is a Dask array or
            DataFrame (reference in memory), a lazy Dask array of the same
            blocks, one task per partition of X.

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
        stored = reference if reference is not None else self._reference_rows()
        if stored is not None and _dask.is_collection(stored):
            return self._proximity_partitioned(X, stored, dense, n_neighbors)
        if X is not None and _dask.is_collection(X):
            # a lazy Dask array, one task per partition of X against the
            # reference rows in memory (sent once)
            if reference is None:
                reference = self._reference_rows()
            if reference is None:
                raise ValueError("X is a Dask collection: give the rows to compare it with as reference (in memory)")
            reference = self._dense_X(reference)
            meta = None if dense else sp.csr_matrix((0, 0))
            return self._lazy(X, "proximity", (reference.shape[0],), np.float64, meta=meta, reference=reference,
                              dense=dense, n_neighbors=n_neighbors)
        if reference is None:
            reference = self._reference_rows()
            if reference is None:
                if X is None:
                    raise ValueError("%s does not keep its training rows: pass the rows to compare as X"
                                     % type(self).__name__)
                reference, X = self._dense_X(X), None
        else:
            reference = self._dense_X(reference)
        query = None if X is None else self._dense_X(X)
        if dense:
            return _proximity.dense(self._forest, reference, query, self._n_threads())
        if n_neighbors is None:
            n_neighbors = getattr(self, "n_neighbors", 10)
        sim, index = _proximity.neighbors(self._forest, reference, query, n_neighbors, self._n_threads(),
                                          verbose=self.verbose, fewer_ok=True)
        return _proximity.sparse_graph(sim, index, reference.shape[0], diagonal=query is None)

    def _proximity_partitioned(self, X, reference, dense, n_neighbors):
        """proximity() against reference rows partitioned over a Dask
        cluster (a forest fitted from a Dask collection keeps its rows
        there): each row's n_neighbors most similar reference rows, found
        partition by partition and merged (_proximity.partitioned_neighbors),
        returned in memory."""
        if dense:
            raise ValueError("the reference rows are a Dask collection: a dense proximity matrix would gather "
                             "them; use the sparse neighbour graph (dense=False), or give reference rows in memory")
        reference = _dask.whole_rows(reference)
        query = None if X is None else (_dask.whole_rows(X) if _dask.is_collection(X) else self._dense_X(X))
        if n_neighbors is None:
            n_neighbors = getattr(self, "n_neighbors", 10)
        sim, index = _proximity.partitioned_neighbors(self._forest, reference, query, n_neighbors)
        return _proximity.sparse_graph(sim, index, reference.shape[0], diagonal=query is None)

    @property
    def feature_usage_(self):
        """How often each feature appears in split projections, over all
        trees, as a fraction of all appearances (the MORF papers' importance)."""
        check_is_fitted(self, "_forest")
        return self._forest.feature_usage(self.n_features_in_)

    @property
    def feature_importances_(self):
        """Impurity-based feature importances (sum to 1)."""
        check_is_fitted(self, "_forest")
        return self._forest.feature_importances(self.n_features_in_)

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
        start, feature, weight, importance = self._forest.projection_importances()
        m = len(importance) if top is None else min(len(importance), int(top))
        return [ProjectionImportance(feature[start[i]:start[i + 1]].astype(np.int64),
                                     weight[start[i]:start[i + 1]].copy(), float(importance[i]))
                for i in range(m)]
