"""Survival forests (SPORFSurvival): curves against their definition (each
tree's leaf Kaplan-Meier and Nelson-Aalen estimates, averaged), the risk as
the cumulative hazard summed over the event times, Harrell's C against its
definition and scikit-survival's, a proportional-hazards simulation learned,
scikit-learn's tools, determinism, persistence, warm start, and bad input."""
import pickle

import numpy as np
import pytest
from sklearn.inspection import permutation_importance
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import sporf
from sporf import SPORFSurvival, concordance_index

DTYPE = [("event", "?"), ("time", "<f8")]


def simulate(n, seed, p=6):
    """Hazard exp(x0 + x1 - 0.5 x2), exponential times, uniform censoring."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    eta = X[:, 0] + X[:, 1] - 0.5 * X[:, 2]
    t = rng.exponential(np.exp(-eta))
    c = rng.uniform(0, 4, n)
    y = np.array(list(zip(t <= c, np.minimum(t, c))), dtype=DTYPE)
    return X, y, eta


@pytest.fixture(scope="module")
def data():
    return simulate(500, 0)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _ = data
    return SPORFSurvival(n_estimators=60, oob_score=True, random_state=0, n_jobs=2).fit(X, y)


def test_oob_error_curve_is_one_minus_c_of_the_first_trees(fitted, data):
    """oob_error_curve_[t]: 1 - Harrell's C of the first t + 1 trees' out-of-bag
    risks (rows not yet out of bag left out); the last is 1 - oob_score_ to
    the bit, and the error falls as trees are added on a real signal."""
    X, y, _ = data
    curve = fitted.oob_error_curve_
    assert curve.shape == (60,)
    assert curve[-1] == 1.0 - fitted.oob_score_
    assert curve[1] > curve[-1] and curve[-1] < 0.35
    assert "oob_error_curve_" not in vars(SPORFSurvival(n_estimators=3, random_state=0).fit(X, y))


def brute_c(event, time, risk):
    conc = comp = 0.0
    for i in range(len(time)):
        if not event[i]:
            continue
        for j in range(len(time)):
            if time[j] > time[i] or (time[j] == time[i] and not event[j] and j != i):
                comp += 1
                conc += 1.0 if risk[i] > risk[j] else 0.5 if risk[i] == risk[j] else 0.0
    return conc / comp


def leaf_curves(times, events, grid):
    """Kaplan-Meier S and Nelson-Aalen H of one leaf's rows at the grid."""
    S = np.ones(len(grid))
    H = np.zeros(len(grid))
    for s in np.unique(times[events]):
        at_risk = np.sum(times >= s)
        h = np.sum((times == s) & events) / at_risk
        later = grid >= s
        H[later] += h
        S[later] *= 1.0 - h
    return S, H


def test_concordance_matches_its_definition_and_scikit_survival():
    rng = np.random.default_rng(1)
    time = rng.integers(0, 25, 300).astype(float)  # tied times
    event = rng.random(300) < 0.6
    risk = rng.integers(0, 12, 300).astype(float)  # tied risks
    c = concordance_index(event, time, risk)
    assert c == pytest.approx(brute_c(event, time, risk), abs=1e-12)
    metrics = pytest.importorskip("sksurv.metrics")
    assert c == pytest.approx(metrics.concordance_index_censored(event, time, risk)[0], abs=1e-12)


def test_curves_are_the_trees_leaf_estimates_averaged(data):
    X, y, _ = data
    est = SPORFSurvival(n_estimators=8, bootstrap=False, max_features=2, min_samples_leaf=15, random_state=3,
                        n_jobs=2).fit(X, y)
    grid = np.array([0.05, 0.2, 0.5, 1.0, 2.5])
    Xq = X[:20]
    S = est.predict_survival_function(Xq, return_array=True, times=grid)
    H = est.predict_cumulative_hazard_function(Xq, return_array=True, times=grid)
    leaves, leaves_q = est.apply(X), est.apply(Xq)
    S_ref = np.zeros_like(S)
    H_ref = np.zeros_like(H)
    for t in range(leaves.shape[1]):
        for i in range(len(Xq)):
            rows = leaves[:, t] == leaves_q[i, t]
            s, h = leaf_curves(y["time"][rows], y["event"][rows], grid)
            S_ref[i] += s / leaves.shape[1]
            H_ref[i] += h / leaves.shape[1]
    np.testing.assert_allclose(S, S_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(H, H_ref, rtol=1e-12, atol=1e-14)


def test_risk_is_the_hazard_summed_over_event_times(fitted, data):
    X, y, _ = data
    H = fitted.predict_cumulative_hazard_function(X[:50], return_array=True)
    assert H.shape == (50, len(fitted.unique_times_))
    np.testing.assert_allclose(H[:, fitted.is_event_time_].sum(axis=1), fitted.predict(X[:50]), rtol=1e-10)
    np.testing.assert_array_equal(fitted.unique_times_, np.unique(y["time"]))
    np.testing.assert_array_equal(fitted.event_times_, np.unique(y["time"][y["event"]]))
    S = fitted.predict_survival_function(X[:50], return_array=True)
    assert np.all(np.diff(S, axis=1) <= 0) and np.all((S >= 0) & (S <= 1))
    fns = fitted.predict_survival_function(X[:3])
    np.testing.assert_array_equal(fns[1](fitted.unique_times_), S[1])
    assert fns[0](-1.0) == 1.0


def test_learns_proportional_hazards(fitted, data):
    X, y, _ = data
    Xt, yt, eta = simulate(400, 9)
    truth = concordance_index(yt["event"], yt["time"], eta)
    c = fitted.score(Xt, yt)
    assert c > truth - 0.05, (c, truth)
    assert fitted.oob_score_ > truth - 0.07
    assert fitted.oob_score_ == concordance_index(y["event"], y["time"], fitted.oob_prediction_)
    np.testing.assert_array_equal(fitted.predict(X, oob=True), fitted.oob_prediction_)
    rmst = fitted.predict_restricted_mean(Xt, 2.0)
    assert np.all((rmst > 0) & (rmst <= 2.0))
    assert concordance_index(yt["event"], yt["time"], -rmst) > truth - 0.06


def test_restricted_mean_is_the_area_under_the_curve(fitted, data):
    X, _, _ = data
    grid = np.linspace(0, 1.5, 30001)
    S = fitted.predict_survival_function(X[:5], return_array=True, times=grid)
    area = S[:, :-1].sum(axis=1) * (grid[1] - grid[0])
    np.testing.assert_allclose(fitted.predict_restricted_mean(X[:5], 1.5), area, atol=2e-4)


def test_scikit_learn_tools(data):
    X, y, _ = data
    est = SPORFSurvival(n_estimators=20, random_state=0)
    scores = cross_val_score(est, X, y, cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all(scores > 0.65)
    grid = GridSearchCV(est, {"min_samples_leaf": [3, 15]}, cv=3).fit(X, y)
    assert grid.best_params_["min_samples_leaf"] in (3, 15)
    pipe = make_pipeline(StandardScaler(), SPORFSurvival(n_estimators=20, random_state=0)).fit(X, y)
    assert pipe.score(X, y) > 0.7
    imp = permutation_importance(est.fit(X, y), X, y, n_repeats=3, random_state=0)
    assert np.argsort(imp.importances_mean)[-1] in (0, 1)


def test_scikit_survival_metrics(fitted, data):
    metrics = pytest.importorskip("sksurv.metrics")
    X, y, _ = data
    Xt, yt, _ = simulate(300, 4)
    times = np.quantile(yt["time"][yt["event"]], [0.25, 0.5, 0.75])
    S = np.vstack([fn(times) for fn in fitted.predict_survival_function(Xt)])
    ibs = metrics.integrated_brier_score(y, yt, S, times)
    assert 0.0 < ibs < 0.25
    c_ipcw = metrics.concordance_index_ipcw(y, yt, fitted.predict(Xt))[0]
    assert c_ipcw > 0.7


def test_permutation_importance_finds_the_hazard(data):
    X, y, _ = data
    est = SPORFSurvival(n_estimators=60, importance="permutation", random_state=0, n_jobs=2).fit(X, y)
    imp = est.permutation_importances_
    assert set(np.argsort(imp)[-2:]) == {0, 1}
    assert min(imp[0], imp[1], imp[2]) > max(imp[3:])


def test_deterministic_persistent_and_warm_started(data, tmp_path):
    X, y, _ = data
    a = SPORFSurvival(n_estimators=30, random_state=5, n_jobs=1).fit(X, y)
    b = SPORFSurvival(n_estimators=30, random_state=5, n_jobs=2).fit(X, y)
    assert a.to_bytes() == b.to_bytes()
    path = tmp_path / "surv.sporf"
    a.save(path)
    c = sporf.load(path)
    assert isinstance(c, SPORFSurvival)
    np.testing.assert_array_equal(c.predict_survival_function(X[:10], return_array=True),
                                  a.predict_survival_function(X[:10], return_array=True))
    np.testing.assert_array_equal(c.unique_times_, a.unique_times_)
    d = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(d.predict(X), a.predict(X))
    warm = SPORFSurvival(n_estimators=12, random_state=5, warm_start=True).fit(X, y)
    warm.set_params(n_estimators=30).fit(X, y)
    assert warm.to_bytes() == a.to_bytes()
    # the pair form of y grows the same forest
    e = SPORFSurvival(n_estimators=30, random_state=5).fit(X, (y["event"].astype(int), y["time"]))
    assert e.to_bytes() == a.to_bytes()


def test_honest_and_weighted(data):
    X, y, _ = data
    est = SPORFSurvival(n_estimators=40, honest_fraction=0.5, min_samples_leaf=5, random_state=0).fit(X, y)
    Xt, yt, _ = simulate(300, 2)
    assert est.score(Xt, yt) > 0.7
    w = np.ones(len(y))
    w[:100] = 0.0
    a = SPORFSurvival(n_estimators=20, min_samples_leaf=5, random_state=1).fit(X, y, sample_weight=w)
    assert a.score(Xt, yt) > 0.7


@pytest.mark.parametrize("bad,match", [
    (lambda y: (y["event"], -y["time"]), "time"),
    (lambda y: (y["event"], np.where(np.arange(len(y)) == 4, np.nan, y["time"])), r"time\[4\]"),
    (lambda y: (np.zeros(len(y), bool), y["time"]), "no row has an event"),
    (lambda y: (np.where(np.arange(len(y)) == 2, 2, y["event"].astype(int)), y["time"]), r"event\[2\]"),
    (lambda y: y["time"], "structured array"),
    (lambda y: np.c_[y["event"], y["time"]], "structured array"),
    (lambda y: (y["event"][:-1], y["time"]), "one length"),
])
def test_bad_survival_data(data, bad, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=match):
        SPORFSurvival(n_estimators=5).fit(X, bad(y))


def test_other_refusals(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="2"):
        SPORFSurvival(n_estimators=5).fit(X[:1], y[:1])
    with pytest.raises(ValueError):
        SPORFSurvival(n_estimators=5).fit(X[:-1], y)
    with pytest.raises(ValueError, match="honest_prior"):
        SPORFSurvival(honest_fraction=0.5, honest_prior="empirical").fit(X, y)
    with pytest.raises(TypeError, match="ntree"):
        SPORFSurvival(ntree=10)
    est = SPORFSurvival(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="times"):
        est.predict_survival_function(X, times=[np.nan])
    with pytest.raises(ValueError, match="horizon"):
        est.predict_restricted_mean(X, -1.0)
    with pytest.raises(ValueError, match="training data"):
        est.predict(X[:10], oob=True)


def logrank_statistics(x, event, time):
    """For each cut between distinct sorted values of x: the log-rank
    statistic (numerator squared over the hypergeometric variance) and its
    score form (the numerator squared over the residuals' permutation
    variance, up to a factor common to the node), by their definitions."""
    order = np.argsort(x, kind="stable")
    x, event, time = x[order], event[order], time[order]
    n = len(x)
    out = []
    uniq = np.unique(time[event == 1])
    H = np.array([np.sum([np.sum((time == s) & (event == 1)) / np.sum(time >= s) for s in uniq if s <= t])
                  for t in time])
    resid = event - H
    for k in range(1, n):
        if x[k] == x[k - 1]:
            continue
        left = np.arange(n) < k
        U = V = 0.0
        for s in uniq:
            Y, d = np.sum(time >= s), np.sum((time == s) & (event == 1))
            Yl, dl = np.sum((time >= s) & left), np.sum((time == s) & (event == 1) & left)
            U += dl - Yl * d / Y
            if Y > 1:
                V += d * (Y - d) / (Y - 1) * (Yl / Y) * (1 - Yl / Y)
        score = resid[left].sum() ** 2 * n / (k * (n - k))
        out.append(((x[k - 1] + x[k]) / 2, U * U / V if V > 0 else 0.0, score))
        assert abs(U - resid[left].sum()) < 1e-9  # the numerator is the residuals' sum
    return out


@pytest.mark.parametrize("criterion,column", [("logrank", 1), ("logrankscore", 2)])
def test_a_stump_cuts_where_its_criterion_peaks(criterion, column):
    rng = np.random.default_rng(5)
    x = rng.normal(size=80)
    t = rng.exponential(np.exp(-np.where(x > 0.3, 1.0, 0.0)))
    c = rng.uniform(0, 2, 80)
    event, time = (t <= c).astype(int), np.minimum(t, c)
    stump = SPORFSurvival(n_estimators=1, criterion=criterion, max_depth=1, bootstrap=False, projection="axis",
                          max_features=1, axis_features=0, guided_features=0, max_bins=0, min_samples_leaf=1,
                          random_state=0).fit(x[:, None], (event, time))
    stats = logrank_statistics(x, event, time)
    best = max(stats, key=lambda s: s[column])
    assert stump.get_tree(0).threshold[0] == pytest.approx(best[0])


def test_a_categorical_feature_splits_by_sets_of_levels():
    # sixteen levels whose hazards alternate with their codes: as a category
    # one cut separates them, from the integer codes it takes fifteen, so the
    # category ranks new rows' risks better
    import pandas as pd

    for seed in range(2):
        rng = np.random.default_rng(seed)
        n = 500
        level = rng.integers(0, 16, n)
        effect = np.where(np.arange(16) % 2 == 0, 1.0, -1.0)
        t = rng.exponential(np.exp(-effect[level]))
        c = rng.uniform(0, 3, n)
        event, time = (t <= c).astype(int), np.minimum(t, c)
        frame = pd.DataFrame({"grade": pd.Categorical(["g%02d" % k for k in level]), "noise": rng.normal(size=n)})
        codes = np.column_stack([level, frame["noise"]])
        tr, te = slice(0, 300), slice(300, None)
        cat = SPORFSurvival(n_estimators=50, random_state=0).fit(frame[tr], (event[tr], time[tr]))
        num = SPORFSurvival(n_estimators=50, random_state=0).fit(codes[tr], (event[tr], time[tr]))
        assert cat.is_categorical_.tolist() == [True, False]
        c_cat = cat.score(frame[te], (event[te], time[te]))
        assert c_cat > num.score(codes[te], (event[te], time[te])) + 0.02 and c_cat > 0.7


@pytest.mark.parametrize("k", [0, 12, 40])
def test_nodes_split_only_with_min_events_split_events(data, k):
    """Every split node holds at least min_events_split events (every row in
    bag); without the rule some split node holds fewer."""
    X, y, _ = data
    est = SPORFSurvival(n_estimators=4, bootstrap=False, min_samples_leaf=1, min_events_split=k, random_state=1,
                        n_jobs=2).fit(X, y)
    indicator, ptr = est.decision_path(X)
    events_in = np.asarray(indicator[y["event"]].sum(axis=0)).ravel()
    fewest = min(events_in[ptr[t]:ptr[t + 1]][est.get_tree(t).children_left >= 0].min() for t in range(4))
    if k:
        assert fewest >= k
    else:
        assert fewest < 12
    too_many = SPORFSurvival(n_estimators=3, min_events_split=int(y["event"].sum()) + 1, random_state=1).fit(X, y)
    assert np.unique(too_many.predict(X)).size == 1  # no node had enough events: every tree is its root


def test_min_events_split_defaults_and_refusals(data):
    X, y, _ = data
    assert SPORFSurvival().min_events_split == 16 and SPORFSurvival().min_samples_leaf == 3
    assert sporf.MORFSurvival().min_events_split == 16
    with pytest.raises(ValueError, match="min_events_split"):
        SPORFSurvival(min_events_split=-1).fit(X, y)
    with pytest.raises(TypeError, match="min_events_split"):
        sporf.SPORFRegressor(min_events_split=3)


def test_trees_whose_draws_all_weigh_zero_save_load_and_predict(tmp_path):
    """A tree that drew only rows of weight 0 is a root without rows: it
    answers the risk of all the training rows, so the forest saves, loads
    and predicts finite risks (its leaf value was NaN, which no file takes)."""
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([(True, 1.0), (True, 2.0), (False, 3.0), (True, 4.0), (True, 5.0), (False, 6.0)], dtype=DTYPE)
    w = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 0.0])
    est = SPORFSurvival(n_estimators=20, bootstrap=False, max_samples=1, oob_score=True, min_samples_leaf=1,
                        random_state=0).fit(X, y, sample_weight=w)
    est.save(tmp_path / "m.sporf")
    again = sporf.load(tmp_path / "m.sporf")
    assert np.all(np.isfinite(again.predict(X)))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
