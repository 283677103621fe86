"""The accuracy targets of the defaults, each a median over seeds 0, 1, 2 with
100 trees and default parameters unless --sporf says otherwise:

  mc784     make_classification, 10,000 train / 5,000 test, 784 features
            (10 informative, 5 redundant), test error
  friedman  make_friedman1 with 45 features (5 enter y, 40 noise), 1,000
            train / 10,000 test, test MSE as a ratio to scikit-learn's
            RandomForestRegressor with its defaults
  trunk     the SPORF paper's trunk, p = 100, n = 1,000, 10,000 test
  orthant   the SPORF paper's orthant, p = 6, n = 400, 10,000 test

    python benchmarks/suite/targets.py [--problems mc784,friedman,trunk,orthant]
                                 [--sporf '{"max_features": 50}'] [--peers]

--peers adds scikit-learn's RF (and ydf's sparse oblique forest on mc784,
when ydf is installed) on the same splits.
"""
import argparse
import json
import time

import numpy as np
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import sporf
from sporf.datasets import make_orthant, make_trunk

SEEDS = (0, 1, 2)


def split_mc784(s):
    X, y = make_classification(n_samples=15_000, n_features=784, n_informative=10, n_redundant=5, random_state=s)
    return X[:10_000], y[:10_000], X[10_000:], y[10_000:]


def split_friedman(s):
    X, y = make_friedman1(1_000, n_features=45, random_state=s)
    Xt, yt = make_friedman1(10_000, n_features=45, random_state=100 + s)
    return X, y, Xt, yt


def split_sim(make, n, p):
    def split(s):
        X, y = make(n, p, random_state=s)
        Xt, yt = make(10_000, p, random_state=1000 + s)
        return X, y, Xt, yt
    return split


PROBLEMS = {
    "mc784": (split_mc784, "clf"),
    "friedman": (split_friedman, "reg"),
    "trunk": (split_sim(make_trunk, 1000, 100), "clf"),
    "orthant": (split_sim(make_orthant, 400, 6), "clf"),
}


def score(kind, model, Xt, yt):
    pred = model.predict(Xt)
    return float(np.mean(pred != yt)) if kind == "clf" else float(np.mean((pred - yt) ** 2))


def ydf_sparse(X, y, s):
    import ydf
    data = {"f%d" % j: X[:, j].astype(np.float32) for j in range(X.shape[1])}
    data["label"] = y
    p = X.shape[1]
    return ydf.RandomForestLearner(label="label", num_trees=100, split_axis="SPARSE_OBLIQUE",
                                   sparse_oblique_num_projections_exponent=0.5,
                                   sparse_oblique_projection_density_factor=1.5,
                                   random_seed=s + 1, num_threads=2).train(data), p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", default="mc784,friedman,trunk,orthant")
    ap.add_argument("--sporf", default="{}", help="JSON of extra sporf parameters")
    ap.add_argument("--peers", action="store_true")
    a = ap.parse_args()
    extra = json.loads(a.sporf)
    for name in a.problems.split(","):
        split, kind = PROBLEMS[name]
        rows = {"sporf": [], "sporf time": []}
        if a.peers:
            rows.update({"RF": [], "RF time": []})
        for s in SEEDS:
            X, y, Xt, yt = split(s)
            est = (sporf.SPORFClassifier if kind == "clf" else sporf.SPORFRegressor)(
                random_state=s, n_jobs=2, **extra)
            t = time.perf_counter()
            est.fit(X, y)
            rows["sporf time"].append(time.perf_counter() - t)
            rows["sporf"].append(score(kind, est, Xt, yt))
            if a.peers:
                rf = (RandomForestClassifier if kind == "clf" else RandomForestRegressor)(random_state=s, n_jobs=2)
                t = time.perf_counter()
                rf.fit(X, y)
                rows["RF time"].append(time.perf_counter() - t)
                rows["RF"].append(score(kind, rf, Xt, yt))
                if name == "mc784":
                    try:
                        m, _ = ydf_sparse(X, y, s)
                    except ImportError:
                        continue
                    data = {"f%d" % j: Xt[:, j].astype(np.float32) for j in range(Xt.shape[1])}
                    prob = m.predict(data)
                    pred = (prob > 0.5).astype(int) if prob.ndim == 1 else prob.argmax(1)
                    rows.setdefault("ydf sparse", []).append(float(np.mean(pred != yt)))
        out = {k: round(float(np.median(v)), 4) for k, v in rows.items()}
        if a.peers and kind == "reg":
            out["sporf/RF"] = round(out["sporf"] / out["RF"], 3)
        if a.peers:
            out["time sporf/RF"] = round(out["sporf time"] / out["RF time"], 3)
        print(name, json.dumps(extra), json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
