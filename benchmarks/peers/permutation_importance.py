"""Out-of-bag permutation importance: what it costs and what it finds.

    python benchmarks/peers/permutation_importance.py [--seeds 5]

1. Cost: the defaults' fit on make_classification 30,000 x 30 (10 informative,
   5 redundant), 100 trees, n_jobs=2, with importance="impurity" and
   "permutation" (fastest of 2 interleaved rounds).
2. What it finds: five informative features (two binary, three continuous)
   among 25, the other 20 continuous noise; y a logistic (classification) or
   noisy linear (regression) function of the five. For each seed, how many of
   the top five by impurity and by permutation importance are informative,
   for sporf's defaults and its axis-aligned forest (projection="axis").
"""
import argparse
import time

import numpy as np
from sklearn.datasets import make_classification

import sporf


def five_of_twenty_five(n, seed, regression):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 25))
    X[:, :2] = rng.integers(0, 2, (n, 2))
    s = 1.0 * X[:, 0] + 1.0 * X[:, 1] + 0.5 * X[:, 2] + 0.5 * X[:, 3] + 0.5 * X[:, 4]
    if regression:
        return X, s + rng.normal(size=n)
    return X, (s + rng.logistic(size=n) > 1.0).astype(int)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()

    X, y = make_classification(50000, 30, n_informative=10, n_redundant=5, random_state=0)
    X, y = X[:30000], y[:30000]
    best = {"impurity": np.inf, "permutation": np.inf}
    for _ in range(2):
        for kind in best:
            t = time.perf_counter()
            sporf.SPORFClassifier(n_estimators=100, n_jobs=2, random_state=0, importance=kind).fit(X, y)
            best[kind] = min(best[kind], time.perf_counter() - t)
    extra = best["permutation"] - best["impurity"]
    print("make_classification 30,000 x 30, 100 trees, n_jobs=2: fit %.2f s, with permutation importance "
          "%.2f s (+%.2f s, %.2fx the fit)\n" % (best["impurity"], best["permutation"], extra,
                                                 extra / best["impurity"]))

    print("| task | forest | informative among the top 5: impurity | permutation |")
    print("|---|---|---:|---:|")
    for regression in (False, True):
        est = sporf.SPORFRegressor if regression else sporf.SPORFClassifier
        for name, kw in [("sporf defaults", {}), ("sporf axis", {"projection": "axis"})]:
            hits = {"impurity": [], "permutation": []}
            for seed in range(args.seeds):
                Xs, ys = five_of_twenty_five(2000, seed, regression)
                m = est(n_estimators=100, random_state=seed, n_jobs=2, importance="permutation", **kw).fit(Xs, ys)
                for kind, values in (("impurity", m.feature_importances_),
                                     ("permutation", m.permutation_importances_)):
                    hits[kind].append(int(np.sum(np.argsort(-values)[:5] < 5)))
            print("| %s | %s | %.1f of 5 (min %d) | %.1f of 5 (min %d) |"
                  % ("regression" if regression else "classification", name, np.mean(hits["impurity"]),
                     min(hits["impurity"]), np.mean(hits["permutation"]), min(hits["permutation"])))
    print("\n(means over %d seeds)" % args.seeds)


if __name__ == "__main__":
    main()
