"""min_samples_leaf="auto": the leaf size chosen out of bag from one fit.

The trees grow to leaves of one row; the out-of-bag rows score each size
(1, 2, 3, 5 and 8 rows for classification, by the Brier score with every
class weighing alike; also 13 and 21 for regression, by squared error), a
tree answering a row from the deepest node on its path that holds at least
that many of its rows; the forest is pruned to the best size."""
import numpy as np
import pytest
from sklearn.datasets import make_friedman1

import sporf
from sporf import _native, _params
from sporf.datasets import make_orthant, make_trunk

SIZES = [1, 2, 3, 5, 8, 13, 21]
CLASSIFIER_SIZES = [1, 2, 3, 5, 8]


def test_the_choice_follows_the_noise():
    # nearly noiseless classes want small leaves, a noisy response large ones
    X, y = make_orthant(600, 4, random_state=0)
    clean = sporf.SPORFClassifier(min_samples_leaf="auto", random_state=0, n_jobs=2).fit(X, y)
    assert clean.min_samples_leaf_ <= 3
    assert sorted(clean.leaf_scores_) == CLASSIFIER_SIZES
    assert clean.leaf_scores_[clean.min_samples_leaf_] == min(clean.leaf_scores_.values())
    Xr, yr = make_friedman1(600, 10, noise=6.0, random_state=0)
    noisy = sporf.SPORFRegressor(min_samples_leaf="auto", random_state=0, n_jobs=2).fit(Xr, yr)
    assert noisy.min_samples_leaf_ >= 5, noisy.leaf_scores_
    assert sorted(noisy.leaf_scores_) == SIZES
    # the pruned forest is smaller than the grown one
    grown = sporf.SPORFRegressor(min_samples_leaf=1, random_state=0, n_jobs=2).fit(Xr, yr)
    assert noisy._forest.info().n_nodes < 0.5 * grown._forest.info().n_nodes


def test_same_forest_for_any_number_of_threads():
    X, y = make_trunk(400, 10, random_state=1)
    kw = dict(n_estimators=30, min_samples_leaf="auto", random_state=5)
    one = sporf.SPORFClassifier(n_jobs=1, **kw).fit(X, y)
    two = sporf.SPORFClassifier(n_jobs=2, **kw).fit(X, y)
    assert one.to_bytes() == two.to_bytes()
    assert one.leaf_scores_ == two.leaf_scores_
    # a refit from the stored parameters grows the same forest
    again = sporf.load(one.to_bytes())
    assert again.get_params()["min_samples_leaf"] == "auto"
    assert sporf.SPORFClassifier(**again.get_params()).set_params(n_jobs=2).fit(X, y).to_bytes() == one.to_bytes()


def _node_rows_and_values(est, X, y, t):
    """Each node's in-bag rows and class distribution (bootstrap counts as
    weights) of tree t of a forest grown with leaves of one row."""
    rows, counts = _native.tree_draws(_params.build(est, X.shape[1]), len(y), t)
    indicator, ptr = est.decision_path(X[rows])
    ind = indicator[:, ptr[t]:ptr[t + 1]].toarray().astype(bool)
    n_rows = ind.sum(axis=0)
    onehot = np.eye(2)[y[rows]] * counts[:, None]
    values = ind.T.astype(float) @ onehot
    values /= values.sum(axis=1, keepdims=True)
    return n_rows, values


def test_unbalanced_classes_weigh_alike_in_the_score():
    # the score of a size is each class's mean Brier score, summed: the rare
    # class counts as much as the common one, so large leaves that predict
    # the common class everywhere do not win
    rng = np.random.RandomState(5)
    X = rng.normal(size=(1500, 5))
    y = ((X[:, 0] + 0.8 * rng.normal(size=1500)) > 1.8).astype(int)  # about 6% of rows in class 1
    est = sporf.SPORFClassifier(min_samples_leaf="auto", splitter="best", random_state=1, n_jobs=2,
                                oob_score=True).fit(X, y)
    counts = np.bincount(y)
    proba = est.oob_decision_function_
    brier = ((proba - np.eye(2)[y]) ** 2).sum(axis=1)
    balanced = np.sum(brier / counts[y]) / np.sum(1.0 / counts[y])
    k = est.min_samples_leaf_
    assert est.leaf_scores_[k] == pytest.approx(balanced, rel=1e-9)


def test_a_tree_answers_from_its_deepest_node_of_enough_rows():
    # the forest auto stores is the leaves-of-one forest answering each row
    # from the deepest node on its path that holds the chosen number of rows
    X, y = make_trunk(300, 6, random_state=3)
    y = np.where(np.random.RandomState(0).rand(300) < 0.2, 1 - y, y)  # noise: the choice is above 1
    kw = dict(n_estimators=6, random_state=7, max_features=4, splitter="best")
    auto = sporf.SPORFClassifier(min_samples_leaf="auto", **kw).fit(X, y)
    k = auto.min_samples_leaf_
    assert k > 1
    grown = sporf.SPORFClassifier(min_samples_leaf=1, **kw).fit(X, y)
    Xt, _ = make_trunk(200, 6, random_state=4)
    indicator, ptr = grown.decision_path(Xt)
    expect = np.zeros((200, 2))
    for t in range(6):
        n_rows, values = _node_rows_and_values(grown, X, y, t)
        path = indicator[:, ptr[t]:ptr[t + 1]].toarray().astype(bool)
        for i in range(200):
            nodes = np.flatnonzero(path[i])  # preorder: deeper nodes come later
            deep = nodes[n_rows[nodes] >= k][-1]
            expect[i] += values[deep]
    np.testing.assert_allclose(auto.predict_proba(Xt), expect / 6, rtol=0, atol=1e-12)


def test_what_the_choice_needs_is_named():
    X, y = make_trunk(100, 4, random_state=0)
    with pytest.raises(ValueError, match="it needs a response"):
        sporf.URerF(n_estimators=4, min_samples_leaf="auto").fit(X)
    with pytest.raises(ValueError, match='min_samples_leaf must be a count .* or "auto"'):
        sporf.SPORFClassifier(min_samples_leaf="best").fit(X, y)
    with pytest.raises(ValueError, match='min_samples_leaf must be a count .* or "auto"'):
        sporf.SPORFClassifier(min_samples_leaf=_params.ChosenLeafSize(0)).fit(X, y)


def test_without_rows_out_of_bag_the_trees_grow_to_leaves_of_one_row():
    X, y = make_trunk(300, 6, random_state=0)
    auto = sporf.SPORFClassifier(n_estimators=6, min_samples_leaf="auto", bootstrap=False, random_state=0).fit(X, y)
    ones = sporf.SPORFClassifier(n_estimators=6, min_samples_leaf=1, bootstrap=False, random_state=0).fit(X, y)
    assert auto.min_samples_leaf_ == 1 and all(np.isnan(s) for s in auto.leaf_scores_.values())
    np.testing.assert_array_equal(auto.predict_proba(X), ones.predict_proba(X))


def test_warm_start_prunes_the_new_trees_to_the_size_chosen():
    X, y = make_trunk(300, 6, random_state=0)
    kw = dict(min_samples_leaf="auto", splitter="best", random_state=0)
    est = sporf.SPORFClassifier(n_estimators=6, warm_start=True, **kw).fit(X, y)
    first, k = est.predict_proba(X), est.min_samples_leaf_
    scores = dict(est.leaf_scores_)
    est.set_params(n_estimators=12).fit(X, y)
    assert est.min_samples_leaf_ == k and est.leaf_scores_ == scores
    # trees 6..11 grown to leaves of one row and pruned to k, unscored
    more = sporf.SPORFClassifier(n_estimators=6, first_tree=6, min_samples_leaf=_params.ChosenLeafSize(k),
                                 random_state=0).fit(X, y)
    assert more.min_samples_leaf_ == k and all(np.isnan(s) for s in more.leaf_scores_.values())
    np.testing.assert_allclose(est.predict_proba(X), (6 * first + 6 * more.predict_proba(X)) / 12, atol=1e-12)
    joined = sporf.merge_forests([sporf.SPORFClassifier(n_estimators=6, **kw).fit(X, y), more])
    assert joined.to_bytes() == est.to_bytes() and joined.min_samples_leaf_ == k
    # forests that chose differently are not shards of one forest
    other = sporf.SPORFClassifier(n_estimators=6, first_tree=6, min_samples_leaf=_params.ChosenLeafSize(k + 1),
                                  random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="chose different leaf sizes out of bag"):
        sporf.merge_forests([est.set_params(n_estimators=6), other])
    # a forest without the choice has no report of one
    plain = sporf.SPORFClassifier(n_estimators=4, min_samples_leaf=3, random_state=0).fit(X, y)
    assert not hasattr(plain, "min_samples_leaf_") and not hasattr(plain, "leaf_scores_")


@pytest.mark.parametrize("cls", [sporf.SPORFClassifier, sporf.SPORFRegressor])
def test_a_tuned_forest_is_its_winner_s_single_fit(cls):
    # each round of a candidate keeps its out-of-bag sums; the winner chooses
    # from all its trees' sums, as the single fit of its parameters does
    X, y = make_trunk(300, 6, random_state=0)
    if cls is sporf.SPORFRegressor:
        y = X[:, 0] + np.random.default_rng(0).normal(size=len(y))
    est = cls(n_estimators=16, min_samples_leaf="auto", tune_oob=True, random_state=0).fit(X, y)
    whole = cls(n_estimators=16, random_state=0, **dict(est.best_params_, min_samples_leaf="auto")).fit(X, y)
    assert est.to_bytes() == whole.to_bytes()
    assert est.min_samples_leaf_ == whole.min_samples_leaf_ and est.leaf_scores_ == whole.leaf_scores_


def test_quantile_forests_collect_their_leaves_after_the_pruning():
    # the pruned trees' leaves hold the rows that reach them: the mean
    # prediction is the forest's without quantiles, and intervals cover
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(1500, 4))
    y = X[:, 0] + (1 + np.abs(X[:, 0])) * rng.normal(size=1500)
    kw = dict(min_samples_leaf="auto", random_state=3, n_jobs=2)
    q = sporf.SPORFRegressor(quantiles=True, **kw).fit(X[:1000], y[:1000])
    plain = sporf.SPORFRegressor(**kw).fit(X[:1000], y[:1000])
    assert q.min_samples_leaf_ == plain.min_samples_leaf_ > 1
    np.testing.assert_array_equal(q.predict(X[1000:]), plain.predict(X[1000:]))
    lo, hi = q.predict(X[1000:], quantiles=[0.1, 0.9]).T
    cover = np.mean((y[1000:] >= lo) & (y[1000:] <= hi))
    assert 0.65 < cover < 0.95, cover
    assert np.all(np.isfinite(q.predict(X[:1000], quantiles=0.5, oob=True)))


def test_several_outputs_choose_by_their_summed_scores():
    # a forest of two outputs scores each size by the sum of the outputs' scores
    X, y = make_friedman1(800, 10, noise=4.0, random_state=1)
    Y = np.c_[(y > np.median(y)).astype(int), (X[:, 1] > 0.5).astype(int)]
    two = sporf.SPORFClassifier(min_samples_leaf="auto", random_state=2, n_jobs=2).fit(X, Y)
    assert two.min_samples_leaf_ in CLASSIFIER_SIZES and two.n_outputs_ == 2
    assert all(np.isfinite(s) and s > 0.0 for s in two.leaf_scores_.values())
    grown = sporf.SPORFClassifier(min_samples_leaf=1, random_state=2, n_jobs=2).fit(X, Y)
    assert two._forest.info().n_nodes <= grown._forest.info().n_nodes
    R = np.c_[y, X[:, 0] * 10]
    reg = sporf.SPORFRegressor(min_samples_leaf="auto", random_state=2).fit(X, R)
    assert reg.predict(X).shape == (800, 2) and reg.min_samples_leaf_ in SIZES


@pytest.mark.parametrize("quantiles", [False, True])
def test_honest_trees_choose_from_their_estimation_rows(quantiles):
    # an honest tree's nodes hold the estimation rows' values and counts; the
    # pruned forest answers as a forest grown honestly at that leaf size would
    rng = np.random.RandomState(1)
    X = rng.uniform(-2, 2, size=(1200, 4))
    y = X[:, 0] + (1 + np.abs(X[:, 0])) * rng.normal(size=1200)
    kw = dict(min_samples_leaf="auto", honest_fraction=0.5, quantiles=quantiles, random_state=4, n_jobs=2)
    est = sporf.SPORFRegressor(**kw).fit(X[:800], y[:800])
    assert est.min_samples_leaf_ > 1
    assert est.to_bytes() == sporf.SPORFRegressor(**dict(kw, n_jobs=1)).fit(X[:800], y[:800]).to_bytes()
    mse = np.mean((est.predict(X[800:]) - X[800:, 0]) ** 2)
    assert mse < 0.3, mse
    if quantiles:
        lo, hi = est.predict(X[800:], quantiles=[0.1, 0.9]).T
        assert 0.6 < np.mean((y[800:] >= lo) & (y[800:] <= hi)) < 0.97


# ---- the choice from sums that add up: shards leave it to the merge ----

def _survival_y(X, seed=0):
    rng = np.random.default_rng(seed)
    y = np.zeros(len(X), dtype=[("event", "?"), ("time", "f8")])
    y["time"] = np.round(np.exp(X[:, 0] + rng.normal(size=len(X))), 2)
    y["event"] = rng.random(len(X)) < 0.7
    return y


def _kinds():
    X, y = make_trunk(700, 6, random_state=3)
    rng = np.random.default_rng(3)
    yr = X[:, 0] + 1.5 * rng.normal(size=len(y))
    w = 0.5 + (np.arange(len(y)) % 3)
    return [
        ("classifier", sporf.SPORFClassifier, {}, X, y, None),
        ("weighted", sporf.SPORFClassifier, {}, X, y, w),
        ("honest", sporf.SPORFClassifier, dict(honest_fraction=0.3), X, y, None),
        ("subsample", sporf.SPORFClassifier, dict(bootstrap=False, max_samples=0.6), X, y, None),
        ("regressor", sporf.SPORFRegressor, {}, X, yr, w),
        ("quantiles", sporf.SPORFRegressor, dict(quantiles=True), X, yr, None),
        ("two outputs", sporf.SPORFClassifier, {}, X, np.c_[y, (X[:, 1] > 0).astype(int)], None),
        ("two responses", sporf.SPORFRegressor, {}, X, np.c_[yr, 3 * X[:, 2]], None),
        ("survival", sporf.SPORFSurvival, dict(min_samples_leaf="auto"), X, _survival_y(X), None),
    ]


@pytest.mark.parametrize("name, cls, kw, X, y, w", _kinds(), ids=[k[0] for k in _kinds()])
def test_shards_leave_the_choice_to_the_merge_and_make_the_single_fit(name, cls, kw, X, y, w):
    whole = cls(n_estimators=12, random_state=7, n_jobs=2, **kw).fit(X, y, sample_weight=w)
    assert whole.min_samples_leaf_ in SIZES
    shards = [cls(n_estimators=m, first_tree=a, random_state=7, **kw).fit(X, y, sample_weight=w)
              for a, m in [(5, 7), (0, 2), (2, 3)]]
    for s in shards:  # a shard has not chosen: its trees are as grown and it keeps its sums
        assert not hasattr(s, "min_samples_leaf_")
        assert s._forest.leaf_state()[0] == _native.LEAF_PENDING_SUMS
        assert s._forest.info().format_version == 14
    merged = sporf.merge_forests(shards)
    assert merged.to_bytes() == whole.to_bytes()
    assert merged.min_samples_leaf_ == whole.min_samples_leaf_ and merged.leaf_scores_ == whole.leaf_scores_
    # through model files and pickles, in another grouping
    import pickle
    again = sporf.merge_forests([sporf.load(shards[0].to_bytes()), pickle.loads(pickle.dumps(shards[1])),
                                 shards[2]])
    assert again.to_bytes() == whole.to_bytes()


def test_a_shard_predicts_with_its_trees_as_grown():
    X, y = make_trunk(300, 6, random_state=0)
    shard = sporf.SPORFClassifier(n_estimators=4, first_tree=0, splitter="best", random_state=2).fit(X, y)
    grown = sporf.SPORFClassifier(n_estimators=4, min_samples_leaf=1, splitter="best", random_state=2).fit(X, y)
    np.testing.assert_array_equal(shard.apply(X), grown.apply(X))
    np.testing.assert_array_equal(shard.predict_proba(X), grown.predict_proba(X))
    # a fixed leaf size: a shard is those trees of the whole forest, as always
    fixed = sporf.SPORFClassifier(n_estimators=4, first_tree=0, min_samples_leaf=3, random_state=2).fit(X, y)
    assert fixed.to_bytes() == sporf.SPORFClassifier(n_estimators=4, min_samples_leaf=3,
                                                     random_state=2).fit(X, y).to_bytes()


def test_shards_of_other_data_or_mixed_choices_are_refused():
    X, y = make_trunk(300, 6, random_state=0)
    a = sporf.SPORFClassifier(n_estimators=3, first_tree=0, random_state=1).fit(X, y)
    b = sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1).fit(X, 1 - y)
    with pytest.raises(ValueError, match="grown on different training data"):
        sporf.merge_forests([a, b])
    c = sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1).fit(X[:200], y[:200])
    with pytest.raises(ValueError, match="different training data"):
        sporf.merge_forests([a, c])


def test_a_corrupt_shard_file_is_refused():
    X, y = make_trunk(200, 4, random_state=0)
    data = bytearray(sporf.SPORFClassifier(n_estimators=2, first_tree=0, random_state=1).fit(X, y).to_bytes())
    with pytest.raises(ValueError, match="truncated"):
        sporf.load(bytes(data[:-40]))
    data[-100] ^= 0x40  # inside the rows' sums and response
    with pytest.raises(ValueError, match="checksum"):
        sporf.load(bytes(data))
