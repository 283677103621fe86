"""Fit time of two builds of sporf, interleaved in one run (an A/B check for
changes to the tree builder that must not cost speed).

Each build is a folder holding a `sporf` package (for instance a copy of the
installed package made before the change). Every round fits each workload once
with each build, in alternating order, each in a fresh process with one
thread; the table gives the median time per build and the ratio B/A.

    python benchmarks/speed/fit_ab.py A_DIR B_DIR [--rounds 5]

Workloads: classification (make_classification 10,000 x 100, sparse and
axis), regression (Friedman #1 with 40 noise features, 5,000 rows) and
URerF (2,000 x 30, Fast-BIC), 50 trees each.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

WORKER = r"""
import sys, time, json
sys.path.insert(0, sys.argv[1])
import numpy as np
import sporf
from sklearn.datasets import make_classification, make_friedman1
name = sys.argv[2]
if name.startswith("classification"):
    X, y = make_classification(10000, 100, n_informative=15, random_state=0)
    est = sporf.SPORFClassifier(n_estimators=50, projection=name.split("-")[1], n_jobs=1, random_state=0)
    args = (X, y)
elif name == "regression":
    X, y = make_friedman1(5000, 45, noise=1.0, random_state=0)
    est = sporf.SPORFRegressor(n_estimators=50, n_jobs=1, random_state=0)
    args = (X, y)
else:
    X, _ = make_classification(2000, 30, n_informative=5, random_state=0)
    est = sporf.URerF(n_estimators=50, n_jobs=1, random_state=0)
    args = (X,)
t = time.perf_counter()
est.fit(*args)
print(json.dumps({"seconds": time.perf_counter() - t, "bytes": len(est.to_bytes()) if hasattr(est, "to_bytes") else 0}))
"""

WORKLOADS = ["classification-sparse", "classification-axis", "regression", "urerf"]


def run(path, name, worker=WORKER):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", worker, path, name], capture_output=True, text=True, env=env,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def ab_table(description, worker, workloads, digits=3):
    """Parse A_DIR B_DIR [--rounds], run each workload with each build in
    alternating order, round after round, and print the medians and B/A."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    times = {(w, k): [] for w in workloads for k in "ab"}
    for r in range(args.rounds):
        for w in workloads:
            order = "ab" if r % 2 == 0 else "ba"
            for k in order:
                times[(w, k)].append(run(args.a if k == "a" else args.b, w, worker))
    print("| workload | A (s) | B (s) | B/A |")
    print("|---|---:|---:|---:|")
    for w in workloads:
        a = statistics.median(times[(w, "a")])
        b = statistics.median(times[(w, "b")])
        print("| %s | %.*f | %.*f | %.3f |" % (w, digits, a, digits, b, b / a))


def main():
    ab_table(__doc__, WORKER, WORKLOADS)


if __name__ == "__main__":
    main()
