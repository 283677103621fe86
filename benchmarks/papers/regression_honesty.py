"""Measurements: regression on Friedman #1, honest vs non-honest
class probabilities on trunk, and projection importance on trunk.

    python benchmarks/papers/regression_honesty.py
"""
import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

import sporf
from sporf.datasets import make_trunk, trunk_mean

SEEDS = (0, 1, 2)


def friedman():
    """make_friedman1 with 50 features (Friedman's 10, of which 5 enter y, + 40 noise), 2,000 train, 10,000 test, 100 trees."""
    models = [
        ("scikit-learn RandomForestRegressor (defaults: max_features=1.0)", lambda s: RandomForestRegressor(random_state=s, n_jobs=2)),
        ("SPORFRegressor (defaults: max_features=None, i.e. p)", lambda s: sporf.SPORFRegressor(random_state=s, n_jobs=2)),
        ("SPORFRegressor max_features='sqrt' (the classifier's default)",
         lambda s: sporf.SPORFRegressor(max_features="sqrt", random_state=s, n_jobs=2)),
        ("SPORFRegressor feature_combinations=1.0", lambda s: sporf.SPORFRegressor(feature_combinations=1.0, random_state=s, n_jobs=2)),
        ("SPORFRegressor projection='gaussian', max_features=4.0, feature_combinations=1.0",
         lambda s: sporf.SPORFRegressor(projection="gaussian", max_features=4.0, feature_combinations=1.0, random_state=s, n_jobs=2)),
        ("SPORFRegressor max_features=8.0, feature_combinations=1.0",
         lambda s: sporf.SPORFRegressor(max_features=8.0, feature_combinations=1.0, random_state=s, n_jobs=2)),
        ("SPORFRegressor projection='axis', max_features=1.0",
         lambda s: sporf.SPORFRegressor(projection="axis", max_features=1.0, random_state=s, n_jobs=2)),
    ]
    print("| model | test MSE (median) | per seed |")
    print("|---|---:|---|")
    for name, make in models:
        errs = []
        for s in SEEDS:
            X, y = make_friedman1(2000, n_features=50, random_state=s)
            Xt, yt = make_friedman1(10_000, n_features=50, random_state=100 + s)
            errs.append(float(np.mean((make(s).fit(X, y).predict(Xt) - yt) ** 2)))
        print("| %s | %.3f | %s |" % (name, np.median(errs), ", ".join("%.3f" % e for e in errs)), flush=True)


def honesty():
    """Mean squared difference between predicted P(y=1|x) and the true
    posterior 1 / (1 + exp(-2 mu.x)) on trunk (p=10), n_train=2,000, 10,000 test."""
    p = 10
    mu = trunk_mean(p)
    settings = [("not honest", {}), ("honest_fraction=0.5", dict(honest_fraction=0.5)),
                ("honest_fraction=0.5, honest_prior='ignore'", dict(honest_fraction=0.5, honest_prior="ignore")),
                ("honest_fraction=0.3", dict(honest_fraction=0.3)),
                ("not honest, 500 trees", dict(n_estimators=500)),
                ("honest_fraction=0.5, 500 trees", dict(n_estimators=500, honest_fraction=0.5)),
                ("not honest, bootstrap=False", dict(bootstrap=False)),
                ("honest_fraction=0.5, bootstrap=False", dict(bootstrap=False, honest_fraction=0.5)),
                ("not honest, min_samples_leaf=5", dict(min_samples_leaf=5)),
                ("honest_fraction=0.5, min_samples_leaf=5", dict(min_samples_leaf=5, honest_fraction=0.5))]
    print("| forest (100 trees unless said, otherwise defaults) | mean squared difference to the posterior (median) | per seed |")
    print("|---|---:|---|")
    for name, kw in settings:
        out = []
        for s in SEEDS:
            X, y = make_trunk(2000, p, random_state=s)
            Xt, _ = make_trunk(10_000, p, random_state=100 + s)
            post = 1.0 / (1.0 + np.exp(-2.0 * Xt @ mu))
            clf = sporf.SPORFClassifier(random_state=s, n_jobs=2, **kw).fit(X, y)
            out.append(float(np.mean((clf.predict_proba(Xt)[:, 1] - post) ** 2)))
        print("| %s | %.5f | %s |" % (name, np.median(out), ", ".join("%.5f" % e for e in out)), flush=True)


def projections():
    """Top 10 projections by projection importance on trunk (p=10, n=2,000), seed 0."""
    X, y = make_trunk(2000, 10, random_state=0)
    clf = sporf.SPORFClassifier(random_state=0, n_jobs=2).fit(X, y)
    print("| rank | projection (features numbered from 1) | importance |")
    print("|---:|---|---:|")
    for i, t in enumerate(clf.projection_importances(top=10), 1):
        terms = " ".join(("+" if w > 0 else "-") + ("%g" % abs(w) if abs(w) != 1 else "") + "x%d" % (f + 1)
                         for f, w in zip(t.features, t.weights)).lstrip("+")
        print("| %d | %s | %.4f |" % (i, terms, t.importance))


if __name__ == "__main__":
    friedman()
    print()
    honesty()
    print()
    projections()
