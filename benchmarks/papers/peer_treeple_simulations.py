"""The same simulations as sporf_simulations.py and morf_simulations.py, run
with a peer's oblique forest (treeple's ObliqueRandomForestClassifier, its
defaults: max_features "sqrt", feature_combinations 1.5), to tell how much of
a result belongs to the SPORF method and how much to sporf.

treeple 0.10.3 imports only with scikit-learn 1.6.x, so it gets its own
virtual environment (no sporf install needed there: the dataset generators are
loaded from this checkout by path):

    python3 -m venv /tmp/treeple-venv
    /tmp/treeple-venv/bin/pip install treeple==0.10.3 scikit-learn==1.6.1
    /tmp/treeple-venv/bin/python benchmarks/papers/peer_treeple_simulations.py

Bars are run twice: with sporf.datasets.make_bars (segments of random
thickness and length) and with the MORF authors' own generator
(reference_generators.full_row_bars: k ~ Poisson(10) whole rows set to 1, row indices drawn
with replacement; class 1 is the transpose).

Sections can be run alone: `... peer_treeple_simulations.py friedman`
(names: simulations, honesty, friedman; default all).
"""
import importlib.util
import os
import sys

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from treeple import HonestForestClassifier, ObliqueRandomForestClassifier, ObliqueRandomForestRegressor
from treeple._lib.sklearn.ensemble import _forest as treeple_forest

# treeple 0.10.3's regressors set a tag (regressor_tags.multi_label) that
# scikit-learn 1.6 no longer has, so fit() fails; take the tags of the class
# above its ForestRegressor instead.
treeple_forest.ForestRegressor.__sklearn_tags__ = \
    lambda self: super(treeple_forest.ForestRegressor, self).__sklearn_tags__()

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
_spec = importlib.util.spec_from_file_location("sporf_datasets", os.path.join(BENCH, "..", "python", "sporf", "datasets.py"))
datasets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(datasets)
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
from reference_generators import full_row_bars  # noqa: E402


def per_seed(make, n_train, n_test, model, seeds=(0, 1, 2), test_offset=1000):
    out = []
    for s in seeds:
        X, y = make(n_train, random_state=s)
        Xt, yt = make(n_test, random_state=test_offset + s)
        m = model(s).fit(X.reshape(len(X), -1), y)
        out.append(float(np.mean(m.predict(Xt.reshape(len(Xt), -1)) != yt)))
    return out


def treeple(s):
    return ObliqueRandomForestClassifier(n_estimators=100, random_state=s, n_jobs=2)


def sklearn_rf(s):
    return RandomForestClassifier(n_estimators=100, random_state=s, n_jobs=2)


ROWS = [
    ("orthant, p=6, n=400, 10,000 test", lambda n, random_state: datasets.make_orthant(n, 6, random_state=random_state), 400, 10_000, 1000),
    ("trunk, p=100, n=1000, 10,000 test", lambda n, random_state: datasets.make_trunk(n, 100, random_state=random_state), 1000, 10_000, 1000),
    ("bars (sporf.datasets.make_bars), n=100, 2,000 test", datasets.make_bars, 100, 2000, 100),
    ("bars (full rows, the MORF authors' generator), n=100, 2,000 test", full_row_bars, 100, 2000, 100),
]


def simulations():
    print("| problem | treeple oblique RF (median) | per seed | scikit-learn RF (median) |")
    print("|---|---:|---|---:|")
    for name, make, n, n_test, offset in ROWS:
        tp = per_seed(make, n, n_test, treeple, test_offset=offset)
        rf = per_seed(make, n, n_test, sklearn_rf, test_offset=offset)
        print("| %s | %.4f | %s | %.4f |" % (name, np.median(tp), ", ".join("%.4f" % e for e in tp), np.median(rf)), flush=True)


# Honest vs not honest on trunk (p=10, n=2,000): mean squared difference of
# P(y=1|x) to the true posterior 1 / (1 + exp(-2 mu.x)), as
# benchmarks/papers/regression_honesty.py measures it for sporf.
def honesty():
    print()
    print("| forest (100 trees) | mean squared difference to the posterior (median) | per seed |")
    print("|---|---:|---|")
    for name, make in [("scikit-learn RandomForestClassifier", sklearn_rf),
                       ("treeple HonestForestClassifier (honest_fraction 0.5)",
                        lambda s: HonestForestClassifier(n_estimators=100, random_state=s, n_jobs=2))]:
        out = []
        for s in (0, 1, 2):
            X, y = datasets.make_trunk(2000, 10, random_state=s)
            Xt, _ = datasets.make_trunk(10_000, 10, random_state=100 + s)
            post = 1.0 / (1.0 + np.exp(-2.0 * Xt @ datasets.trunk_mean(10)))
            out.append(float(np.mean((make(s).fit(X, y).predict_proba(Xt)[:, 1] - post) ** 2)))
        print("| %s | %.5f | %s |" % (name, np.median(out), ", ".join("%.5f" % e for e in out)), flush=True)


def friedman():
    """Friedman #1 as benchmarks/papers/regression_honesty.py runs it for sporf:
    make_friedman1, 2,000 train with 50 features (5 informative), 10,000 test."""
    print()
    print("| model (100 trees) | test MSE (median) | per seed |")
    print("|---|---:|---|")
    for name, make in [("scikit-learn RandomForestRegressor (max_features=1.0)",
                        lambda s: RandomForestRegressor(n_estimators=100, random_state=s, n_jobs=2)),
                       ("treeple ObliqueRandomForestRegressor (defaults: max_features=1.0, feature_combinations=1.5)",
                        lambda s: ObliqueRandomForestRegressor(n_estimators=100, random_state=s, n_jobs=2))]:
        out = []
        for s in (0, 1, 2):
            X, y = make_friedman1(2000, n_features=50, random_state=s)
            Xt, yt = make_friedman1(10_000, n_features=50, random_state=100 + s)
            out.append(float(np.mean((make(s).fit(X, y).predict(Xt) - yt) ** 2)))
        print("| %s | %.3f | %s |" % (name, np.median(out), ", ".join("%.3f" % e for e in out)), flush=True)


if __name__ == "__main__":
    sections = {"simulations": simulations, "honesty": honesty, "friedman": friedman}
    for name in sys.argv[1:] or list(sections):
        if name not in sections:
            sys.exit("unknown section %r; choose from %s" % (name, ", ".join(sections)))
        sections[name]()
