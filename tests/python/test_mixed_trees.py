"""splitter="mixed": a forest of two kinds of trees, alternating by their
number in the seed's forest -- best cuts on the rows bootstrap and
max_samples draw (even trees), random cuts on a subsample without replacement
of 0.8 of those rows (odd trees). Each tree draws as its kind does wherever
it grows, so shards, thread counts and out-of-bag passes give the one forest.
splitter="auto" grows the same trees and then keeps, by their out-of-bag
scores, all of them or one kind's half -- the same choice however the trees
were grown."""
import numpy as np
import pytest

import sporf
from sporf import _native, _params
from sporf.datasets import make_sparse_parity, make_trunk


def _draws(est, n, tree):
    return _native.tree_draws(_params.build(est, 10), n, tree)


@pytest.mark.parametrize("max_samples,even,odd", [(None, 300, 240), (0.5, 150, 120), (200, 200, 160)])
def test_even_trees_draw_the_bootstrap_and_odd_trees_a_subsample_of_eight_tenths(max_samples, even, odd):
    est = sporf.SPORFClassifier(splitter="mixed", max_samples=max_samples, random_state=3)
    for t in range(6):
        rows, counts = _draws(est, 300, t)
        if t % 2 == 0:  # bootstrap draws: some rows twice
            assert counts.sum() == even and counts.max() > 1
        else:  # distinct rows, exactly 0.8 of the draws
            assert len(rows) == odd and np.all(counts == 1)
    # a shard's first tree is its number's kind
    shard = sporf.SPORFClassifier(splitter="mixed", max_samples=max_samples, random_state=3, first_tree=5)
    rows, counts = _draws(shard, 300, 0)
    np.testing.assert_array_equal(rows, _draws(est.set_params(n_estimators=200), 300, 5)[0])
    assert len(rows) == odd


@pytest.mark.parametrize("splitter,leaf", [("mixed", "auto"), ("mixed", 2), ("auto", "auto")])
def test_any_thread_count_and_any_shards_give_the_one_forest(splitter, leaf):
    X, y = make_trunk(400, 10, random_state=1)
    kw = dict(splitter=splitter, min_samples_leaf=leaf, random_state=11)
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
    rnd = sporf.SPORFClassifier(splitter="random", bootstrap=False, max_samples=0.8, n_estimators=4,
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


def _noisy_and_smooth():
    # random cuts win on a smooth, nearly noiseless boundary (held out: Brier
    # 0.029 against 0.039); best cuts on a corner of two features among ten,
    # with 15% of the labels flipped (0.40 against 0.42)
    rng = np.random.default_rng(5)
    Xs = rng.uniform(-1, 1, size=(600, 2))
    ys = (Xs[:, 0] ** 2 + Xs[:, 1] ** 2 < 0.5).astype(int)
    Xn = rng.normal(size=(600, 10))
    yn = (((Xn[:, 0] > 0.3) & (Xn[:, 1] < 0)) ^ (rng.random(600) < 0.15)).astype(int)
    return (Xs, ys), (Xn, yn)


@pytest.mark.parametrize("Est", [sporf.SPORFClassifier, sporf.SPORFRegressor])
def test_auto_keeps_the_trees_that_score_best_and_reports_the_scores(Est):
    (X, y), _ = _noisy_and_smooth()
    est = Est(splitter="auto", n_estimators=60, random_state=3, oob_score=True).fit(X, y)
    assert est.splitter_ in ("mixed", "best", "random")
    assert set(est.splitter_scores_) == {"mixed", "best", "random"}
    # a kind alone is kept only when it scores best (by more than its standard error)
    best = min(est.splitter_scores_, key=est.splitter_scores_.get)
    assert est.splitter_ in ("mixed", best)
    assert est.apply(X[:1]).shape[1] == (60 if est.splitter_ == "mixed" else 30)
    assert est.get_params()["splitter"] == "auto"
    # the loaded forest keeps its trees' numbering: the same out-of-bag rows
    again = sporf.load(est.to_bytes())
    assert again.splitter_ == est.splitter_ and again.get_params()["splitter"] == "auto"
    if Est is sporf.SPORFRegressor:
        np.testing.assert_array_equal(again.predict(X, oob=True), est.oob_prediction_)


def test_auto_scores_each_choice_as_the_forest_it_would_store():
    # the out-of-bag estimate of each choice's Brier score is close to its
    # held-out Brier score, though a kind alone has half the trees and fewer
    # out-of-bag trees per row (the plain out-of-bag mean would be off by the
    # variance of a few trees)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6000, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.7, size=6000) > 0).astype(int)
    tr, te = slice(0, 2000), slice(2000, None)
    est = sporf.SPORFClassifier(splitter="auto", n_estimators=60, random_state=2, n_jobs=2).fit(X[tr], y[tr])
    kept = est.splitter_
    p = est.predict_proba(X[te])[:, 1]
    brier = 2 * (p - y[te]) ** 2  # both classes' squared errors
    held_out = np.mean([brier[y[te] == k].mean() for k in (0, 1)])  # each class weighing alike
    assert abs(est.splitter_scores_[kept] - held_out) < 0.1 * held_out


def test_auto_chooses_random_cuts_where_they_win_and_best_cuts_where_they_do():
    (Xs, ys), (Xn, yn) = _noisy_and_smooth()
    smooth = sporf.SPORFClassifier(splitter="auto", random_state=0, n_jobs=2).fit(Xs, ys)
    noisy = sporf.SPORFClassifier(splitter="auto", random_state=0, n_jobs=2).fit(Xn, yn)
    assert smooth.splitter_ in ("random", "mixed") and noisy.splitter_ in ("best", "mixed")
    assert smooth.splitter_scores_["random"] < smooth.splitter_scores_["best"]
    assert noisy.splitter_scores_["best"] < noisy.splitter_scores_["random"]


def test_warm_start_adds_trees_of_the_kinds_kept():
    # n_estimators counts the trees grown, as in one fit: a forest that kept
    # one kind of its 40 trees holds 20 and, grown to 52, the kind's 26 of them
    (X, y), _ = _noisy_and_smooth()
    for seed in range(4, 40):
        est = sporf.SPORFClassifier(splitter="auto", n_estimators=40, random_state=seed, warm_start=True).fit(X, y)
        if est.splitter_ != "mixed":
            break
    kept = est.splitter_
    assert kept != "mixed" and est.n_estimators_ == 20 == est.apply(X[:1]).shape[1]
    with pytest.warns(UserWarning, match="does not fit new trees"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="at least the 40 trees already grown"):
        est.set_params(n_estimators=38).fit(X, y)
    est.set_params(n_estimators=52).fit(X, y)
    assert est.n_estimators_ == 26 == est.apply(X[:1]).shape[1] and est.splitter_ == kept
    # the new trees are the kept kind's next trees of the seed's forest: those of a mixed forest
    mixed = sporf.SPORFClassifier(splitter="mixed", n_estimators=52, min_samples_leaf=1, random_state=seed).fit(X, y)
    at = 0 if kept == "best" else 1
    for t in (19, 20, 25):
        np.testing.assert_array_equal(_native.tree_draws(est._forest.params(), len(y), t)[0],
                                      _draws(mixed, len(y), 2 * t + at)[0])
    # and a forest that kept both kinds grows both
    both = sporf.SPORFClassifier(splitter="auto", n_estimators=8, random_state=0, warm_start=True).fit(X, y)
    if both.splitter_ == "mixed":
        assert both.set_params(n_estimators=11).fit(X, y).n_estimators_ == 11


@pytest.mark.parametrize("kw", [dict(min_samples_leaf=3), dict(bootstrap=False)], ids=["size given", "no rows out"])
def test_auto_grows_best_cuts_where_the_leaf_size_is_not_chosen_out_of_bag(kw):
    X, y = make_trunk(100, 4, random_state=0)
    auto = sporf.SPORFClassifier(splitter="auto", n_estimators=6, random_state=1, **kw).fit(X, y)
    best = sporf.SPORFClassifier(splitter="best", n_estimators=6, random_state=1, **kw).fit(X, y)
    assert auto.to_bytes() == best.to_bytes() and not hasattr(auto, "splitter_")


def test_auto_grows_best_cuts_above_five_thousand_rows():
    # on large data a kind alone, with half the trees, lost to best cuts on all of
    # them: "auto" (the default) grows the forest splitter="best" grows there
    X, y = make_trunk(5001, 4, random_state=0)
    kw = dict(n_estimators=3, max_depth=6, random_state=2)
    auto = sporf.SPORFClassifier(**kw).fit(X, y)
    assert auto.get_params()["splitter"] == "auto" and not hasattr(auto, "splitter_")
    assert auto.to_bytes() == sporf.SPORFClassifier(splitter="best", **kw).fit(X, y).to_bytes()
    at_limit = sporf.SPORFClassifier(**kw).fit(X[:5000], y[:5000])
    assert at_limit.splitter_ in ("mixed", "best", "random")
