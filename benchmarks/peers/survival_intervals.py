"""Event-time intervals of survival forests: coverage and width of SPORFSurvival's
intervals -- raw (its curves' quantiles), calibrated out of bag (weighted conformal
prediction, the default), the same without the censoring weights (the event rows'
scores alone), and split conformal with a 25% calibration hold-out -- on a
simulation whose true event times are known, and on the survival benchmark's real
sets, whose coverage is estimated with inverse-probability-of-censoring weights.

    python benchmarks/peers/survival_intervals.py [--seeds 5] [--trees 300] [--sets a,b]
                                                  [--out benchmarks/results/survival_intervals.csv]

Simulation: 3 features, exponential event times of hazard exp(x0), censored by an
independent exponential of mean 3 (about a quarter of the rows censored) or 1 (about
half); 1,500 training rows, 2,000 new rows whose true event times are counted.

Real sets (benchmarks/peers/survival.py's loader; at most 2,000 rows each): random
half splits; a test row whose event was observed is covered or not, and counts
1 / G(T-) (G the Kaplan-Meier curve of the test half's censoring times); the
estimate is the weighted share, unbiased when censoring is independent of the event
time. Censored test rows enter only through G.

Width: the median of upper - lower over the rows whose upper end is finite, with the
share of rows whose upper end is infinite (the curve stays above the level over the
training times: the data bound the time only from below).
"""
import argparse
import os
import sys
import tempfile
import subprocess

import numpy as np
import pandas as pd

import sporf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from survival import R_SETS, SKSURV_SETS, encode, load_set, structured  # noqa: E402

BENCH = os.path.dirname(HERE)
COVERAGES = (0.8, 0.9)


def simulate(n, seed, censor_mean):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = rng.exponential(np.exp(-X[:, 0]))
    c = rng.exponential(censor_mean, size=n)
    return X, t <= c, np.minimum(t, c), t


def censoring_weights(event, time_):
    """1 / G(T-) for event rows, 0 for censored ones (the core's rule)."""
    return sporf._native.censoring_weights(time_, event.astype(np.int32))


def intervals(X_tr, event, time_, X_te, trees, seed):
    """Each method's (lower, upper) on X_te at each coverage."""
    y = structured(event, time_)
    est = sporf.SPORFSurvival(n_estimators=trees, random_state=seed, n_jobs=2).fit(X_tr, y)
    out = {}
    for c in COVERAGES:
        out[("raw", c)] = est.predict_interval(X_te, c, calibrated=False)
        out[("out-of-bag", c)] = est.predict_interval(X_te, c)
        s, w = est.interval_scores_, (est.interval_weights_ > 0).astype(float)
        out[("out-of-bag, unweighted", c)] = est._forest.predict_survival_interval(
            np.ascontiguousarray(X_te, dtype=np.float64), c, s, w, 2)
    # split conformal: the forest on 75% of the rows, calibrated on the other 25%
    rng = np.random.default_rng(seed + 99)
    perm = rng.permutation(len(time_))
    fit_idx, cal_idx = np.sort(perm[: 3 * len(perm) // 4]), np.sort(perm[3 * len(perm) // 4:])
    split = sporf.SPORFSurvival(n_estimators=trees, random_state=seed, n_jobs=2).fit(X_tr[fit_idx], y[fit_idx])
    split.calibrate_intervals(X_tr[cal_idx], y[cal_idx])
    for c in COVERAGES:
        out[("split conformal", c)] = split.predict_interval(X_te, c)
    return out


def measure(iv, covered_weight, total_weight):
    finite = np.isfinite(iv[:, 1])
    return dict(coverage=covered_weight(iv) / total_weight,
                width=float(np.median(iv[finite, 1] - iv[finite, 0])) if finite.any() else np.inf,
                infinite=float(1.0 - finite.mean()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--trees", type=int, default=300)
    ap.add_argument("--sets", default=",".join(SKSURV_SETS + R_SETS))
    ap.add_argument("--max-rows", type=int, default=2000)
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "survival_intervals.csv"))
    a = ap.parse_args()
    rows = []
    for censor_mean, label in [(3.0, "simulation, 28% censored"), (1.0, "simulation, 50% censored")]:
        for seed in range(a.seeds):
            X, event, time_, true_t = simulate(3500, 10 + seed, censor_mean)
            got = intervals(X[:1500], event[:1500], time_[:1500], X[1500:], a.trees, seed)
            tt = true_t[1500:]
            for (method, c), iv in got.items():
                rows.append(dict(data=label, seed=seed, method=method, nominal=c,
                                 **measure(iv, lambda v: np.sum((v[:, 0] <= tt) & (tt <= v[:, 1])), len(tt))))
        print(label, "done", flush=True)
    sets = [s for s in a.sets.split(",") if s]
    if sets:
        cache = tempfile.mkdtemp(prefix="sporf_survival_")
        if any(s in R_SETS for s in sets):
            subprocess.run(["Rscript", os.path.join(BENCH, "helpers", "survival_sets.R"), cache], check=True)
        for name in sets:
            X_all, event_all, time_all = load_set(name, cache)
            for seed in range(a.seeds):
                rng = np.random.default_rng(2000 + seed)
                keep = np.arange(len(time_all))
                if len(keep) > a.max_rows:
                    keep = np.sort(rng.choice(keep, a.max_rows, replace=False))
                perm = rng.permutation(keep)
                tr, te = np.sort(perm[: len(perm) // 2]), np.sort(perm[len(perm) // 2:])
                Xtr, Xte = encode(X_all.iloc[tr].reset_index(drop=True), X_all.iloc[te].reset_index(drop=True))
                got = intervals(Xtr.to_numpy(), event_all[tr], time_all[tr], Xte.to_numpy(), a.trees, seed)
                ev, tt = event_all[te], time_all[te]
                w = censoring_weights(ev, tt)
                for (method, c), iv in got.items():
                    rows.append(dict(data=name, seed=seed, method=method, nominal=c,
                                     **measure(iv, lambda v: np.sum(w * ((v[:, 0] <= tt) & (tt <= v[:, 1]))),
                                               w.sum())))
            print(name, "done", flush=True)
    df = pd.DataFrame(rows)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    df.to_csv(a.out, index=False)
    summarize(df)


def summarize(df):
    real = ~df["data"].str.startswith("simulation")
    df = df.copy()
    df.loc[real, "data"] = "real sets (mean)"
    # per set first, then the mean over sets, so every set counts alike
    per = df.groupby(["data", "method", "nominal"]).agg(coverage=("coverage", "mean"), width=("width", "median"),
                                                         infinite=("infinite", "mean")).reset_index()
    for nominal in COVERAGES:
        print("\nnominal %.0f%%" % (100 * nominal))
        print(per[per["nominal"] == nominal].pivot(index="method", columns="data",
                                                   values=["coverage", "infinite"]).round(3).to_string())


if __name__ == "__main__":
    main()
