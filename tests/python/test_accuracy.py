"""Accuracy on the SPORF paper's simulations (Tomita et al. 2020, §4.2):
100 trees, 10,000 test points, median over 3 seeds."""
import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk


def median_error(make, n_train, n_features, model, seeds=(0, 1, 2)):
    errors = []
    for s in seeds:
        X, y = make(n_train, n_features, random_state=s)
        Xt, yt = make(10_000, n_features, random_state=1000 + s)
        errors.append(np.mean(model(s).fit(X, y).predict(Xt) != yt))
    return float(np.median(errors))


def test_orthant_oblique_does_not_lose_where_axis_splits_are_optimal():
    err = median_error(make_orthant, 400, 6, lambda s: sporf.SPORFClassifier(random_state=s))
    assert err <= 0.08, err


def test_trunk_oblique_beats_axis_aligned():
    sparse = median_error(make_trunk, 1000, 100, lambda s: sporf.SPORFClassifier(random_state=s))
    rf = median_error(make_trunk, 1000, 100, lambda s: RandomForestClassifier(random_state=s))
    assert sparse < rf, (sparse, rf)
    assert sparse <= 0.031, sparse


def test_sparse_parity_with_p_squared_projections():
    # The paper's SPORF: sparse projections only. The default single-feature
    # search (axis_features) wins nodes greedily on parity, where no single
    # feature carries signal, and costs about 0.025 here (benchmarks/notes/papers.md).
    err = median_error(make_sparse_parity, 1000, 20,
                       lambda s: sporf.SPORFClassifier(max_features=400, axis_features=0, random_state=s, n_jobs=2))
    assert err <= 0.22, err


def test_defaults_on_trunk_p100_reach_the_oblique_peers_error():
    """SPORF paper's trunk, p = 100, n = 1,000: 0.0286 before guided
    projections; treeple 0.024 and rerf 0.022 with their defaults."""
    err = median_error(make_trunk, 1000, 100, lambda s: sporf.SPORFClassifier(random_state=s, n_jobs=2))
    assert err <= 0.025, err


def test_regressor_defaults_beat_random_forest_on_friedman1_with_noise_features():
    """Friedman #1 with 40 noise features (n = 1,000): the regressor's defaults
    were 1.19x RF's test MSE before axis_features and guided projections."""
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import RandomForestRegressor

    ours, rf = [], []
    for s in (0, 1, 2):
        X, y = make_friedman1(1000, n_features=45, random_state=s)
        Xt, yt = make_friedman1(5000, n_features=45, random_state=100 + s)
        ours.append(np.mean((sporf.SPORFRegressor(random_state=s, n_jobs=2).fit(X, y).predict(Xt) - yt) ** 2))
        rf.append(np.mean((RandomForestRegressor(random_state=s, n_jobs=2).fit(X, y).predict(Xt) - yt) ** 2))
    assert np.median(ours) <= 0.85 * np.median(rf), (ours, rf)


def test_axis_mode_matches_random_forest_on_orthant():
    ours = median_error(make_orthant, 400, 6,
                        lambda s: sporf.SPORFClassifier(projection="axis", random_state=s))
    rf = median_error(make_orthant, 400, 6, lambda s: RandomForestClassifier(random_state=s))
    assert ours <= rf + 0.015, (ours, rf)


def test_random_thresholds_with_oblique_candidates_beat_extra_trees_on_trunk():
    """splitter="random" with bootstrap=False is ExtraTrees' rule on SPORF's
    candidates: on trunk (p = 100) the oblique candidates keep their lead
    (0.0196 here against ExtraTrees' 0.0256)."""
    from sklearn.ensemble import ExtraTreesClassifier

    ours = median_error(make_trunk, 1000, 100, lambda s: sporf.SPORFClassifier(
        splitter="random", bootstrap=False, random_state=s, n_jobs=2))
    et = median_error(make_trunk, 1000, 100, lambda s: ExtraTreesClassifier(random_state=s, n_jobs=2))
    assert ours < et, (ours, et)
    assert ours <= 0.024, ours


def test_random_thresholds_regressor_beats_extra_trees_on_friedman1():
    """Friedman #1 with 40 noise features: random thresholds on all p
    sparse projections and all p single features (2.46 median MSE here)
    against ExtraTrees (3.33), which also searches all p features."""
    from sklearn.datasets import make_friedman1
    from sklearn.ensemble import ExtraTreesRegressor

    ours, et = [], []
    for s in (0, 1, 2):
        X, y = make_friedman1(1000, n_features=45, random_state=s)
        Xt, yt = make_friedman1(5000, n_features=45, random_state=100 + s)
        model = sporf.SPORFRegressor(splitter="random", bootstrap=False, max_features=None, axis_features=None,
                                     random_state=s, n_jobs=2)
        ours.append(np.mean((model.fit(X, y).predict(Xt) - yt) ** 2))
        et.append(np.mean((ExtraTreesRegressor(random_state=s, n_jobs=2).fit(X, y).predict(Xt) - yt) ** 2))
    assert np.median(ours) <= 0.85 * np.median(et), (ours, et)
