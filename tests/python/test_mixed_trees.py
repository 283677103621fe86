"""splitter="mixed": a forest of two kinds of trees, alternating by their
number in the seed's forest -- best cuts on the rows bootstrap and
max_samples draw (even trees), random cuts on a subsample without replacement
of 0.9 of those rows (odd trees). Each tree draws as its kind does wherever
it grows, so shards, thread counts and out-of-bag passes give the one forest;
both kinds together beat either alone where one kind's errors are not the
other's."""
import numpy as np
import pytest

import sporf
from sporf import _native, _params
from sporf.datasets import make_sparse_parity, make_trunk


def _draws(est, n, tree):
    return _native.tree_draws(_params.build(est, 10), n, tree)


@pytest.mark.parametrize("max_samples,even,odd", [(None, 300, 270), (0.5, 150, 135), (200, 200, 180)])
def test_even_trees_draw_the_bootstrap_and_odd_trees_a_subsample_of_nine_tenths(max_samples, even, odd):
    est = sporf.SPORFClassifier(splitter="mixed", max_samples=max_samples, random_state=3)
    for t in range(6):
        rows, counts = _draws(est, 300, t)
        if t % 2 == 0:  # bootstrap draws: some rows twice
            assert counts.sum() == even and counts.max() > 1
        else:  # distinct rows, exactly 0.9 of the draws
            assert len(rows) == odd and np.all(counts == 1)
    # a shard's first tree is its number's kind
    shard = sporf.SPORFClassifier(splitter="mixed", max_samples=max_samples, random_state=3, first_tree=5)
    rows, counts = _draws(shard, 300, 0)
    np.testing.assert_array_equal(rows, _draws(est.set_params(n_estimators=200), 300, 5)[0])
    assert len(rows) == odd


@pytest.mark.parametrize("leaf", ["auto", 2])
def test_any_thread_count_and_any_shards_give_the_one_forest(leaf):
    X, y = make_trunk(400, 10, random_state=1)
    kw = dict(splitter="mixed", min_samples_leaf=leaf, random_state=11)
    one = sporf.SPORFClassifier(n_estimators=21, n_jobs=1, **kw).fit(X, y)
    assert sporf.SPORFClassifier(n_estimators=21, n_jobs=2, **kw).fit(X, y).to_bytes() == one.to_bytes()
    for cut in (1, 10):  # shards beginning on a random-cut tree and on a best-cut tree
        a = sporf.SPORFClassifier(n_estimators=cut, first_tree=0, **kw).fit(X, y)
        b = sporf.SPORFClassifier(n_estimators=21 - cut, first_tree=cut, **kw).fit(X, y)
        assert sporf.merge_forests([b, a]).to_bytes() == one.to_bytes()


def test_the_kinds_differ_and_the_odd_trees_cut_at_random():
    # the odd trees of a mixed forest are the trees of splitter "random" on
    # that subsample: the same seed, the same tree
    X, y = make_trunk(300, 8, random_state=2)
    mixed = sporf.SPORFClassifier(splitter="mixed", n_estimators=4, min_samples_leaf=1, random_state=7).fit(X, y)
    rnd = sporf.SPORFClassifier(splitter="random", bootstrap=False, max_samples=0.9, n_estimators=4,
                                min_samples_leaf=1, random_state=7).fit(X, y)
    best = sporf.SPORFClassifier(n_estimators=4, min_samples_leaf=1, random_state=7).fit(X, y)
    Xt = make_trunk(200, 8, random_state=3)[0]
    leaves_mixed, leaves_rnd, leaves_best = mixed.apply(Xt), rnd.apply(Xt), best.apply(Xt)
    np.testing.assert_array_equal(leaves_mixed[:, 1::2], leaves_rnd[:, 1::2])
    np.testing.assert_array_equal(leaves_mixed[:, 0::2], leaves_best[:, 0::2])
    assert not np.array_equal(leaves_rnd[:, 0::2], leaves_best[:, 0::2])


def test_out_of_bag_scores_and_importance_follow_each_tree_s_draws():
    X, y = make_trunk(300, 8, random_state=4)
    est = sporf.SPORFClassifier(splitter="mixed", n_estimators=30, oob_score=True, importance="permutation",
                                random_state=2).fit(X, y)
    assert 0.8 < est.oob_score_ <= 1.0
    assert est.permutation_importances_.argmax() in (0, 1)  # trunk's first features carry the most signal
    # the pass after the fit regenerates every tree's draws: the same answers from a loaded model
    reg = sporf.SPORFRegressor(splitter="mixed", n_estimators=30, oob_score=True, random_state=2).fit(X, X[:, 0] + y)
    again = sporf.load(reg.to_bytes())
    np.testing.assert_array_equal(again.predict(X, oob=True), reg.oob_prediction_)


def test_mixed_forests_learn_the_paper_s_sparse_parity():
    # the SPORF paper's sparse parity (3 of 10 features): both kinds search
    # sparse oblique candidates; the mixed forest beats an axis-aligned one
    X, y = make_sparse_parity(1500, 10, random_state=0)
    Xt, yt = make_sparse_parity(2000, 10, random_state=1)
    mixed = sporf.SPORFClassifier(splitter="mixed", n_estimators=100, random_state=0, n_jobs=2).fit(X, y)
    axis = sporf.SPORFClassifier(projection="axis", axis_features=0, guided_features=0, n_estimators=100,
                                 random_state=0, n_jobs=2).fit(X, y)
    err_mixed, err_axis = np.mean(mixed.predict(Xt) != yt), np.mean(axis.predict(Xt) != yt)
    assert err_mixed < 0.2 and err_mixed < err_axis


def test_regression_and_quantiles_with_both_kinds():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + 0.1 * rng.normal(size=400)
    est = sporf.SPORFRegressor(splitter="mixed", quantiles=True, random_state=1, n_jobs=2).fit(X, y)
    Xt = rng.normal(size=(300, 5))
    yt = Xt[:, 0] * 2 + np.sin(3 * Xt[:, 1])
    assert 1 - np.mean((est.predict(Xt) - yt) ** 2) / np.var(yt) > 0.85
    lo, hi = est.predict(Xt, quantiles=[0.05, 0.95]).T
    assert np.all(lo <= hi)


def test_a_misspelt_splitter_names_the_choices():
    X, y = make_trunk(100, 4, random_state=0)
    with pytest.raises(ValueError, match='"best", "random", "mixed"'):
        sporf.SPORFClassifier(splitter="mix").fit(X, y)
