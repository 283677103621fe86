"""Batch prediction as forests and batches grow: sporf's defaults against
scikit-learn's RandomForest and ydf's RF.

    python benchmarks/speed/predict_scale.py                         # every forest, every batch
    python benchmarks/speed/predict_scale.py --forests 300k --batches 10000,100000
    python benchmarks/speed/predict_scale.py --models "sporf defaults,sklearn RF"

Forests (make_classification, 30 features, 10 informative and 5 redundant,
seeded): grown on 30,000 rows (100 trees), 300,000 rows (20 trees) and
1,000,000 rows (20 trees), as benchmarks/speed/speed_table.py's cells c30,
c300k and c1m. Every model fits the same rows with n_jobs=2: sporf's
defaults (leaves chosen out of bag), scikit-learn's RandomForestClassifier
(its defaults: fully grown trees) and ydf's RandomForestLearner grown fully
(max_depth=-1, min_examples=1; skipped when ydf is not installed).

Batches: 1, 100, 10,000, 100,000 and 1,000,000 new rows of the same law
(never the training rows). Each batch is timed as class probabilities
(predict_proba; ydf's predict), the models interleaved in each round so that
a slow moment of the machine falls on all of them: the fastest of --rounds
rounds (batches of 1 and 100 rows: the median of 200 and 50 calls in each
round). The table gives seconds, the ratio to scikit-learn's RF in the same
run, and rows per second.

Model memory: each model is pickled, and a fresh process loads it and reports
how much its resident memory grew -- the model as prediction holds it (for
sporf the stored trees and the prediction layout built at load), whatever
each library keeps.
"""
import argparse
import os
import pickle
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

import sporf
from speed_table import Ydf  # ydf's RF grown fully, as the speed table grows it

N_JOBS = 2
FORESTS = {"30k": (30_000, 100), "300k": (300_000, 20), "1m": (1_000_000, 20)}
BATCHES = [1, 100, 10_000, 100_000, 1_000_000]
SMALL_CALLS = {1: 200, 100: 50, 10_000: 9, 100_000: 3}


def models(trees):
    m = {
        "sporf defaults": lambda: sporf.SPORFClassifier(n_estimators=trees, n_jobs=N_JOBS, random_state=0),
        "sklearn RF": lambda: RandomForestClassifier(n_estimators=trees, n_jobs=N_JOBS, random_state=0),
    }
    try:
        import ydf  # noqa: F401
        m["ydf RF"] = lambda: Ydf("classification", False, trees)
    except ImportError:
        pass
    return m


LOADER = r"""
import sys, pickle
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * %d
kind, path = sys.argv[1], sys.argv[2]
if kind == "ydf":
    import ydf
else:
    import sporf, sklearn.ensemble  # the libraries' own memory is not the model's
before = rss()  # before the file's bytes too: they are freed (returned to the system) below
blob = open(path, "rb").read()
model = ydf.deserialize_model(blob) if kind == "ydf" else pickle.loads(blob)
del blob
print(rss() - before)
"""


def model_memory(model):
    """Resident bytes a fresh process gains by loading the model."""
    kind = "ydf" if isinstance(model, Ydf) else "pickle"
    blob = model.model.serialize() if kind == "ydf" else pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    with tempfile.NamedTemporaryFile(suffix=".model", delete=False) as f:
        f.write(blob)
    try:
        out = subprocess.run([sys.executable, "-c", LOADER % os.sysconf("SC_PAGE_SIZE"), kind, f.name],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    return int(out.split()[-1])


def time_batch(model, X, calls):
    if calls == 1:
        t0 = time.perf_counter()
        model.predict_proba(X)
        return time.perf_counter() - t0
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        model.predict_proba(X)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def run_forest(name, batches, rounds, only):
    n_train, trees = FORESTS[name]
    n_test = max(batches)
    X, y = make_classification(n_samples=n_train + n_test, n_features=30, n_informative=10, n_redundant=5,
                               random_state=0)
    Xtr, ytr, Xte = X[:n_train], y[:n_train], np.ascontiguousarray(X[n_train:])
    fitted, fit_s, memory = {}, {}, {}
    for k, make in models(trees).items():
        if only and k not in only and k != "sklearn RF":
            continue
        t0 = time.perf_counter()
        fitted[k] = make().fit(Xtr, ytr)
        fit_s[k] = time.perf_counter() - t0
        memory[k] = model_memory(fitted[k])
        print("  %s %s: fit %.1f s, %.1f MB" % (name, k, fit_s[k], memory[k] / 1e6), file=sys.stderr, flush=True)
    best = {(k, b): float("inf") for k in fitted for b in batches}
    for r in range(rounds):
        for b in batches:
            rows = Xte[:b]
            for k, m in fitted.items():
                best[k, b] = min(best[k, b], time_batch(m, rows, SMALL_CALLS.get(b, 1)))
            print("  %s round %d batch %d: %s" % (name, r, b, ", ".join("%s %.4g s" % (k, best[k, b])
                                                                      for k in fitted)),
                  file=sys.stderr, flush=True)
    return n_train, trees, fitted, fit_s, memory, best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forests", default=",".join(FORESTS))
    ap.add_argument("--batches", default=",".join(str(b) for b in BATCHES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default="", help="comma-separated subset of the models (RF always runs)")
    a = ap.parse_args()
    batches = [int(b) for b in a.batches.split(",")]
    only = set(a.models.split(",")) if a.models else None
    print("Machine: %s, %d cores, Python %s, sporf %s, numpy %s; n_jobs=%d; fastest of %d interleaved rounds"
          % (platform.machine(), os.cpu_count(), platform.python_version(), sporf.__version__, np.__version__,
             N_JOBS, a.rounds))
    print()
    for name in a.forests.split(","):
        n_train, trees, fitted, fit_s, memory, best = run_forest(name, batches, a.rounds, only)
        print("### forest grown on %d rows x 30, %d trees" % (n_train, trees))
        print()
        print("| model | fit (s) | model memory (MB) | " +
              " | ".join("%s rows: s (/ RF)" % format(b, ",") for b in batches) + " |")
        print("|---|---:|---:|" + "---:|" * len(batches))
        for k in fitted:
            cells = []
            for b in batches:
                s, rf = best[k, b], best["sklearn RF", b]
                cells.append(("%.1f us" % (s * 1e6) if s < 1e-3 else "%.4g s" % s) + " (%.2fx)" % (s / rf))
            print("| %s | %.1f | %.1f | %s |" % (k, fit_s[k], memory[k] / 1e6, " | ".join(cells)))
        print(flush=True)


if __name__ == "__main__":
    main()
