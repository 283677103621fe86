"""Trees grown on a sample drawn without replacement (bootstrap=False with
max_samples, ranger's replace = FALSE, sample.fraction): each tree takes
exactly round(max_samples * n) distinct rows, the rows it leaves out are its
out-of-bag rows, and everything built on out-of-bag rows works without the
bootstrap."""
import numpy as np
import pytest

import sporf
from sporf import _native, _params
from sporf.datasets import make_trunk


def _draws(est, n, tree):
    rows, counts = _native.tree_draws(_params.build(est, 10), n, tree)
    return rows, counts


@pytest.mark.parametrize("max_samples,expect", [(0.5, 150), (0.632, 190), (299, 299), (1, 1)])
def test_each_tree_draws_that_many_distinct_rows(max_samples, expect):
    # one kind of trees (the random-cut trees of "mixed" and "auto" draw 0.8 of these: test_mixed_trees)
    est = sporf.SPORFClassifier(n_estimators=20, bootstrap=False, max_samples=max_samples, splitter="best",
                                random_state=3)
    seen = np.zeros(300)
    for t in range(20):
        rows, counts = _draws(est, 300, t)
        assert len(rows) == expect and np.all(counts == 1)
        assert np.all(np.diff(rows) > 0) and rows[0] >= 0 and rows[-1] < 300
        seen[rows] += 1
    if expect == 150:  # every row is as likely: 10 of 20 trees on average
        assert abs(seen.mean() - 10) < 1e-12 and seen.min() >= 2 and seen.max() <= 18


def test_out_of_bag_rows_are_the_rows_left_out():
    # one tree: a row's out-of-bag median is the tree's when the tree left it out, NaN when it drew it
    X, y = make_trunk(300, 10, random_state=0)
    y = X[:, 0] + y
    reg = sporf.SPORFRegressor(n_estimators=1, bootstrap=False, max_samples=0.6, quantiles=True,
                               random_state=4).fit(X, y)
    rows, _ = _draws(reg, 300, 0)
    oob = reg.predict(X, quantiles=0.5, oob=True)
    inbag = np.zeros(300, bool)
    inbag[rows] = True
    assert inbag.sum() == 180
    assert np.all(np.isnan(oob[inbag]))
    np.testing.assert_array_equal(oob[~inbag], reg.predict(X, quantiles=0.5)[~inbag])


def test_scores_importance_and_tuning_work_without_the_bootstrap():
    X, y = make_trunk(600, 10, random_state=1)
    kw = dict(n_estimators=40, bootstrap=False, max_samples=0.7, splitter="random", random_state=2)
    one = sporf.SPORFClassifier(oob_score=True, importance="permutation", n_jobs=1, **kw).fit(X, y)
    two = sporf.SPORFClassifier(oob_score=True, importance="permutation", n_jobs=2, **kw).fit(X, y)
    assert one.to_bytes() == two.to_bytes()
    assert 0.85 < one.oob_score_ <= 1.0 and one.oob_score_ == two.oob_score_
    np.testing.assert_array_equal(one.permutation_importances_, two.permutation_importances_)
    # the trunk's signal sits in its first features: they matter most
    assert np.argmax(one.permutation_importances_) < 3
    tuned = sporf.SPORFClassifier(tune_oob=True, **kw).fit(X, y)
    assert tuned.tuning_ is not None and set(tuned.best_params_) >= {"max_features"}


def test_a_subsample_is_not_the_whole_data():
    # all the rows (the default) draws nothing and leaves nothing out of bag
    X, y = make_trunk(200, 10, random_state=0)
    full = sporf.SPORFClassifier(n_estimators=5, bootstrap=False, random_state=0).fit(X, y)
    half = sporf.SPORFClassifier(n_estimators=5, bootstrap=False, max_samples=0.5, random_state=0).fit(X, y)
    assert full.to_bytes() != half.to_bytes()
    with pytest.raises(ValueError, match="out-of-bag estimation"):
        sporf.SPORFClassifier(n_estimators=5, bootstrap=False, oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="max_samples"):
        sporf.SPORFClassifier(n_estimators=5, bootstrap=False, max_samples=201).fit(X, y)
