"""A categorical feature with many unordered levels: sporf reading it as a
category against the same forest on its integer codes, and ranger with
respect.unordered.factors = "order".

    python benchmarks/peers/categorical.py [--seeds 5] [--trees 100]

Data: a 30-level factor whose level effects are in an order unrelated to
the codes (normal with sd 2, drawn per seed), a numeric feature with half the weight and two
noise features; regression (y = effect + 0.5 x + noise), two classes (the
sign of it) and three classes (its terciles). 2,000 training and 5,000 test
rows per seed. Reported: test MSE (regression) or error rate, mean and
standard error over seeds; every model has the same trees and two threads.
Each runs with its defaults; ranger's leaves hold at least 5 rows in
regression (min.node.size), so sporf with min_samples_leaf=5 is shown too.
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import pandas as pd

import sporf

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
NAMES = np.array(["lv%02d" % k for k in range(30)])


def data(n, seed, task):
    rng = np.random.default_rng(seed)
    effect = np.random.default_rng(1000 + seed % 500).normal(0, 2, 30)  # the test rows (seed + 500) share it
    level = rng.integers(0, 30, n)
    x = rng.normal(size=(n, 3))
    score = effect[level] + 0.5 * x[:, 0] + rng.normal(size=n)
    if task == "regression":
        y = score
    elif task == "two classes":
        y = np.where(score > 0, "b", "a")
    else:
        y = np.array(["a", "b", "c"])[np.digitize(score, [-1.5, 1.5])]
    frame = pd.DataFrame({"f": pd.Categorical(NAMES[level], categories=NAMES), "a": x[:, 0], "b": x[:, 1],
                          "c": x[:, 2]})
    return frame, np.column_stack([level, x]).astype(float), y


def error(task, y, pred):
    return float(np.mean((pred - y) ** 2)) if task == "regression" else float(np.mean(pred != y))


def run_ranger(frame, y, frame_t, task, trees):
    with tempfile.TemporaryDirectory() as d:
        frame.assign(f=frame["f"].astype(str), y=y).to_csv(os.path.join(d, "train.csv"), index=False)
        frame_t.assign(f=frame_t["f"].astype(str)).to_csv(os.path.join(d, "test.csv"), index=False)
        subprocess.run(["Rscript", os.path.join(BENCH, "helpers", "categorical_ranger.R"), d, str(trees), "2", task], check=True)
        pred = pd.read_csv(os.path.join(d, "pred.csv"))["p"].to_numpy()
        return pred.astype(str) if task != "regression" else pred


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--trees", type=int, default=100)
    a = ap.parse_args()
    print("| task | sporf, category | sporf, category, min_samples_leaf=5 | sporf, integer codes | ranger, order |")
    print("|---|---:|---:|---:|---:|")
    for task in ("regression", "two classes", "three classes"):
        errs = {"category": [], "category, leaves of 5": [], "codes": [], "ranger": []}
        for seed in range(a.seeds):
            frame, codes, y = data(2000, seed, task)
            frame_t, codes_t, y_t = data(5000, seed + 500, task)
            est = sporf.SPORFRegressor if task == "regression" else sporf.SPORFClassifier
            kw = dict(n_estimators=a.trees, random_state=seed, n_jobs=2)
            errs["category"].append(error(task, y_t, est(**kw).fit(frame, y).predict(frame_t)))
            errs["category, leaves of 5"].append(
                error(task, y_t, est(min_samples_leaf=5, **kw).fit(frame, y).predict(frame_t)))
            errs["codes"].append(error(task, y_t, est(**kw).fit(codes, y).predict(codes_t)))
            errs["ranger"].append(error(task, y_t, run_ranger(frame, y, frame_t, task, a.trees)))
        cells = ["%.4f +- %.4f" % (np.mean(v), np.std(v) / np.sqrt(len(v))) for v in errs.values()]
        print("| %s | %s |" % (task, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
