"""The accuracy side of the histogram search (benchmarks/notes/speed.md).

    python benchmarks/speed/histogram_settings.py orthant   # median test error of 5 seeds, exact vs histograms
    python benchmarks/speed/histogram_settings.py cells     # test error and fit time, forest seeds 0 and 1

"orthant": the SPORF paper's orthant problem (400 rows, 6 features, 5,000 test
rows per seed), axis and sparse forests with max_bins=0 (exact) and 256.
"cells": the speed table's c30, c784 and fried cells (benchmarks/speed/speed_table.py)
with the defaults, forest seeds 0 and 1 on the same data; prints both errors and
their median. Extra arguments are JSON sets of parameters over the defaults.
The rows-per-bin and smallest-histogram-node settings are constants
(SPORF_HIST_ROWS_PER_BIN, SPORF_HIST_MIN_ROWS in csrc/fit/histogram.h): their
other values were measured by editing them, rebuilding (make install) and
running these commands.
"""
import json
import os
import sys
import time

import numpy as np

import sporf
from sporf.datasets import make_orthant
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
from speed_table import cell_data  # noqa: E402


def orthant():
    for proj in ["axis", "sparse"]:
        for mb in [0, 256]:
            errs = []
            for s in range(5):
                X, y = make_orthant(400, n_features=6, random_state=s)
                Xt, yt = make_orthant(5000, n_features=6, random_state=100 + s)
                m = sporf.SPORFClassifier(projection=proj, max_bins=mb, random_state=s).fit(X, y)
                errs.append(np.mean(m.predict(Xt) != yt))
            print("orthant %-6s max_bins=%-3d median error %.4f" % (proj, mb, np.median(errs)))


def cells(variants):
    for cell in ["c30", "c784", "fried"]:
        task, X, y, Xt, yt, trees = cell_data(cell)
        est = sporf.SPORFRegressor if task == "regression" else sporf.SPORFClassifier
        for params in variants:
            res = []
            for seed in [0, 1]:
                m = est(n_estimators=trees, n_jobs=2, random_state=seed, **params)
                t = time.perf_counter()
                m.fit(X, y)
                dt = time.perf_counter() - t
                p = m.predict(Xt)
                res.append((dt, np.mean((p - yt) ** 2) if task == "regression" else np.mean(p != yt)))
            print("%-5s %s fit %.2f %.2f s, error %.4f %.4f, median %.4f"
                  % (cell, params, res[0][0], res[1][0], res[0][1], res[1][1], np.median([r[1] for r in res])))


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "orthant"
    if what == "orthant":
        orthant()
    else:
        cells([json.loads(v) for v in sys.argv[2:]] or [{}])
