"""Calibrated intervals of survival forests' event times (predict_interval,
calibrate_intervals): the weighted conformal rule against a direct
computation, the coverage of new rows' true event times on a simulation,
determinism, warm start, what survives pickling and the model file, and bad
input."""
import pickle

import numpy as np
import pytest

import sporf
from sporf import MORFSurvival, SPORFSurvival


def simulate(n, seed, censor_scale=3.0):
    """Exponential times of hazard exp(x0), censored by an independent
    exponential: the rows, their observed (event, time) and the true times."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = rng.exponential(np.exp(-X[:, 0]))
    c = rng.exponential(censor_scale, size=n)
    y = np.zeros(n, dtype=[("event", "?"), ("time", "<f8")])
    y["event"], y["time"] = t <= c, np.minimum(t, c)
    return X, y, t


@pytest.fixture(scope="module")
def fitted():
    X, y, t = simulate(1200, 0)
    return SPORFSurvival(n_estimators=120, random_state=0, n_jobs=2).fit(X, y), X, y, t


def censoring_weights(event, time):
    """1 / G(T-) for event rows (0 for censored), G the Kaplan-Meier curve of
    the censoring times, censorings tied with events coming after them."""
    G, w = 1.0, np.zeros(len(time))
    for s in np.unique(time):
        at = time == s
        w[at & event] = 1.0 / G
        G *= 1.0 - np.sum(at & ~event) / np.sum(time >= s)
    return w


def test_scores_and_weights_follow_their_definitions(fitted):
    model, X, y, _ = fitted
    event, time = y["event"], y["time"]
    scores, weights = model.interval_scores_, model.interval_weights_
    assert model.interval_calibration_ == "out-of-bag"
    assert np.all(np.isnan(scores[~event])) and np.all(weights[~event] == 0)
    scored = event & ~np.isnan(scores)
    np.testing.assert_allclose(weights[scored], censoring_weights(event, time)[scored], rtol=1e-12)
    # an event row's score: how far into a tail of its out-of-bag curve its time lies
    S_at = model.predict_survival_function(X, return_array=True, times=time, oob=True)[np.arange(len(X)),
                                                                                    np.arange(len(X))]
    before = np.nextafter(time, -np.inf)
    S_before = model.predict_survival_function(X, return_array=True, times=before, oob=True)[np.arange(len(X)),
                                                                                           np.arange(len(X))]
    want = np.maximum(0.5 - (1 - S_at), (1 - S_before) - 0.5)
    np.testing.assert_allclose(scores[scored], want[scored], atol=1e-12)


def test_interval_ends_are_where_each_curve_crosses_the_weighted_levels(fitted):
    model, X, _, _ = fitted
    scores, weights = model.interval_scores_, model.interval_weights_
    keep = weights > 0
    s, w = scores[keep], weights[keep]
    order = np.argsort(s, kind="stable")
    s, w = s[order], w[order]
    target = 0.8 * (w.sum() + w.mean()) * (1 - 1e-12)
    q = s[np.searchsorted(np.cumsum(w), target)]
    lo_level, hi_level = 0.5 - q - 1e-9, 0.5 + q + 1e-9
    times = model.event_times_
    S = model.predict_survival_function(X[:40], return_array=True, times=times)
    iv = model.predict_interval(X[:40], coverage=0.8)
    for i in range(40):
        F = 1 - S[i]
        lo = times[np.argmax(F >= lo_level)] if np.any(F >= lo_level) else times[-1]
        hi = times[np.argmax(F >= hi_level)] if np.any(F >= hi_level) else np.inf
        np.testing.assert_allclose(iv[i], [lo, hi], rtol=1e-12)


@pytest.mark.parametrize("censor_scale", [3.0, 1.0], ids=["28% censored", "50% censored"])
@pytest.mark.parametrize("coverage", [0.8, 0.9])
def test_calibrated_intervals_cover_new_rows_true_event_times(coverage, censor_scale):
    # averaged over three fits, out of bag and held out. At half the rows
    # censored, the event rows' scores alone (unweighted) would cover 0.857
    # and 0.938: long times are censored more often
    got, held = [], []
    for seed in range(3):
        X, y, t = simulate(3000, 10 + seed, censor_scale)
        model = SPORFSurvival(n_estimators=100, random_state=seed, n_jobs=2).fit(X[:1500], y[:1500])
        iv = model.predict_interval(X[2000:], coverage)
        got.append(np.mean((iv[:, 0] <= t[2000:]) & (t[2000:] <= iv[:, 1])))
        model.calibrate_intervals(X[1500:2000], y[1500:2000])
        iv = model.predict_interval(X[2000:], coverage)
        held.append(np.mean((iv[:, 0] <= t[2000:]) & (t[2000:] <= iv[:, 1])))
    assert abs(np.mean(got) - coverage) < 0.03, got
    assert abs(np.mean(held) - coverage) < 0.035, held


def test_intervals_do_not_depend_on_threads_and_warm_start_keeps_them(fitted):
    model, X, y, _ = fitted
    one = SPORFSurvival(n_estimators=120, random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(one.interval_scores_, model.interval_scores_)
    np.testing.assert_array_equal(one.interval_weights_, model.interval_weights_)
    np.testing.assert_array_equal(one.predict_interval(X[:60], 0.9), model.predict_interval(X[:60], 0.9))
    grown = SPORFSurvival(n_estimators=60, random_state=0, warm_start=True).fit(X, y)
    grown.set_params(n_estimators=120).fit(X, y)
    np.testing.assert_array_equal(grown.interval_scores_, model.interval_scores_)
    patches = MORFSurvival(n_estimators=10, data_dims=[3], random_state=0).fit(X, y)
    iv = patches.predict_interval(X[:5], 0.8)
    assert iv.shape == (5, 2) and np.all(iv[:, 0] <= iv[:, 1])


def test_forests_without_calibration_say_what_to_do(tmp_path):
    X, y, _ = simulate(300, 3)
    whole = SPORFSurvival(n_estimators=10, bootstrap=False, random_state=0).fit(X, y)
    assert not hasattr(whole, "interval_scores_")
    with pytest.raises(ValueError, match="calibrate_intervals"):
        whole.predict_interval(X[:3])
    whole.calibrate_intervals(X[:150], y[:150])
    assert whole.interval_calibration_ == "held-out" and whole.predict_interval(X[:3]).shape == (3, 2)
    model = SPORFSurvival(n_estimators=10, random_state=0).fit(X, y)
    model.save(tmp_path / "m.sporf")
    loaded = sporf.load(tmp_path / "m.sporf")
    with pytest.raises(ValueError, match="read from a file"):
        loaded.predict_interval(X[:3])
    np.testing.assert_array_equal(loaded.predict_interval(X[:3], calibrated=False),
                                  model.predict_interval(X[:3], calibrated=False))
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_interval(X[:3]), model.predict_interval(X[:3]))


def test_bad_input_is_refused(fitted):
    model, X, y, _ = fitted
    for coverage in (0.0, 1.0, "0.9", True, float("nan")):
        with pytest.raises(ValueError, match="coverage"):
            model.predict_interval(X[:2], coverage)
    with pytest.raises(ValueError, match="calibrated"):
        model.predict_interval(X[:2], 0.9, calibrated="yes")
    with pytest.raises(ValueError, match="y has 9 rows but X has 10"):
        model.calibrate_intervals(X[:10], y[:9])
    censored = y[:20].copy()
    censored["event"] = False
    with pytest.raises(ValueError, match="no calibration row has an event"):
        model.calibrate_intervals(X[:20], censored)
    with pytest.raises(ValueError, match="survival times must be finite"):
        model.calibrate_intervals(X[:2], ([True, True], [1.0, -1.0]))
    with pytest.raises(ValueError, match="features"):
        model.calibrate_intervals(X[:3, :2], y[:3])
