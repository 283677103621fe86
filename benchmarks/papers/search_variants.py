"""MORF and URerF with the single-feature search and guided projections that
sporf's own forests use by default: the papers' simulations with
each JSON set of parameters over the estimator's defaults.

    python benchmarks/papers/search_variants.py morf  '{}' '{"guided_features": 8}' '{"axis_features": "sqrt", "guided_features": 8}'
    python benchmarks/papers/search_variants.py urerf '{}' '{"guided_features": 8}' '{"axis_features": "sqrt", "guided_features": 8}'

morf: test error, medians over seeds 0-2, of MORFClassifier on the problems of
morf_simulations.py (the papers' patch settings) and on digits (8 x 8, half
for testing). urerf: geodesic precision at k = 50 of URerF (100 trees, seed 0)
on the four manifolds of urerf_simulations.py with 0-1,000 noise dimensions,
and the seconds of fit + neighbour graph.
"""
import json
import os
import sys
import time

import numpy as np

import sporf

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]


def morf(variants):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    import morf_simulations as ms

    print("| problem | " + " | ".join(json.dumps(v) for v in variants) + " |")
    print("|---|" + "---:|" * len(variants))
    for name, make, n, n_test, kw in ms.PROBLEMS:
        meds = []
        for v in variants:
            errs = []
            for s in (0, 1, 2):
                X, y = make(n, random_state=s)
                Xt, yt = make(n_test, random_state=100 + s)
                m = sporf.MORFClassifier(random_state=s, n_jobs=2, **kw, **v).fit(X, y)
                errs.append(np.mean(m.predict(Xt) != yt))
            meds.append(np.median(errs))
        print("| %s | %s |" % (name, " | ".join("%.4f" % e for e in meds)), flush=True)
    X, y = load_digits(return_X_y=True)
    meds = []
    for v in variants:
        errs = []
        for s in (0, 1, 2):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=s, stratify=y)
            m = sporf.MORFClassifier(data_dims=(8, 8), min_patch_dims=1, max_patch_dims=(3, 3), random_state=s,
                                     n_jobs=2, **v).fit(Xtr, ytr)
            errs.append(np.mean(m.predict(Xte) != yte))
        meds.append(np.median(errs))
    print("| digits, 8 x 8 | %s |" % " | ".join("%.4f" % e for e in meds))


def urerf(variants):
    from sporf.datasets import make_manifold
    from sporf.metrics import geodesic_precision_recall

    print("| simulation | noise dims | " + " | ".join(json.dumps(v) for v in variants) + " |")
    print("|---|---:|" + "---:|" * len(variants))
    for kind in ("linear", "helix", "sphere", "gmm"):
        for noise in (0, 10, 100, 1000):
            X, D, _ = make_manifold(kind, 1000, n_noise=noise, random_state=0)
            cells = []
            for v in variants:
                t = time.perf_counter()
                S = sporf.URerF(n_estimators=100, random_state=0, n_jobs=2, **v).fit(X).proximity(n_neighbors=50)
                cells.append("%.3f (%.1f s)" % (geodesic_precision_recall(D, S, 50)[0], time.perf_counter() - t))
            print("| %s | %d | %s |" % (kind, noise, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    which, variants = sys.argv[1], [json.loads(v) for v in sys.argv[2:]] or [{}]
    {"morf": morf, "urerf": urerf}[which](variants)
