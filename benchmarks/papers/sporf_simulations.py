"""Test error on the SPORF paper's simulations (100 trees, 10,000 test
points, median over seeds 0, 1, 2), sporf vs scikit-learn's RandomForestClassifier.

    python benchmarks/papers/sporf_simulations.py             # sporf vs scikit-learn
    python benchmarks/papers/sporf_simulations.py --tuning    # trunk and orthant under other d and lambda
"""
import sys

import numpy as np
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk


def median_error(make, n_train, n_features, model, seeds=(0, 1, 2)):
    errors = []
    for s in seeds:
        X, y = make(n_train, n_features, random_state=s)
        Xt, yt = make(10_000, n_features, random_state=1000 + s)
        errors.append(np.mean(model(s).fit(X, y).predict(Xt) != yt))
    return float(np.median(errors))


PROBLEMS = [
    ("orthant, p=6, n=400", make_orthant, 400, 6, {}),
    ("trunk, p=100, n=1000", make_trunk, 1000, 100, {}),
    ("sparse parity, p=20, n=1000, max_features=400", make_sparse_parity, 1000, 20, {"max_features": 400}),
]

TUNING = [
    {}, {"feature_combinations": 2.0}, {"feature_combinations": 3.0}, {"max_features": 20},
    {"max_features": 5}, {"max_features": "log2"}, {"max_features": 5, "feature_combinations": 2.0},
    {"criterion": "entropy"},
]


def tuning():
    print("| setting | trunk error (median) | trunk per seed | orthant error (median) |")
    print("|---|---:|---|---:|")
    for kw in TUNING:
        per_seed = []
        for s in (0, 1, 2):
            X, y = make_trunk(1000, 100, random_state=s)
            Xt, yt = make_trunk(10_000, 100, random_state=1000 + s)
            per_seed.append(np.mean(sporf.SPORFClassifier(random_state=s, n_jobs=2, **kw).fit(X, y).predict(Xt) != yt))
        orthant = median_error(make_orthant, 400, 6, lambda s: sporf.SPORFClassifier(random_state=s, n_jobs=2, **kw))
        name = ", ".join("%s = %r" % kv for kv in kw.items()) or "defaults"
        print("| %s | %.4f | %s | %.4f |" % (name, float(np.median(per_seed)),
                                             ", ".join("%.4f" % e for e in per_seed), orthant), flush=True)


if "--tuning" in sys.argv:
    tuning()
    sys.exit(0)

print("| problem | sporf sparse | sporf axis | scikit-learn RF |")
print("|---|---:|---:|---:|")
for name, make, n, p, kw in PROBLEMS:
    sp = median_error(make, n, p, lambda s: sporf.SPORFClassifier(random_state=s, n_jobs=2, **kw))
    ax = median_error(make, n, p, lambda s: sporf.SPORFClassifier(projection="axis", random_state=s, n_jobs=2,
                                                                  **{k: min(v, p) for k, v in kw.items()}))
    rf = median_error(make, n, p, lambda s: RandomForestClassifier(random_state=s, n_jobs=2,
                                                                  **{k: min(v, p) for k, v in kw.items()}))
    print("| %s | %.4f | %.4f | %.4f |" % (name, sp, ax, rf), flush=True)
