"""MORF simulations (Li et al. 2021): test error of MORF, SPORF and
scikit-learn's RandomForestClassifier, 100 trees, medians over seeds 0, 1, 2;
then MORF's fit time against SPORF's at equal max_features, and model sizes.

    python benchmarks/papers/morf_simulations.py
"""
import os
import sys
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

import sporf
from sporf.datasets import make_bars, make_circle_segments, make_impulse

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
from reference_generators import full_row_bars  # noqa: E402

# Patch settings per problem, as the papers tune them (Li et al. 2021, appendix D),
# with the papers' patch sums (patch_weights "uniform"; MORF's default is "haar").
PROBLEMS = [
    ("impulse, n=100, 2,000 test", make_impulse, 100, 2000,
     dict(min_patch_dims=5, max_patch_dims=30, max_features=1.0, patch_weights="uniform")),
    ("circle segments, n=200, 2,000 test", make_circle_segments, 200, 2000,
     dict(min_patch_dims=3, max_patch_dims=12, boundary="wrap", max_features=0.5, patch_weights="uniform")),
    ("bars 28x28, n=100, 2,000 test", make_bars, 100, 2000,
     dict(min_patch_dims=(1, 2), max_patch_dims=(2, 9), patch_weights="uniform")),
    ("bars, the MORF authors' full-row generator, n=100, 2,000 test", full_row_bars, 100, 2000,
     dict(min_patch_dims=(1, 2), max_patch_dims=(2, 9), patch_weights="uniform")),
    ("bars, the MORF authors' full-row generator, n=50, 2,000 test", full_row_bars, 50, 2000,
     dict(min_patch_dims=(1, 2), max_patch_dims=(2, 9), patch_weights="uniform")),
]


def flat(X):
    return X.reshape(len(X), -1)


def errors(make, n, n_test, morf_kw, seeds=(0, 1, 2)):
    out = {"MORF": [], "SPORF": [], "RF": []}
    for s in seeds:
        X, y = make(n, random_state=s)
        Xt, yt = make(n_test, random_state=100 + s)
        m = sporf.MORFClassifier(random_state=s, n_jobs=2, **morf_kw).fit(X, y)
        out["MORF"].append(np.mean(m.predict(Xt) != yt))
        sp = sporf.SPORFClassifier(random_state=s, n_jobs=2).fit(flat(X), y)
        out["SPORF"].append(np.mean(sp.predict(flat(Xt)) != yt))
        rf = RandomForestClassifier(random_state=s, n_jobs=2).fit(flat(X), y)
        out["RF"].append(np.mean(rf.predict(flat(Xt)) != yt))
    return out


def digits_errors(seeds=(0, 1, 2)):
    X, y = load_digits(return_X_y=True)
    out = {"MORF": [], "SPORF": [], "RF": []}
    for s in seeds:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=s, stratify=y)
        m = sporf.MORFClassifier(data_dims=(8, 8), min_patch_dims=1, max_patch_dims=(3, 3),
                                 random_state=s, n_jobs=2).fit(Xtr, ytr)
        out["MORF"].append(np.mean(m.predict(Xte) != yte))
        out["SPORF"].append(np.mean(sporf.SPORFClassifier(random_state=s, n_jobs=2).fit(Xtr, ytr).predict(Xte) != yte))
        out["RF"].append(np.mean(RandomForestClassifier(random_state=s, n_jobs=2).fit(Xtr, ytr).predict(Xte) != yte))
    return out


def show(name, out):
    med = {k: float(np.median(v)) for k, v in out.items()}
    per = "; ".join("%s %s" % (k, ", ".join("%.4f" % e for e in v)) for k, v in out.items())
    print("| %s | %.4f | %.4f | %.4f | %s |" % (name, med["MORF"], med["SPORF"], med["RF"], per), flush=True)


def timing():
    X, y = make_bars(2000, random_state=0)
    Xf = flat(X)
    rows = []
    for d in (28, 100):
        t_m, t_s = [], []
        for rep in range(3):
            t0 = time.perf_counter()
            m = sporf.MORFClassifier(max_features=d, min_patch_dims=(1, 2), max_patch_dims=(2, 9),
                                     random_state=rep, n_jobs=1).fit(X, y)
            t_m.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            s = sporf.SPORFClassifier(max_features=d, random_state=rep, n_jobs=1).fit(Xf, y)
            t_s.append(time.perf_counter() - t0)
        info_m, info_s = m._forest.info(), s._forest.info()
        rows.append((d, np.median(t_m), np.median(t_s), info_m.n_nodes, len(m.to_bytes()), info_s.n_nodes,
                     len(s.to_bytes())))
    print()
    print("| max_features | MORF fit (s) | SPORF fit (s) | MORF / SPORF | MORF nodes | MORF model bytes "
          "| bytes/node | SPORF nodes | SPORF model bytes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d, tm, ts, nm, bm, ns, bs in rows:
        print("| %d | %.2f | %.2f | %.2fx | %d | %d | %.0f | %d | %d |" % (d, tm, ts, tm / ts, nm, bm, bm / nm, ns, bs))


if __name__ == "__main__":
    print("| problem | MORF | SPORF | RF | per seed |")
    print("|---|---:|---:|---:|---|")
    for name, make, n, n_test, kw in PROBLEMS:
        show(name, errors(make, n, n_test, kw))
    show("digits 8x8, half for training", digits_errors())
    timing()
