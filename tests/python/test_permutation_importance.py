"""Out-of-bag permutation importance (importance="permutation"): it finds the
informative features, is the same for any thread count and for a forest
grown in steps, and refuses what it cannot do."""
import numpy as np
import pytest

import sporf

INFORMATIVE = [0, 1, 2, 3, 4]


def five_of_twenty_five(n=2000, seed=0, regression=False):
    # two binary signals and three continuous ones among 20 continuous noise
    # features: the impurity importance favours features with many values
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 25))
    X[:, 0] = rng.integers(0, 2, n)
    X[:, 1] = rng.integers(0, 2, n)
    signal = 1.5 * X[:, 0] + 1.5 * X[:, 1] + X[:, 2] + X[:, 3] + X[:, 4]
    if regression:
        return X, signal + rng.normal(size=n)
    return X, (signal + rng.logistic(size=n) > 1.5).astype(int)


@pytest.mark.parametrize("estimator", [sporf.SPORFClassifier, sporf.SPORFRegressor, sporf.MORFClassifier])
def test_the_top_five_are_the_informative_features(estimator):
    regression = estimator is sporf.SPORFRegressor
    X, y = five_of_twenty_five(regression=regression)
    est = estimator(n_estimators=100, random_state=0, importance="permutation").fit(X, y)
    imp = est.permutation_importances_
    assert imp.shape == (25,) and est.permutation_importances_std_.shape == (25,)
    assert sorted(np.argsort(-imp)[:5]) == INFORMATIVE
    # the noise features' importances are about 0, the signals' clearly not
    assert np.abs(imp[5:]).max() < imp[INFORMATIVE].min() / 3
    assert (est.permutation_importances_std_ >= 0).all()


def test_the_same_for_any_thread_count_and_for_a_forest_grown_in_steps():
    X, y = five_of_twenty_five(600)
    # best cuts: a forest grown in steps keeps the first fit's choice of trees, made on 10 trees
    kw = dict(random_state=3, importance="permutation", splitter="best")
    one = sporf.SPORFClassifier(n_estimators=30, n_jobs=1, **kw).fit(X, y)
    two = sporf.SPORFClassifier(n_estimators=30, n_jobs=2, **kw).fit(X, y)
    grown = sporf.SPORFClassifier(n_estimators=10, warm_start=True, **kw).fit(X, y)
    grown.set_params(n_estimators=30).fit(X, y)
    for other in (two, grown):
        assert np.array_equal(one.permutation_importances_, other.permutation_importances_)
        assert np.array_equal(one.permutation_importances_std_, other.permutation_importances_std_)


def test_missing_values_are_walked_as_the_splits_learned():
    X, y = five_of_twenty_five(800, seed=1)
    X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
    est = sporf.SPORFClassifier(n_estimators=40, random_state=0, importance="permutation").fit(X, y)
    assert np.isfinite(est.permutation_importances_).all()
    assert set(np.argsort(-est.permutation_importances_)[:3]) <= set(INFORMATIVE)


def test_only_when_asked_and_only_with_the_bootstrap():
    X, y = five_of_twenty_five(300)
    est = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert not hasattr(est, "permutation_importances_")
    est.set_params(importance="permutation").fit(X, y)
    assert hasattr(est, "permutation_importances_")
    est.set_params(importance="impurity").fit(X, y)
    assert not hasattr(est, "permutation_importances_")
    with pytest.raises(ValueError, match="permutes the out-of-bag rows: it needs bootstrap=True, or max_samples"):
        sporf.SPORFClassifier(bootstrap=False, importance="permutation").fit(X, y)
    with pytest.raises(ValueError, match='importance must be one of "impurity", "permutation"'):
        sporf.SPORFRegressor(importance="gini").fit(X, y)
    with pytest.raises(TypeError, match="importance"):
        sporf.URerF(importance="permutation")
