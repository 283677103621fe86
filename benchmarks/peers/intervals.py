"""Prediction intervals that cover what they promise: coverage and width of
quantile-forest intervals at 80% and 90%, raw and calibrated by conformal
prediction, against split conformal prediction and the peers' raw intervals.

    python benchmarks/peers/intervals.py [--trees 100] [--seeds 5] [--csv FILE] [--skip-ranger]
    python benchmarks/peers/intervals.py --summary benchmarks/results/intervals.csv   # the tables again

Data: y = x + (1 + |x|) e with three noise features (4,000 training rows,
20,000 test rows), and the regression sets of the suite's development half
with at least 400 rows (benchmarks/suite/suite.py), each split at random
70/30 into training and test rows; one split per seed, 5 seeds.

Models, each with the same number of trees and two threads:
  sporf raw         SPORFRegressor(quantiles=True): the quantiles at 1/2 -+ c/2
  sporf calibrated  the same forest's predict_interval(X, c): its levels
                    chosen by conformal prediction on the training rows'
                    out-of-bag scores
  split conformal   a SPORFRegressor(quantiles=True) grown on 75% of the
                    training rows and calibrated on the other 25%
                    (calibrate_intervals): the finite-sample guarantee
  quantile-forest   RandomForestQuantileRegressor (its defaults), raw quantiles
  ranger            ranger(quantreg = TRUE) (its defaults), raw quantiles
Reported per set and coverage: the share of test rows inside the interval and
its mean width over the test response's standard deviation (lower is better,
at the same coverage); then the means over the real sets.
"""
import argparse
import csv
import os
import sys

import numpy as np

import sporf

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import quantiles  # noqa: E402  (the simulation, ranger's run and the suite's sets, shared)
from quantiles import heteroscedastic  # noqa: E402
COVERAGES = (0.8, 0.9)
# the raw intervals' quantiles: 1/2 -+ c/2 for each coverage
RAW_PROBS = sorted({round(0.5 - c / 2, 10) for c in COVERAGES} | {round(0.5 + c / 2, 10) for c in COVERAGES})


def raw_intervals(q):
    """{coverage: (n, 2)} from quantiles at RAW_PROBS."""
    col = {p: k for k, p in enumerate(RAW_PROBS)}
    return {c: q[:, [col[round(0.5 - c / 2, 10)], col[round(0.5 + c / 2, 10)]]] for c in COVERAGES}


def run_sporf(X, y, Xt, trees, seed):
    m = sporf.SPORFRegressor(n_estimators=trees, quantiles=True, random_state=seed, n_jobs=2).fit(X, y)
    return ({c: m.predict_interval(Xt, c, calibrated=False) for c in COVERAGES},
            {c: m.predict_interval(Xt, c) for c in COVERAGES})


def run_split_conformal(X, y, Xt, trees, seed):
    order = np.random.default_rng(1000 + seed).permutation(len(y))
    cut = int(0.75 * len(y))
    fit, cal = order[:cut], order[cut:]
    m = sporf.SPORFRegressor(n_estimators=trees, quantiles=True, random_state=seed, n_jobs=2).fit(X[fit], y[fit])
    m.calibrate_intervals(X[cal], y[cal])
    return {c: m.predict_interval(Xt, c) for c in COVERAGES}


def run_quantile_forest(X, y, Xt, trees, seed):
    from quantile_forest import RandomForestQuantileRegressor

    m = RandomForestQuantileRegressor(n_estimators=trees, random_state=seed, n_jobs=2).fit(X, y)
    return raw_intervals(np.asarray(m.predict(Xt, quantiles=RAW_PROBS)))


def run_ranger(X, y, Xt, trees, seed):
    return raw_intervals(quantiles.run_ranger(X, y, Xt, trees, probs=RAW_PROBS)[0])


def datasets(seeds):
    yield "simulated 4,000", [(heteroscedastic(4000, s), heteroscedastic(20000, 100 + s)) for s in range(seeds)]
    yield from quantiles.real_sets(seeds)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--csv", default=os.path.join(BENCH, "results", "intervals.csv"))
    ap.add_argument("--skip-ranger", action="store_true")
    ap.add_argument("--summary", metavar="CSV", help="print the tables of an earlier run's CSV and stop")
    a = ap.parse_args()
    if a.summary:
        with open(a.summary, newline="") as fh:
            rows = [dict(r, coverage=float(r["coverage"]), hit=float(r["hit"]), width=float(r["width"]))
                    for r in csv.DictReader(fh)]
        summary(rows, list(dict.fromkeys(r["model"] for r in rows)))
        return
    models = ["sporf raw", "sporf calibrated", "split conformal", "quantile-forest"] + ([] if a.skip_ranger
                                                                                       else ["ranger"])
    rows = []
    for name, parts in datasets(a.seeds):
        for seed, ((X, y), (Xt, yt)) in enumerate(parts):
            got = {}
            got["sporf raw"], got["sporf calibrated"] = run_sporf(X, y, Xt, a.trees, seed)
            got["split conformal"] = run_split_conformal(X, y, Xt, a.trees, seed)
            got["quantile-forest"] = run_quantile_forest(X, y, Xt, a.trees, seed)
            if not a.skip_ranger:
                got["ranger"] = run_ranger(X, y, Xt, a.trees, seed)
            sd = float(np.std(yt))
            for model in models:
                for c in COVERAGES:
                    iv = got[model][c]
                    rows.append(dict(data=name, n=len(y) + len(yt), seed=seed, model=model, coverage=c,
                                     hit=float(np.mean((iv[:, 0] <= yt) & (yt <= iv[:, 1]))),
                                     width=float(np.mean(iv[:, 1] - iv[:, 0]) / sd)))
        print(name, "done", flush=True)
    with open(a.csv, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary(rows, models)


def summary(rows, models):
    """Markdown tables: each set's coverage and width (means over seeds), then
    the means over the real sets."""
    names = list(dict.fromkeys(r["data"] for r in rows))
    cell = {}
    for r in rows:
        cell.setdefault((r["data"], r["model"], r["coverage"]), []).append((r["hit"], r["width"]))
    for c in COVERAGES:
        print()
        print("Coverage %.0f%%: share of test rows inside / width over sd, mean over seeds" % (100 * c))
        print()
        print("| data | " + " | ".join(models) + " |")
        print("|---|" + "---:|" * len(models))
        for name in names:
            vals = [np.mean(cell[(name, m, c)], axis=0) for m in models]
            print("| %s | " % name + " | ".join("%.3f / %.2f" % tuple(v) for v in vals) + " |")
        real = [n for n in names if not n.startswith("simulated")]
        means = [np.mean([np.mean(cell[(n, m, c)], axis=0) for n in real], axis=0) for m in models]
        print("| **mean over the %d real sets** | " % len(real) + " | ".join("%.3f / %.2f" % tuple(v) for v in means)
              + " |")
        gaps = [np.mean([abs(np.mean(cell[(n, m, c)], axis=0)[0] - c) for n in real]) for m in models]
        print("| mean abs(coverage - %.1f) | " % c + " | ".join("%.3f" % g for g in gaps) + " |")


if __name__ == "__main__":
    main()
