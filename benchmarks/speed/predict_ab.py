"""Prediction time of two builds of sporf, interleaved in one run (an A/B
check for changes that must not cost prediction speed; fit_ab.py is its twin
for fitting).

Each build is a folder holding a `sporf` package (for instance a copy of the
installed package made before the change). Every round runs each workload
once with each build, in alternating order, each in a fresh process with one
thread; a workload fits its forest (not timed), then times the median of 5
predictions. The table gives the median over rounds per build and B/A.

    python benchmarks/speed/predict_ab.py A_DIR B_DIR [--rounds 5]

Workloads: 100 sparse-oblique trees on 20,000 x 30 predicting 100,000 rows
(the partition walk on doubles); 50 sparse and 50 axis trees on 5,000 x 784
predicting 10,000 rows (float copies: partition, and lanes for a forest of
single-feature splits); and 2,000 one-row calls to predict_proba (the lanes
over a bin's trees).
"""
import os
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
from fit_ab import ab_table  # noqa: E402  (the same interleaved A/B loop)

WORKER = r"""
import sys, time, json
sys.path.insert(0, sys.argv[1])
import numpy as np
import sporf
from sklearn.datasets import make_classification
name = sys.argv[2]
if name == "sparse-30":
    X, y = make_classification(20000, 30, n_informative=10, random_state=0)
    est = sporf.SPORFClassifier(n_estimators=100, n_jobs=1, random_state=0).fit(X, y)
    Xt = np.random.default_rng(1).normal(size=(100000, 30))
else:
    X, y = make_classification(5000, 784, n_informative=20, random_state=0)
    proj = "axis" if name == "axis-784" else "sparse"
    est = sporf.SPORFClassifier(n_estimators=50, projection=proj, n_jobs=1, random_state=0).fit(X, y)
    Xt = np.random.default_rng(1).normal(size=(10000, 784))
times = []
for _ in range(5):
    t = time.perf_counter()
    if name == "one-row":
        for i in range(2000):
            est.predict_proba(Xt[i:i + 1])
    else:
        est.predict_proba(Xt)
    times.append(time.perf_counter() - t)
print(json.dumps({"seconds": sorted(times)[2]}))
"""

WORKLOADS = ["sparse-30", "sparse-784", "axis-784", "one-row"]


def main():
    ab_table(__doc__, WORKER, WORKLOADS, digits=4)


if __name__ == "__main__":
    main()
