"""Leaf sizes mixed in one forest, or chosen out of bag, on the suite's classification sets.

    python benchmarks/suite/leaf_mix.py mix '[[1, 50], [5, 50]]'     # 50 trees with leaves of 1, 50 with 5
    python benchmarks/suite/leaf_mix.py oob '[3, 1]' --criterion kappa  # the leaf size of the best OOB kappa

The sets are the development half's and the spent confirmation halves'
classification sets that benchmarks/results hold the defaults' and scikit-learn
RF's scores for (suite.json, suite_confirm2.json, suite_confirm3.json), with the suite's folds
(suite.folds_for). `mix` fits one SPORFClassifier per [min_samples_leaf,
n_estimators] pair (random_state = its position) and averages their
probabilities weighted by their trees; `oob` fits the defaults with each leaf
size and oob_score=True and keeps the forest whose out-of-bag predictions
score best on the training folds (accuracy or Cohen's kappa). Prints the mean
kappa beside the stored defaults' and RF's, and the sets below RF's by more
than one standard error (suite.py's rule).
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]

import suite  # noqa: E402


def stored_results():
    res = {}
    for name in ("suite.json", "suite_confirm2.json", "suite_confirm3.json"):
        path = os.path.join(BENCH, "results", name)
        if os.path.exists(path):
            with open(path) as fh:
                res.update(json.load(fh))
    return res


def mixed_predict(spec, X, y, Xt):
    import sporf

    proba, classes = 0.0, None
    for j, (leaf, trees) in enumerate(spec):
        m = sporf.SPORFClassifier(n_estimators=trees, min_samples_leaf=leaf, n_jobs=suite.N_JOBS,
                                  random_state=j).fit(X, y)
        proba = proba + m.predict_proba(Xt) * trees
        classes = m.classes_
    return classes[np.argmax(proba, axis=1)]


def oob_chosen_predict(leaves, criterion, X, y, Xt):
    import sporf
    from sklearn.metrics import cohen_kappa_score

    best = None
    for leaf in leaves:
        m = sporf.SPORFClassifier(min_samples_leaf=leaf, oob_score=True, n_jobs=suite.N_JOBS,
                                  random_state=0).fit(X, y)
        d = m.oob_decision_function_
        seen = ~np.isnan(d).any(axis=1)
        pred = m.classes_[np.argmax(d[seen], axis=1)]
        s = np.mean(pred == y[seen]) if criterion == "accuracy" else cohen_kappa_score(y[seen], pred)
        if best is None or s > best[0]:
            best = (s, m)
    return best[1].predict(Xt)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["mix", "oob"])
    ap.add_argument("spec", help="mix: [[min_samples_leaf, trees], ...]; oob: [min_samples_leaf, ...]")
    ap.add_argument("--criterion", choices=["accuracy", "kappa"], default="accuracy")
    args = ap.parse_args()
    spec = json.loads(args.spec)
    warnings.filterwarnings("ignore")
    from sklearn.metrics import cohen_kappa_score

    res = stored_results()
    sets = suite.load_all()
    scores = {}
    t0 = time.time()
    for name, (task, X, y) in sorted(sets.items()):
        if task != "clf" or suite.half_of(name) != "dev" or "sporf|" + name not in res:
            continue
        fold = suite.folds_for(task, y)
        scores[name] = []
        for k in range(5):
            tr, te = fold != k, fold == k
            if args.mode == "mix":
                pred = mixed_predict(spec, X[tr], y[tr], X[te])
            else:
                pred = oob_chosen_predict(spec, args.criterion, X[tr], y[tr], X[te])
            scores[name].append(float(cohen_kappa_score(y[te], pred)))
    names = sorted(scores)

    def mean_of(model):
        return np.mean([np.mean(res[model + "|" + n]["scores"]) for n in names])

    rf = {n: res["scikit-learn RF|" + n]["scores"] for n in names}
    losses = [n for n in names if np.mean(scores[n]) < np.mean(rf[n]) - np.std(rf[n]) / np.sqrt(5)]
    print("%d sets: this forest %.4f, the defaults %.4f, scikit-learn RF %.4f (%.0f s)"
          % (len(names), np.mean([np.mean(scores[n]) for n in names]), mean_of("sporf"),
             mean_of("scikit-learn RF"), time.time() - t0))
    print("below RF by more than 1 SE on %d: %s" % (len(losses), ", ".join(losses)))


if __name__ == "__main__":
    main()
