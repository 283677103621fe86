"""MORF on the real image and signal sets of the suite's development half:
scikit-learn's digits (8 x 8 images, classification, accuracy) and meat
spectra (modeldata's meats: 100 absorbance channels, water content, R^2),
5-fold CV with fixed folds, 100 trees, n_jobs=2. MORF with patch sums
(patch_weights="uniform", the MORF paper's) and with Haar-like contrasts
("haar", MORF's default), against SPORF's defaults and scikit-learn's RF.

    Rscript benchmarks/suite/suite_data.R /tmp/sporf_suite     # the meats export
    python benchmarks/papers/morf_real.py
    python benchmarks/papers/morf_real.py --simulations         # the MORF paper's problems, both weights
"""
import os
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

import sporf

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
import suite  # noqa: E402


def models(task, dims):
    clf = task == "clf"
    morf = sporf.MORFClassifier if clf else sporf.MORFRegressor
    return {
        "MORF, patch sums": morf(data_dims=dims, patch_weights="uniform", n_jobs=2, random_state=0),
        "MORF, Haar-like (default)": morf(data_dims=dims, n_jobs=2, random_state=0),
        "SPORF defaults": (sporf.SPORFClassifier if clf else sporf.SPORFRegressor)(n_jobs=2, random_state=0),
        "scikit-learn RF": (RandomForestClassifier if clf else RandomForestRegressor)(n_jobs=2, random_state=0),
    }


def simulations():
    """Test error of MORF with patch sums and Haar-like patches on the MORF
    paper's problems (morf_simulations.PROBLEMS' settings), medians of seeds 0-2."""
    import morf_simulations as ms

    print("| simulation | patch sums | Haar-like |")
    print("|---|---:|---:|")
    for name, make, n, n_test, kw in ms.PROBLEMS:
        kw = {k: v for k, v in kw.items() if k != "patch_weights"}
        medians = []
        for weights in ("uniform", "haar"):
            errors = []
            for s in (0, 1, 2):
                X, y = make(n, random_state=s)
                Xt, yt = make(n_test, random_state=1000 + s)
                dims = X.shape[1:] if X.ndim > 2 else (X.shape[1],)
                m = sporf.MORFClassifier(data_dims=dims, patch_weights=weights, random_state=s, n_jobs=2, **kw)
                m.fit(ms.flat(X), y)
                errors.append(np.mean(m.predict(ms.flat(Xt)) != yt))
            medians.append(np.median(errors))
        print("| %s | %.4f | %.4f |" % (name, medians[0], medians[1]), flush=True)


def main():
    if "--simulations" in sys.argv:
        return simulations()
    X, y = load_digits(return_X_y=True)
    meats = os.path.join(suite.DATA, "reg__meats_water.csv")  # suite_data.R's export, not the whole suite
    if not os.path.exists(meats):
        sys.exit("no %s: run `Rscript benchmarks/suite/suite_data.R %s` first" % (meats, suite.DATA))
    a = np.loadtxt(meats, delimiter=",", skiprows=1, ndmin=2)
    Xm, ym = a[:, :-1], a[:, -1]
    cases = [("digits (accuracy)", "clf", X.astype(float), y, (8, 8), StratifiedKFold(5, shuffle=True, random_state=0)),
             ("meats water (R^2)", "reg", Xm, ym, (Xm.shape[1],), KFold(5, shuffle=True, random_state=0))]
    names = list(models("clf", (8, 8)))
    print("| data | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, task, X, y, dims, cv in cases:
        scores = [cross_val_score(m, X, y, cv=cv, scoring=None if task == "clf" else "r2").mean()
                  for m in models(task, dims).values()]
        print("| %s | %s |" % (label, " | ".join("%.4f" % s for s in scores)), flush=True)


if __name__ == "__main__":
    main()
