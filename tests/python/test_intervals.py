"""Calibrated prediction intervals of quantile forests (predict_interval,
calibrate_intervals): the conformal rule against a direct computation, the
coverage it buys on heteroscedastic data, determinism, what survives pickling
and the model file, and bad input."""
import math
import pickle

import numpy as np
import pytest

import sporf
from sporf import MORFRegressor, SPORFClassifier, SPORFRegressor


def heteroscedastic(n, seed):
    # y = x + (1 + |x|) e with three noise features
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 4))
    return X, X[:, 0] + (1 + np.abs(X[:, 0])) * rng.standard_normal(n)


@pytest.fixture(scope="module")
def fitted():
    X, y = heteroscedastic(1500, 0)
    return SPORFRegressor(n_estimators=60, quantiles=True, random_state=0, n_jobs=2).fit(X, y), X, y


def levels_from(scores, coverage):
    """The conformal rule written out: the ceil(c (n + 1))-th smallest score."""
    kept = np.sort(scores[~np.isnan(scores)])
    k = math.ceil(coverage * (len(kept) + 1) - 1e-9)
    q = 0.5 if k > len(kept) else kept[k - 1]
    return [max(0.0, 0.5 - q - 1e-9), min(1.0, 0.5 + q + 1e-9)]


def test_interval_is_the_quantiles_at_the_conformal_levels(fitted):
    model, X, _ = fitted
    Xq, _ = heteroscedastic(200, 1)
    assert model.interval_calibration_ == "out-of-bag"
    assert model.interval_scores_.shape == (len(X),)
    for coverage in (0.5, 0.8, 0.9, 0.95):
        expected = model.predict(Xq, quantiles=levels_from(model.interval_scores_, coverage))
        np.testing.assert_array_equal(model.predict_interval(Xq, coverage), expected)
    raw = model.predict_interval(Xq, 0.8, calibrated=False)
    np.testing.assert_array_equal(raw, model.predict(Xq, quantiles=[0.1, 0.9]))


def test_scores_are_the_tails_of_each_rows_own_distribution(fitted):
    # a row's out-of-bag score, recomputed from out-of-bag quantiles: its
    # response lies in [Q(1/2 - s), Q(1/2 + s)] for levels just above its score
    # and outside for levels just below
    model, X, y = fitted
    s = model.interval_scores_
    rows = np.flatnonzero(np.abs(s) < 0.45)[:15]
    for i in rows:
        up = model.predict(X, quantiles=[0.5 - s[i] - 1e-7, 0.5 + s[i] + 1e-7], oob=True)[i]
        assert up[0] <= y[i] <= up[1]
        if s[i] > 1e-3:
            down = model.predict(X, quantiles=[0.5 - s[i] + 1e-6, 0.5 + s[i] - 1e-6], oob=True)[i]
            assert not (down[0] <= y[i] <= down[1])


def test_held_out_rows_are_covered_exactly_by_their_scores(fitted):
    # split conformal: calibrated on rows, the interval holds each of those
    # rows exactly when its score is at most the chosen one, so at least
    # ceil(c (n + 1)) of the n rows
    model, _, _ = fitted
    Xc, yc = heteroscedastic(301, 7)
    model = pickle.loads(pickle.dumps(model)).calibrate_intervals(Xc, yc)
    assert model.interval_calibration_ == "held-out"
    for coverage in (0.8, 0.9):
        iv = model.predict_interval(Xc, coverage)
        covered = (iv[:, 0] <= yc) & (yc <= iv[:, 1])
        q = np.sort(model.interval_scores_)[math.ceil(coverage * 302) - 1]
        np.testing.assert_array_equal(covered, model.interval_scores_ <= q)
        assert covered.sum() >= math.ceil(coverage * 302)


@pytest.mark.parametrize("splitter", ["best", "auto"])
def test_calibration_mends_the_quantile_forests_undercoverage(splitter):
    # out of sample on the heteroscedastic simulation: Meinshausen's 10-90%
    # interval (best cuts on bootstraps) holds about 0.78 of new rows; the
    # calibrated one about 0.80, whichever trees the defaults keep
    X, y = heteroscedastic(3000, 3)
    Xt, yt = heteroscedastic(20000, 4)
    model = SPORFRegressor(n_estimators=60, quantiles=True, splitter=splitter, random_state=3, n_jobs=2).fit(X, y)
    for coverage in (0.8, 0.9):
        raw = model.predict_interval(Xt, coverage, calibrated=False)
        cal = model.predict_interval(Xt, coverage)
        hit_raw = np.mean((raw[:, 0] <= yt) & (yt <= raw[:, 1]))
        hit_cal = np.mean((cal[:, 0] <= yt) & (yt <= cal[:, 1]))
        if splitter == "best":
            assert hit_raw < coverage - 0.01
            assert abs(hit_cal - coverage) < 0.02, (coverage, hit_cal)
        else:  # calibrated on rows left out of fewer trees (R's test-intervals.R): on the safe side
            assert -0.01 < hit_cal - coverage < 0.03, (coverage, hit_cal)
        # the interval keeps the forest's shape: wider where the noise is
        width = cal[:, 1] - cal[:, 0]
        assert width[np.abs(Xt[:, 0]) > 2].mean() > 1.8 * width[np.abs(Xt[:, 0]) < 0.5].mean()


def test_scores_and_intervals_do_not_depend_on_threads(fitted):
    model, X, y = fitted
    other = SPORFRegressor(n_estimators=60, quantiles=True, random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(other.interval_scores_, model.interval_scores_)
    np.testing.assert_array_equal(other.predict_interval(X[:50], 0.9), model.predict_interval(X[:50], 0.9))


def test_warm_start_and_subsampling_keep_out_of_bag_scores():
    X, y = heteroscedastic(400, 5)
    # best cuts: a forest grown in steps keeps the first fit's choice of trees, made on 10 trees
    once = SPORFRegressor(n_estimators=20, quantiles=True, splitter="best", random_state=2).fit(X, y)
    grown = SPORFRegressor(n_estimators=10, quantiles=True, splitter="best", random_state=2,
                           warm_start=True).fit(X, y)
    grown.set_params(n_estimators=20).fit(X, y)
    np.testing.assert_array_equal(grown.interval_scores_, once.interval_scores_)
    sub = SPORFRegressor(n_estimators=20, quantiles=True, bootstrap=False, max_samples=0.6, random_state=2).fit(X, y)
    assert sub.interval_calibration_ == "out-of-bag" and np.isfinite(sub.interval_scores_).all()
    patches = MORFRegressor(n_estimators=10, quantiles=True, data_dims=[2, 2], random_state=2).fit(X, y)
    assert patches.predict_interval(X[:5], 0.8).shape == (5, 2)


def test_forests_without_calibration_say_what_to_do(tmp_path):
    X, y = heteroscedastic(300, 6)
    whole = SPORFRegressor(n_estimators=10, quantiles=True, bootstrap=False, random_state=0).fit(X, y)
    assert not hasattr(whole, "interval_scores_")
    with pytest.raises(ValueError, match="calibrate_intervals"):
        whole.predict_interval(X[:3])
    assert whole.predict_interval(X[:3], calibrated=False).shape == (3, 2)
    whole.calibrate_intervals(X[:100], y[:100])
    assert whole.predict_interval(X[:3]).shape == (3, 2)
    # a model file keeps the trees, not the out-of-bag results
    fitted_model = SPORFRegressor(n_estimators=10, quantiles=True, random_state=0).fit(X, y)
    fitted_model.save(tmp_path / "m.sporf")
    loaded = sporf.load(tmp_path / "m.sporf")
    with pytest.raises(ValueError, match="read from a file"):
        loaded.predict_interval(X[:3])
    np.testing.assert_array_equal(loaded.predict_interval(X[:3], calibrated=False),
                                  fitted_model.predict_interval(X[:3], calibrated=False))
    # pickling keeps them
    again = pickle.loads(pickle.dumps(fitted_model))
    np.testing.assert_array_equal(again.predict_interval(X[:3]), fitted_model.predict_interval(X[:3]))


@pytest.mark.parametrize("coverage", [0.0, 1.0, -0.2, 1.5, float("nan"), "0.9", True, None])
def test_bad_coverage_is_refused(fitted, coverage):
    model, X, _ = fitted
    with pytest.raises(ValueError, match="coverage"):
        model.predict_interval(X[:2], coverage)


def test_bad_calibration_input_is_refused(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="calibrated"):
        model.predict_interval(X[:2], 0.9, calibrated="yes")
    with pytest.raises(ValueError, match="one value per row"):
        model.calibrate_intervals(X[:10], y[:9])
    with pytest.raises(ValueError, match="not a finite number"):
        model.calibrate_intervals(X[:3], [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="numeric"):
        model.calibrate_intervals(X[:2], ["a", "b"])
    with pytest.raises(ValueError, match="features"):
        model.calibrate_intervals(X[:3, :2], y[:3])
    plain = SPORFRegressor(n_estimators=5, random_state=0).fit(X, y)
    for call in (lambda: plain.predict_interval(X[:2]), lambda: plain.calibrate_intervals(X[:3], y[:3])):
        with pytest.raises(ValueError, match="quantiles=True"):
            call()
    assert not hasattr(SPORFClassifier(), "predict_interval")


def test_responses_in_a_misaligned_buffer_give_the_same_scores(fitted):
    """Arrays a Dask worker unpickles can sit at any byte offset; the binding
    hands the core aligned copies (the sanitizer run reads every double)."""
    model, X, y = fitted
    raw = np.zeros(8 * 300 + 1, dtype=np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=np.float64, count=300, offset=1)
    misaligned[:] = y[:300]
    assert not misaligned.flags.aligned
    aligned = model.calibrate_intervals(X[:300], y[:300]).interval_scores_.copy()
    np.testing.assert_array_equal(model.calibrate_intervals(X[:300], misaligned).interval_scores_, aligned)
