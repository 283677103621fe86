"""Multi-output y: one forest for two outputs against a forest per output,
sporf and scikit-learn's RandomForest, on outputs that share their structure
and on outputs that do not.

    python benchmarks/peers/multioutput.py [--trees 60] [--n 2000]

Problems (n training rows, n test rows, generated with fixed seeds):
  twin          regression: Friedman #1 measured twice, the second at a tenth
                of the scale, each with its own noise
  same features regression: Friedman #1 and a second function of the same
                five features
  disjoint      regression: Friedman #1 and a function of three other features
  multilabel    classification: scikit-learn's make_multilabel_classification,
                two correlated labels
  two tasks     classification: a two-class output on x0 + x1 and a three-class
                output on x2 - x3/2
For each output: the test error (MSE, or the error rate) of the multi-output
forest and of a forest grown on that output alone, the medians over two
seeds, and their difference in standard errors of the single forest's test
error (positive: the multi-output forest is worse). Fit seconds of the one
multi-output forest against the two single ones. 2 threads each.
"""
import argparse
import time

import numpy as np
from sklearn.datasets import make_friedman1, make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

import sporf


def twin(n, seed):
    X, f = make_friedman1(n, n_features=10, noise=0.0, random_state=seed)
    rng = np.random.default_rng(seed)
    return X, np.c_[f + rng.standard_normal(n), 0.1 * f + 0.1 * rng.standard_normal(n)]


def same_features(n, seed):
    X, f = make_friedman1(n, n_features=10, noise=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    g = 10 * X[:, 0] * X[:, 3] + 5 * np.cos(3 * X[:, 1]) + 8 * X[:, 4] ** 2 + rng.standard_normal(n)
    return X, np.c_[f, g]


def disjoint(n, seed):
    X, f = make_friedman1(n, n_features=10, noise=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    g = 3 * X[:, 5] * X[:, 6] + np.sin(4 * X[:, 7]) + 0.3 * rng.standard_normal(n)
    return X, np.c_[f, g]


def multilabel(n, seed):
    X, Y = make_multilabel_classification(2 * n, n_features=10, n_classes=2, n_labels=1, random_state=0)
    return (X[:n], Y[:n]) if seed % 2 == 0 else (X[n:], Y[n:])


def two_tasks(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    return X, np.c_[(X[:, 0] + X[:, 1] > 0).astype(int), np.digitize(X[:, 2] - 0.5 * X[:, 3], [-0.6, 0.6])]


PROBLEMS = [("twin", twin, False), ("same features", same_features, False), ("disjoint", disjoint, False),
            ("multilabel", multilabel, True), ("two tasks", two_tasks, True)]


def model(lib, classification, trees, seed):
    if lib == "sporf":
        cls = sporf.SPORFClassifier if classification else sporf.SPORFRegressor
        return cls(n_estimators=trees, random_state=seed, n_jobs=2)
    cls = RandomForestClassifier if classification else RandomForestRegressor
    return cls(n_estimators=trees, random_state=seed, n_jobs=2)


def losses(pred, y, classification):
    return (pred != y).astype(float) if classification else (pred - y) ** 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", type=int, default=60)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    print("| problem | model | output | multi-output error | single-output error | difference / SE | "
          "fit s (one multi / two single) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, make, classification in PROBLEMS:
        X, Y = make(args.n, 0)
        Xt, Yt = make(args.n, 1)
        for lib in ["sporf", "sklearn"]:
            multi, single, t_multi, t_single = [], [[], []], 0.0, 0.0
            for seed in range(2):
                t = time.perf_counter()
                m = model(lib, classification, args.trees, seed).fit(X, Y)
                t_multi += time.perf_counter() - t
                multi.append(losses(m.predict(Xt), Yt, classification))
                for j in range(2):
                    t = time.perf_counter()
                    s = model(lib, classification, args.trees, seed).fit(X, Y[:, j])
                    t_single += time.perf_counter() - t
                    single[j].append(losses(s.predict(Xt), Yt[:, j], classification))
            for j in range(2):
                em = np.median([loss[:, j].mean() for loss in multi])
                es = np.median([loss.mean() for loss in single[j]])
                se = np.mean([loss.std() / np.sqrt(len(loss)) for loss in single[j]])
                print("| %s | %s | %d | %.4g | %.4g | %+.1f | %s |"
                      % (name, lib, j + 1, em, es, (em - es) / se,
                         "%.2f / %.2f" % (t_multi / 2, t_single / 2) if j == 0 else ""))


if __name__ == "__main__":
    main()
