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
    err = median_error(make_sparse_parity, 1000, 20,
                       lambda s: sporf.SPORFClassifier(max_features=400, random_state=s, n_jobs=2))
    assert err <= 0.22, err


def test_axis_mode_matches_random_forest_on_orthant():
    ours = median_error(make_orthant, 400, 6,
                        lambda s: sporf.SPORFClassifier(projection="axis", random_state=s))
    rf = median_error(make_orthant, 400, 6, lambda s: RandomForestClassifier(random_state=s))
    assert ours <= rf + 0.015, (ours, rf)
