"""Seed corpus for the model-loader fuzzer (tools/fuzz.sh): small models of
every kind and every model format, so mutations start from valid files.

    python tools/fuzz_seeds.py OUT_DIR
"""
import pathlib
import shutil
import sys

import numpy as np

import sporf
from sporf.datasets import make_bars, make_trunk

REPO = pathlib.Path(__file__).resolve().parent.parent


def with_missing(X):
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.25] = np.nan
    return X


def main(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    X, y = make_trunk(60, n_features=4, random_state=0)
    Xb, yb = make_bars(40, size=6, random_state=0)
    models = {
        "sparse": sporf.SPORFClassifier(n_estimators=2, max_depth=4, random_state=0).fit(X, y),
        "axis-3class": sporf.SPORFClassifier(n_estimators=2, projection="axis", random_state=0)
        .fit(X, np.arange(60) % 3),
        "gaussian-labels": sporf.SPORFClassifier(n_estimators=2, projection="gaussian", max_depth=3, random_state=0)
        .fit(X, np.where(y == 1, "yes", "no")),
        "regression": sporf.SPORFRegressor(n_estimators=2, max_depth=4, random_state=0).fit(X, X[:, 0]),
        "quantiles": sporf.SPORFRegressor(n_estimators=2, max_depth=4, quantiles=True, random_state=0)
        .fit(X, X[:, 0], sample_weight=1.0 + (X[:, 1] > 0)),
        "quantiles-honest": sporf.SPORFRegressor(n_estimators=2, max_depth=4, quantiles=True, honest_fraction=0.5,
                                                 random_state=0).fit(X, X[:, 0]),
        "categorical": sporf.SPORFClassifier(n_estimators=2, max_depth=4, categorical_features=[0], random_state=0)
        .fit(np.column_stack([np.arange(60) % 5, X[:, 1:]]), y),
        "honest-ignore": sporf.SPORFClassifier(n_estimators=2, honest_fraction=0.5, honest_prior="ignore",
                                               random_state=0).fit(X, y),
        "morf": sporf.MORFClassifier(n_estimators=2, max_depth=4, max_patch_dims=(2, 3), random_state=0).fit(Xb, yb),
        "urerf": sporf.URerF(n_estimators=2, max_depth=4, random_state=0).fit(X),
        # format 14: shards whose leaf size is "auto" keep their trees' nodes and every row's sums
        "shard": sporf.SPORFClassifier(n_estimators=1, first_tree=5, max_depth=3, random_state=0).fit(X, y),
        "shard-regression": sporf.SPORFRegressor(n_estimators=2, first_tree=0, max_depth=4, random_state=0)
        .fit(X, X[:, 0], sample_weight=1.0 + (X[:, 1] > 0)),
        "shard-quantiles": sporf.SPORFRegressor(n_estimators=1, first_tree=2, max_depth=4, quantiles=True,
                                                random_state=0).fit(X, X[:, 0]),
        "shard-two-outputs": sporf.SPORFClassifier(n_estimators=1, first_tree=1, max_depth=4, random_state=0)
        .fit(X, np.column_stack([y, np.arange(60) % 3])),
        "shard-survival": sporf.SPORFSurvival(n_estimators=1, first_tree=0, max_depth=4, min_samples_leaf="auto",
                                              random_state=0).fit(X, (np.arange(60) % 3 != 0, np.abs(X[:, 0]) + 0.1)),
        # splitter "auto": a shard's sums hold each kind's sums and squares; chosen forests number
        # their trees in the kind they kept
        "shard-kinds": sporf.SPORFClassifier(n_estimators=3, first_tree=1, max_depth=4, splitter="auto",
                                             random_state=0).fit(X, y),
        "kinds-chosen": sporf.SPORFRegressor(n_estimators=6, max_depth=4, splitter="auto", random_state=0)
        .fit(X, X[:, 0]),
        "mixed": sporf.SPORFClassifier(n_estimators=3, max_depth=4, splitter="mixed", random_state=0).fit(X, y),
        # format 11: a forest's outputs and their classes
        "two-outputs": sporf.SPORFClassifier(n_estimators=2, max_depth=4, random_state=0)
        .fit(X, np.column_stack([y, np.arange(60) % 3])),
        "two-responses": sporf.SPORFRegressor(n_estimators=2, max_depth=4, honest_fraction=0.5, random_state=0)
        .fit(X, X[:, :2]),
        # format 13: survival times, event flags, the leaves' rows and min_events_split
        "survival": sporf.SPORFSurvival(n_estimators=2, max_depth=4, random_state=0)
        .fit(X, (np.arange(60) % 3 != 0, np.abs(X[:, 0]) + 0.1), sample_weight=1.0 + (X[:, 1] > 0)),
        "survival-honest": sporf.SPORFSurvival(n_estimators=2, max_depth=4, honest_fraction=0.5, random_state=0)
        .fit(X, (np.arange(60) % 3 != 0, np.abs(X[:, 0]) + 0.1)),
        # format 15: isolation forests, their leaves' path lengths and the outlier threshold
        "isolation": sporf.SPORFIsolation(n_estimators=2, contamination=0.1, random_state=0).fit(with_missing(X)),
        "isolation-morf": sporf.MORFIsolation(n_estimators=2, max_patch_dims=(2, 3), random_state=0).fit(Xb),
        # format 8's missing-value directions, learned both ways
        "missing": sporf.SPORFClassifier(n_estimators=2, max_depth=4, random_state=0).fit(with_missing(X), y),
    }
    for name, model in models.items():
        model.save(out / ("%s.sporf" % name))
    for golden in sorted((REPO / "tests" / "golden").glob("*.sporf")):  # formats 3-7 and the current one
        shutil.copy(golden, out / ("golden-" + golden.name))
    print("wrote %d seeds to %s" % (len(models) + len(list((REPO / "tests" / "golden").glob("*.sporf"))), out))


if __name__ == "__main__":
    main(sys.argv[1])
