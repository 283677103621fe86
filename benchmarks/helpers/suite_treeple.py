"""treeple's oblique random forest on one data set of the suite (see
suite.py): every fold, the library's defaults except the thread count and
the seed. Runs in treeple's own virtual environment (it needs scikit-learn
1.6.1; see peers.py):

    /tmp/treeple-venv/bin/python suite_treeple.py CSV FOLDS TASK N_JOBS SEED

FOLDS: one fold id (0..4) per row. Prints one line per fold: fold score,
with score Cohen's kappa (clf) or R^2 (reg) -- or the single word
"unavailable" when treeple's regressor cannot run (0.10.3 with scikit-learn
1.6.1 fails in its own __sklearn_tags__).
"""
import sys

import numpy as np
from sklearn.metrics import cohen_kappa_score, r2_score
from treeple import ObliqueRandomForestClassifier, ObliqueRandomForestRegressor


def main(csv, folds, task, n_jobs, seed):
    d = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
    X, y = d[:, :-1], d[:, -1]
    fold = np.loadtxt(folds, dtype=int)
    for k in sorted(set(fold.tolist())):
        tr, te = fold != k, fold == k
        if task == "clf":
            m = ObliqueRandomForestClassifier(n_jobs=n_jobs, random_state=seed + k).fit(X[tr], y[tr].astype(int))
            s = cohen_kappa_score(y[te].astype(int), m.predict(X[te]))
        else:
            try:
                m = ObliqueRandomForestRegressor(n_jobs=n_jobs, random_state=seed + k).fit(X[tr], y[tr])
            except AttributeError as e:
                if "multi_label" not in str(e):
                    raise
                print("unavailable")
                return
            s = r2_score(y[te], m.predict(X[te]))
        print(k, s, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
