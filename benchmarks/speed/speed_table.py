"""Fit and predict time of sporf's defaults against scikit-learn's RF and ydf.

    python benchmarks/speed/speed_table.py                       # every cell, every model
    python benchmarks/speed/speed_table.py --cells c30,fried --repeats 2
    python benchmarks/speed/speed_table.py --cells c30 --variant 'exact={"max_bins": 0}'

Cells (synthetic, seeded; the first rows train, the rest test):
  c30     make_classification 50,000 x 30 (10 informative, 5 redundant), 30,000 train, 100 trees
  c784    make_classification 15,000 x 784 (10 informative, 5 redundant), 10,000 train, 100 trees
  fried   make_friedman1 40,000 x 45 (5 enter y, noise sd 1), 20,000 train, 100 trees (regression)
  c300k   make_classification 320,000 x 30, 300,000 train, 20 trees
  c1m     make_classification 1,020,000 x 30, 1,000,000 train, 20 trees
  c50     make_classification 60,000 x 50 (10 informative, 5 redundant), 50,000 train, 100 trees

Models: scikit-learn's RandomForest (its defaults: sqrt(p) features for
classification, all p for regression) and ExtraTrees (its defaults: random
cuts on sqrt(p) features, all p for regression, leaves of 1, no bootstrap),
sporf "random" at ExtraTrees' candidates (splitter="random", axis projections,
the same number of features, leaves of 1 row, no bootstrap), sporf's defaults, sporf "plain" (sparse
projections only: axis_features=0, guided_features=0), sporf "axis", ydf's RF
and sparse oblique RF (fully grown: max_depth=-1, min_examples=1; skipped when
ydf is not installed), and any --variant of sporf's parameters. Every model
uses n_jobs=2; sporf's trees stop at its default leaves of 3 rows, scikit-learn's
and ydf's grow fully. Each cell fits every model `--repeats` times, the models
interleaved in each round so that a slow moment of the machine falls on all of
them; the table shows the fastest fit and the fastest batch predict of the
test rows (PREDICT_CALLS calls after each fit: a single call varies by 10-20%,
most of all scikit-learn's, whose threads start with each call, and the first
calls after a fit on a million rows ran up to 40% slower while the machine
settled), as ratios to
scikit-learn's RF, and the test error
(classification error, or MSE) of the first fit. The 1-row latency is the
median of 500 single-row predict calls of sporf's defaults.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor

import sporf

N_JOBS = 2
PREDICT_CALLS = 5


def cell_data(name):
    if name == "fried":
        X, y = make_friedman1(40_000, n_features=45, noise=1.0, random_state=0)
        return "regression", X[:20_000], y[:20_000], X[20_000:], y[20_000:], 100
    n_train, p, trees = {"c30": (30_000, 30, 100), "c784": (10_000, 784, 100), "c50": (50_000, 50, 100),
                         "c300k": (300_000, 30, 20), "c1m": (1_000_000, 30, 20)}[name]
    n_test = 20_000 if p == 30 else 10_000 if p == 50 else 5_000
    X, y = make_classification(n_samples=n_train + n_test, n_features=p, n_informative=10, n_redundant=5,
                               random_state=0)
    return "classification", X[:n_train], y[:n_train], X[n_train:], y[n_train:], trees


class Ydf:
    def __init__(self, task, oblique, trees):
        import ydf
        ydf.verbose(0)  # no training log in the table
        kw = dict(label="y", num_trees=trees, max_depth=-1, min_examples=1, num_threads=N_JOBS,
                  task=ydf.Task.REGRESSION if task == "regression" else ydf.Task.CLASSIFICATION)
        if oblique:
            kw.update(split_axis="SPARSE_OBLIQUE", sparse_oblique_num_projections_exponent=0.5,
                      sparse_oblique_projection_density_factor=1.5, sparse_oblique_normalization="NONE")
        self.learner = ydf.RandomForestLearner(**kw)

    @staticmethod
    def cols(X):
        return {"f%d" % j: X[:, j] for j in range(X.shape[1])}

    def fit(self, X, y):
        d = self.cols(X)
        d["y"] = y
        self.model = self.learner.train(d)
        return self

    def predict_proba(self, X):
        return self.model.predict(self.cols(X))

    def predict(self, X):
        out = self.model.predict(self.cols(X))
        if out.ndim == 1 and self.model.task() == self.model.task().CLASSIFICATION:
            return (out > 0.5).astype(int)  # ydf gives P(class 1) for two classes
        if out.ndim == 2:
            return out.argmax(1)
        return out


def models(task, trees, variants):
    sp = sporf.SPORFRegressor if task == "regression" else sporf.SPORFClassifier
    rf = RandomForestRegressor if task == "regression" else RandomForestClassifier
    et = ExtraTreesRegressor if task == "regression" else ExtraTreesClassifier
    et_features = 1.0 if task == "regression" else "sqrt"  # ExtraTrees' defaults
    m = {
        "sklearn RF": lambda: rf(n_estimators=trees, n_jobs=N_JOBS, random_state=0),
        "sklearn ExtraTrees": lambda: et(n_estimators=trees, n_jobs=N_JOBS, random_state=0),
        "sporf random": lambda: sp(n_estimators=trees, n_jobs=N_JOBS, random_state=0, splitter="random",
                                   projection="axis", max_features=et_features, min_samples_leaf=1,
                                   bootstrap=False),
        "sporf defaults": lambda: sp(n_estimators=trees, n_jobs=N_JOBS, random_state=0),
        "sporf plain": lambda: sp(n_estimators=trees, n_jobs=N_JOBS, random_state=0, axis_features=0,
                                  guided_features=0),
        "sporf axis": lambda: sp(n_estimators=trees, n_jobs=N_JOBS, random_state=0, projection="axis"),
    }
    for name, params in variants:
        m["sporf " + name] = (lambda params=params: sp(n_estimators=trees, n_jobs=N_JOBS, random_state=0, **params))
    try:
        import ydf  # noqa: F401
        m["ydf RF"] = lambda: Ydf(task, False, trees)
        m["ydf sparse oblique"] = lambda: Ydf(task, True, trees)
    except ImportError:
        pass
    return m


def error(task, y, pred):
    return float(np.mean((y - pred) ** 2)) if task == "regression" else float(np.mean(y != pred))


def run_cell(name, repeats, variants, only):
    task, X, y, Xt, yt, trees = cell_data(name)
    ms = models(task, trees, variants)
    if only:
        ms = {k: v for k, v in ms.items() if k in only or k == "sklearn RF"}
    fit_t = {k: [] for k in ms}
    pred_t = {k: [] for k in ms}
    err = {}
    latency = None
    for r in range(repeats):
        for k, make in ms.items():
            m = make()
            t0 = time.perf_counter()
            m.fit(X, y)
            fit_t[k].append(time.perf_counter() - t0)
            for _ in range(PREDICT_CALLS):
                t0 = time.perf_counter()
                pred = m.predict(Xt)
                pred_t[k].append(time.perf_counter() - t0)
            if r == 0:
                err[k] = error(task, yt, pred)
            if r == 0 and k == "sporf defaults":
                one = []
                for i in range(500):
                    row = Xt[i:i + 1]
                    t0 = time.perf_counter()
                    m.predict(row)
                    one.append(time.perf_counter() - t0)
                latency = float(np.median(one))
            print("  %s %s round %d: fit %.2fs predict %.3fs" % (name, k, r, fit_t[k][-1], pred_t[k][-1]),
                  file=sys.stderr, flush=True)
            del m
    return task, X.shape, trees, {k: (min(fit_t[k]), min(pred_t[k]), err[k]) for k in ms}, latency


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", default="c30,c784,fried,c300k,c1m")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--variant", action="append", default=[], help="name=JSON of SPORF parameters")
    ap.add_argument("--models", default="", help="comma-separated subset of the models (RF always runs)")
    a = ap.parse_args()
    variants = []
    for v in a.variant:
        name, js = v.split("=", 1)
        variants.append((name, json.loads(js)))
    only = set(a.models.split(",")) if a.models else None
    print("Machine: %s, %d cores, Python %s, sporf %s, numpy %s; n_jobs=%d; fastest of %d interleaved rounds, "
          "%d predict calls a round"
          % (platform.machine(), os.cpu_count(), platform.python_version(), sporf.__version__, np.__version__,
             N_JOBS, a.repeats, PREDICT_CALLS))
    print()
    for cell in a.cells.split(","):
        task, shape, trees, res, latency = run_cell(cell, a.repeats, variants, only)
        rf_fit, rf_pred, _ = res["sklearn RF"]
        what = "MSE" if task == "regression" else "error"
        print("### %s: %s, train %d x %d, %d trees" % (cell, task, shape[0], shape[1], trees))
        print()
        print("| model | fit (s) | fit / RF | predict (s) | predict / RF | test %s |" % what)
        print("|---|---:|---:|---:|---:|---:|")
        for k, (ft, pt, e) in res.items():
            print("| %s | %.2f | %.2fx | %.3f | %.2fx | %.4f |" % (k, ft, ft / rf_fit, pt, pt / rf_pred, e))
        if latency is not None:
            print()
            print("sporf defaults, 1-row predict: median %.1f us" % (latency * 1e6))
        if "sporf random" in res and "sklearn ExtraTrees" in res:
            print()
            print("sporf random / scikit-learn ExtraTrees, fit: %.2fx"
                  % (res["sporf random"][0] / res["sklearn ExtraTrees"][0]))
        print(flush=True)


if __name__ == "__main__":
    main()
