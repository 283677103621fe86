"""Quantile regression forests: interval coverage, accuracy of the quantiles,
model size and time, sporf against the quantile-forest package and ranger.

    python benchmarks/peers/quantiles.py [--trees 100] [--splits 3] [--skip-ranger]

Data: y = x + (1 + |x|) e with three noise features (2,000 and 20,000
training rows, 5,000 test rows), and the regression sets of the suite's
development half with at least 400 rows (benchmarks/suite/suite.py; 70/30 splits,
seeded). Each forest has the same number of trees and two threads and
predicts the 10%, 50% and 90% quantiles of the test rows. Reported: the share
of test rows inside the 10-90% interval (nominal 0.80), the interval's mean
width over the response's standard deviation, the mean pinball loss of the
three quantiles over the response's standard deviation (lower is better),
the model's size (sporf: its model file; quantile-forest: its pickle;
ranger: its serialized R object), and fit and predict seconds.

Models: sporf's SPORFRegressor(quantiles=True) with its defaults, and with
min_samples_leaf=5; quantile-forest's RandomForestQuantileRegressor with its
defaults (one random training row kept per leaf); ranger(quantreg = TRUE)
with its defaults (min.node.size 5).
"""
import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time

import numpy as np

import sporf

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
PROBS = [0.1, 0.5, 0.9]


def heteroscedastic(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 4))
    return X, X[:, 0] + (1 + np.abs(X[:, 0])) * rng.standard_normal(n)


def pinball(y, q):
    loss = [np.mean(np.maximum(a * (y - q[:, k]), (a - 1) * (y - q[:, k]))) for k, a in enumerate(PROBS)]
    return float(np.mean(loss))


def run_sporf(X, y, Xt, trees, **kw):
    m = sporf.SPORFRegressor(n_estimators=trees, quantiles=True, random_state=0, n_jobs=2, **kw)
    t = time.perf_counter()
    m.fit(X, y)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    q = m.predict(Xt, quantiles=PROBS)
    return q, fit_s, time.perf_counter() - t, len(m.to_bytes())


def run_quantile_forest(X, y, Xt, trees):
    from quantile_forest import RandomForestQuantileRegressor

    m = RandomForestQuantileRegressor(n_estimators=trees, random_state=0, n_jobs=2)
    t = time.perf_counter()
    m.fit(X, y)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    q = m.predict(Xt, quantiles=PROBS)
    return q, fit_s, time.perf_counter() - t, len(pickle.dumps(m))


def run_ranger(X, y, Xt, trees, probs=PROBS):
    with tempfile.TemporaryDirectory() as d:
        names = ["x%d" % j for j in range(X.shape[1])]
        np.savetxt(os.path.join(d, "train.csv"), np.column_stack([X, y]), delimiter=",",
                   header=",".join(names + ["y"]), comments="")
        np.savetxt(os.path.join(d, "test.csv"), Xt, delimiter=",", header=",".join(names), comments="")
        subprocess.run(["Rscript", os.path.join(BENCH, "helpers", "quantiles_ranger.R"), d, str(trees), "2",
                        ",".join("%r" % float(p) for p in probs)], check=True)
        q = np.loadtxt(os.path.join(d, "ranger_q.csv"), delimiter=",", skiprows=1, ndmin=2)
        fit_s, pred_s, size = open(os.path.join(d, "ranger_t.txt")).read().split()
        return q, float(fit_s), float(pred_s), int(size)


def datasets(splits):
    yield "simulated 2,000", [(heteroscedastic(2000, s), heteroscedastic(5000, 100 + s)) for s in range(splits)]
    yield "simulated 20,000", [(heteroscedastic(20000, s), heteroscedastic(5000, 100 + s)) for s in range(1)]
    yield from real_sets(splits)


def real_sets(splits):
    """The suite's development-half regression sets of at least 400 rows,
    each with `splits` seeded 70/30 splits ((X, y) train, (X, y) test)."""
    sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
    import suite

    for name, (task, X, y) in suite.load_all().items():
        if task != "reg" or suite.half_of(name) != "dev" or len(y) < 400:
            continue
        parts = []
        for s in range(splits):
            rng = np.random.default_rng(s)
            order = rng.permutation(len(y))
            cut = int(0.7 * len(y))
            tr, te = order[:cut], order[cut:]
            parts.append(((X[tr], y[tr]), (X[te], y[te])))
        yield name, parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--skip-ranger", action="store_true")
    a = ap.parse_args()
    models = {
        "sporf": lambda X, y, Xt: run_sporf(X, y, Xt, a.trees),
        "sporf min_samples_leaf=5": lambda X, y, Xt: run_sporf(X, y, Xt, a.trees, min_samples_leaf=5),
        "quantile-forest": lambda X, y, Xt: run_quantile_forest(X, y, Xt, a.trees),
    }
    if not a.skip_ranger:
        models["ranger"] = lambda X, y, Xt: run_ranger(X, y, Xt, a.trees)
    print("| data | model | coverage | width / sd | pinball / sd | model MB | fit s | predict s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    totals = {m: [] for m in models}
    for name, parts in datasets(a.splits):
        for label, run in models.items():
            rows = []
            for (X, y), (Xt, yt) in parts:
                q, fit_s, pred_s, size = run(X, y, Xt)
                sd = np.std(yt)
                rows.append((np.mean((yt >= q[:, 0]) & (yt <= q[:, 2])), np.mean(q[:, 2] - q[:, 0]) / sd,
                             pinball(yt, q) / sd, size / 1e6, fit_s, pred_s))
            r = np.mean(rows, axis=0)
            if not name.startswith("simulated"):
                totals[label].append(r[:3])
            print("| %s | %s | %.3f | %.2f | %.4f | %.2f | %.2f | %.2f |" % ((name, label) + tuple(r)), flush=True)
    print()
    print("Mean over the real sets (%d):" % len(next(iter(totals.values()))))
    print()
    print("| model | coverage | mean abs(coverage - 0.8) | width / sd | pinball / sd |")
    print("|---|---:|---:|---:|---:|")
    for label, rows in totals.items():
        rows = np.array(rows)
        print("| %s | %.3f | %.3f | %.2f | %.4f |" % (label, rows[:, 0].mean(), np.abs(rows[:, 0] - 0.8).mean(),
                                                     rows[:, 1].mean(), rows[:, 2].mean()))


if __name__ == "__main__":
    main()
