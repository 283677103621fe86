"""Fit and batch predict_proba time: sporf vs scikit-learn's RandomForestClassifier.

Data: make_classification(n_samples=50_000, n_features=30, n_informative=10,
n_redundant=5, random_state=0), first 30,000 rows to train, last 20,000 to
predict. 100 trees, max_features="sqrt" for every model, fully grown trees.
Runs are interleaved (sklearn, sporf sparse, sporf axis, repeat) and the
median of the repeats is reported. Writes a table into benchmarks/notes/speed.md.

    python benchmarks/speed/bench_vs_sklearn.py [--repeats 3] [--output benchmarks/notes/speed.md]
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

import sporf

MARK_BEGIN = "<!-- bench_vs_sklearn:begin -->"
MARK_END = "<!-- bench_vs_sklearn:end -->"


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "%s, %d cores, Python %s, numpy %s, scikit-learn %s, sporf %s" % (
        cpu, os.cpu_count(), platform.python_version(), np.__version__,
        sklearn.__version__, sporf.__version__)


def models(n_jobs):
    return {
        "scikit-learn RF": lambda: RandomForestClassifier(
            n_estimators=100, max_features="sqrt", n_jobs=n_jobs, random_state=0),
        "sporf sparse": lambda: sporf.SPORFClassifier(
            n_estimators=100, max_features="sqrt", projection="sparse", min_samples_leaf=1, n_jobs=n_jobs,
            random_state=0),
        "sporf axis": lambda: sporf.SPORFClassifier(
            n_estimators=100, max_features="sqrt", projection="axis", min_samples_leaf=1, n_jobs=n_jobs,
            random_state=0),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--output", default=os.path.join(os.path.dirname(__file__), "..", "notes", "speed.md"))
    args = ap.parse_args()

    X, y = make_classification(n_samples=50_000, n_features=30, n_informative=10,
                               n_redundant=5, random_state=0)
    Xtr, ytr, Xte, yte = X[:30_000], y[:30_000], X[30_000:], y[30_000:]
    rows = []
    for n_jobs in (1, 2):
        fit_t = {k: [] for k in models(n_jobs)}
        pred_t = {k: [] for k in models(n_jobs)}
        acc = {}
        for rep in range(args.repeats):
            for name, make in models(n_jobs).items():
                est = make()
                t0 = time.perf_counter()
                est.fit(Xtr, ytr)
                fit_t[name].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                proba = est.predict_proba(Xte)
                pred_t[name].append(time.perf_counter() - t0)
                acc[name] = float(np.mean(est.classes_[proba.argmax(1)] == yte))
                print("n_jobs=%d rep %d %-16s fit %.2fs predict %.3fs" % (
                    n_jobs, rep, name, fit_t[name][-1], pred_t[name][-1]), file=sys.stderr)
        base_fit = statistics.median(fit_t["scikit-learn RF"])
        base_pred = statistics.median(pred_t["scikit-learn RF"])
        for name in fit_t:
            f, p = statistics.median(fit_t[name]), statistics.median(pred_t[name])
            rows.append("| %d | %s | %.2f | %.2fx | %.3f | %.2fx | %.4f |" % (
                n_jobs, name, f, f / base_fit, p, p / base_pred, acc[name]))

    table = "\n".join([
        MARK_BEGIN,
        "Machine: %s." % machine(),
        "",
        "Command: `python benchmarks/speed/bench_vs_sklearn.py --repeats %d` (medians of %d interleaved runs)." % (
            args.repeats, args.repeats),
        "",
        "| n_jobs | model | fit (s) | fit vs sklearn | predict_proba 20k rows (s) | predict vs sklearn | test accuracy |",
        "|---:|---|---:|---:|---:|---:|---:|",
        *rows,
        MARK_END,
    ])
    print(table)
    path = os.path.abspath(args.output)
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n"
    if MARK_BEGIN in text:
        head, rest = text.split(MARK_BEGIN, 1)
        text = head + table + rest.split(MARK_END, 1)[1]
    else:
        text += "\n## sporf vs scikit-learn: make_classification 30,000 x 30\n\n" + table + "\n"
    with open(path, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
