"""Fit time of two builds of sporf on survival forests, interleaved in one
run (fit_ab.py's A/B check, on scikit-survival's data sets).

    python benchmarks/speed/fit_ab_survival.py A_DIR B_DIR [--rounds 3]

Workloads: a random half of AIDS (one-hot, 575 x 27), of whas500 (250 x 14)
and of flchain's first 2,000 rows (one-hot, missing values as 0); three
SPORFSurvival fits of 500 trees each (seeds 0-2), one thread, CPU time.
Needs scikit-survival.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_ab  # noqa: E402

WORKER = r"""
import sys, time, json
sys.path.insert(0, sys.argv[1])
import numpy as np, pandas as pd
import sporf
from sksurv.datasets import load_aids, load_whas500, load_flchain
name = sys.argv[2]
if name == "aids":
    Xd, y = load_aids(); X = pd.get_dummies(Xd).astype(float).to_numpy()
elif name == "whas500":
    Xd, y = load_whas500(); X = Xd.astype(float).to_numpy()
else:
    Xd, y = load_flchain(); X = pd.get_dummies(Xd).astype(float).fillna(0).to_numpy()[:2000]; y = y[:2000]
idx = np.random.default_rng(0).permutation(len(y))[:len(y) // 2]
t = time.process_time()
for r in range(3):
    sporf.SPORFSurvival(n_estimators=500, n_jobs=1, random_state=r).fit(X[idx], y[idx])
print(json.dumps({"seconds": time.process_time() - t, "bytes": 0}))
"""

if __name__ == "__main__":
    fit_ab.ab_table(__doc__, WORKER, ["aids", "whas500", "flchain"])
