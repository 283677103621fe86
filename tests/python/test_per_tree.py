"""Per-tree access: get_tree (a read-only view of one tree's nodes),
decision_path in scikit-learn's format, and each tree's predictions."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_friedman1

import sporf
from sporf.datasets import make_trunk


def walk(tree, x):
    """The leaf row x reaches, by the TreeView's own description."""
    i = 0
    while tree.children_left[i] >= 0:
        k = slice(tree.proj_start[i], tree.proj_start[i] + tree.proj_len[i])
        v = float(np.dot(tree.proj_weight[k], x[tree.proj_feature[k]]))
        i = tree.children_left[i] if v <= tree.threshold[i] else tree.children_right[i]
    return i


def test_a_tree_view_walks_rows_to_the_leaves_apply_reports():
    X, y = make_trunk(300, 8, random_state=0)
    clf = sporf.SPORFClassifier(n_estimators=4, random_state=0).fit(X, y)
    leaves = clf.apply(X[:50])
    for t in range(4):
        tree = clf.get_tree(t)
        assert [walk(tree, x) for x in X[:50]] == list(leaves[:, t])
        internal = tree.children_left >= 0
        assert np.isnan(tree.value[internal]).all() and not np.isnan(tree.value[~internal]).any()
        np.testing.assert_allclose(tree.value[~internal].sum(axis=1), 1.0)
        assert set(tree.missing[internal]) <= {"left", "right", "impute"}
    with pytest.raises(ValueError, match=r"tree must be an int in \[0, 4\)"):
        clf.get_tree(4)


def test_decision_path_has_scikit_learns_format_and_ends_at_the_leaves():
    X, y = make_trunk(200, 6, random_state=1)
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=1).fit(X, y)
    indicator, ptr = clf.decision_path(X[:20])
    assert sp.issparse(indicator) and indicator.shape == (20, ptr[-1]) and ptr.shape == (6,)
    leaves = clf.apply(X[:20])
    for t in range(5):
        block = indicator[:, ptr[t]:ptr[t + 1]]
        assert (block[:, 0].toarray() == 1).all()  # every path starts at the root
        assert [row.indices.max() for row in block] == list(leaves[:, t])
        assert [row.nnz for row in block] == [len(path_of(clf.get_tree(t), leaf)) for leaf in leaves[:, t]]


def path_of(tree, leaf):
    parent = {c: i for i in range(len(tree.children_left)) for c in (tree.children_left[i], tree.children_right[i])
              if c >= 0}
    path = [leaf]
    while path[-1] != 0:
        path.append(parent[path[-1]])
    return path


def test_each_trees_predictions_average_to_the_forests():
    X, y = make_trunk(200, 6, random_state=2)
    clf = sporf.SPORFClassifier(n_estimators=7, random_state=2).fit(X, y)
    per_tree = clf.predict_trees(X)
    assert per_tree.shape == (200, clf.n_estimators_, 2) and clf.n_estimators_ in (3, 4, 7)
    np.testing.assert_allclose(per_tree.mean(axis=1), clf.predict_proba(X))
    Xr, yr = make_friedman1(200, random_state=0)
    reg = sporf.SPORFRegressor(n_estimators=5, random_state=0).fit(Xr, yr)
    np.testing.assert_allclose(reg.predict_trees(Xr).mean(axis=1), reg.predict(Xr))
    assert reg.get_tree(0).value.ndim == 1
