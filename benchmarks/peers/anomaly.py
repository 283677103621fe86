"""Anomaly scores without labels: isolation forests on anomalies made from
rare classes of real data, each rare class standing in for the anomalies.

    python benchmarks/peers/anomaly.py [--seeds 3] [--trees 200] [--models ...] [--sets a,b]

Data: the suite's development classification sets of real data (benchmarks/suite) with at
least 300 rows, at least 3 features, mostly continuous features and a rarest
class of at least 10 rows -- chosen by those rules alone, before any model ran.
Per set and seed, the rarest class is the anomalies, every other class the
normal rows; when the rarest class is more than 5% of the rows, a random part
of it (the seed's) is kept so that anomalies are 5% of the rows (a class
that is not rare would not be anomalies). Missing values take their column's
median for every model (scikit-learn's IsolationForest takes none). Each model
is fitted on all the rows, without labels, and scores all of them; AUROC and
AUPRC of the scores against the anomaly labels, fit + score time (two
threads). Higher scores mean more abnormal for every model here.

Models: scikit-learn's IsolationForest (max_samples 256, as the paper), isotree
with its defaults (axis cuts, "ndim=1") and its extended forms (ndim=2, and
ndim = the number of features: the extended isolation forest of Hariri et
al.), all at --trees trees, and on request (--models) the forms its documentation
gives for its references (SCiForest, FCF) and its other scores (density,
adj_depth with penalize_range); sporf's isolation forest when the installed
package has one (SPORFIsolation). Results: benchmarks/results/anomaly.csv.
The sets are the suite's own and nothing else: no anomaly-benchmark archive's.
"""
import argparse
import json
import re
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(BENCH, "suite"))
sys.path.insert(0, os.path.join(BENCH, "helpers"))

ANOMALY_SHARE = 0.05
MIN_ROWS, MIN_FEATURES, MIN_RARE = 300, 3, 10


def candidate_sets():
    """The suite's development classification sets the rules above admit, by name."""
    import suite

    out = {}
    for name, (task, X, y) in sorted(suite.load_all().items()):
        if task != "clf" or suite.half_of(name) != "dev" or name.startswith("sim_"):
            continue  # real data only: the suite's simulations are left out
        if X.shape[0] < MIN_ROWS or X.shape[1] < MIN_FEATURES or suite.feature_kind(X) != "mostly continuous":
            continue
        counts = np.bincount(y.astype(int))
        counts = counts[counts > 0]
        if counts.min() < MIN_RARE or len(counts) < 2:
            continue
        out[name] = (X, y.astype(int))
    return out


def anomaly_task(X, y, seed):
    """(X, labels) of one seed: the rarest class (the lowest code on a tie) as
    anomalies, at most ANOMALY_SHARE of the rows."""
    codes, counts = np.unique(y, return_counts=True)
    rare = codes[np.argmin(counts)]
    normal, anomalous = np.flatnonzero(y != rare), np.flatnonzero(y == rare)
    most = int(round(ANOMALY_SHARE / (1 - ANOMALY_SHARE) * len(normal)))
    if len(anomalous) > most:
        anomalous = np.sort(np.random.default_rng(seed).choice(anomalous, max(most, 5), replace=False))
    rows = np.concatenate([normal, anomalous])
    Xs = X[rows].astype(float)
    med = np.nanmedian(Xs, axis=0)
    med = np.where(np.isnan(med), 0.0, med)
    Xs = np.where(np.isnan(Xs), med, Xs)
    return Xs, np.r_[np.zeros(len(normal)), np.ones(len(anomalous))]


def model_scores(name, X, seed, trees):
    """Anomaly scores (higher: more abnormal) of model `name` fitted on X."""
    if name == "scikit-learn IsolationForest":
        from sklearn.ensemble import IsolationForest
        m = IsolationForest(n_estimators=trees, random_state=seed, n_jobs=2).fit(X)
        return -m.score_samples(X)
    if name.startswith("isotree"):
        from isotree import IsolationForest
        kw = dict(ISOTREE_FORMS[name])
        if kw.get("ndim") == "p":
            kw["ndim"] = X.shape[1]
        kw["ndim"] = min(kw.get("ndim", 1), X.shape[1])
        m = IsolationForest(ntrees=trees, random_seed=seed, nthreads=2, **kw)
        return m.fit(X).predict(X)
    if name.startswith("sporf"):
        import sporf
        kw = dict(SPORF_FORMS[name] if name in SPORF_FORMS else json.loads(name[len("sporf"):]))
        if kw.get("feature_combinations") == "p":
            kw["feature_combinations"] = float(X.shape[1])
        cls = getattr(sporf, kw.pop("class", "SPORFIsolation"))
        m = cls(n_estimators=trees, random_state=seed, n_jobs=2, **kw).fit(X)
        return -m.score_samples(X)
    raise ValueError("unknown model %r" % name)


def available(name):
    if name.startswith("sporf"):
        import sporf
        return hasattr(sporf, "SPORFIsolation")
    if name.startswith("isotree"):
        try:
            import isotree  # noqa: F401
        except ImportError:
            return False
    return True


# isotree's forms: its defaults, its extended forms, and the references' settings
# its documentation gives (the tree count is --trees for every one)
ISOTREE_FORMS = {
    "isotree": {},
    "isotree ndim=2": {"ndim": 2},
    "isotree ndim=p": {"ndim": "p"},
    "isotree SCiForest": {"ndim": 2, "sample_size": 256, "coefs": "normal", "ntry": 10, "prob_pick_avg_gain": 1,
                          "penalize_range": True},
    "isotree FCF": {"ndim": 2, "sample_size": 256, "max_depth": None, "coefs": "normal", "prob_pick_pooled_gain": 1},
    "isotree density": {"scoring_metric": "density"},
    "isotree adj_depth": {"scoring_metric": "adj_depth", "penalize_range": True},
    "isotree kurtosis": {"weigh_by_kurtosis": True},
    "isotree kurtosis full depth": {"weigh_by_kurtosis": True, "max_depth": None},
    "isotree full depth": {"max_depth": None},
}
# sporf's forms (a model name "sporf {json}" gives any other keywords)
SPORF_FORMS = {
    "sporf": {},
    "sporf axis": {"projection": "axis"},
    "sporf sparse": {"projection": "sparse"},
    "sporf dense": {"projection": "gaussian", "feature_combinations": "p"},
    "sporf sparse 1": {"feature_combinations": 1.0},
    "sporf sparse 2": {"feature_combinations": 2.0},
    "sporf sparse 3": {"feature_combinations": 3.0},
}
MODELS = ["sporf", "scikit-learn IsolationForest", "isotree", "isotree ndim=2", "isotree ndim=p"]


def print_strata(df, suite_results):
    """Mean AUROC and rank of each model by the suite's strata (suite.py
    stratum_of: small = at most SMALL_ROWS rows; high signal = scikit-learn
    RF's mean CV kappa at least HIGH_SIGNAL, from suite_results when given)."""
    import suite

    results = {}
    for path in [p for p in suite_results.split(",") if p]:
        results.update(json.load(open(path)))
    per_set = df.groupby(["set", "model"])["auroc"].mean().reset_index()
    per_set["rank"] = per_set.groupby("set")["auroc"].rank(ascending=False)
    rows = df.groupby("set")["n"].first()

    def stratum(name):
        size = "small" if rows[name] <= suite.SMALL_ROWS else "large"
        rf = results.get("scikit-learn RF|%s" % name)
        signal = "" if rf is None else (", high signal" if np.mean(rf["scores"]) >= suite.HIGH_SIGNAL
                                        else ", low signal")
        return size + signal

    per_set["stratum"] = per_set["set"].map(stratum)
    print("\nBy stratum: mean AUROC / mean rank")
    for st, g in per_set.groupby("stratum"):
        t = g.groupby("model")[["auroc", "rank"]].mean().sort_values("rank")
        print("%s (%d sets): %s" % (st, g["set"].nunique(),
                                     "; ".join("%s %.3f / %.2f" % (m, r.auroc, r["rank"]) for m, r in t.iterrows())))


def main():
    from sklearn.metrics import average_precision_score, roc_auc_score

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--trees", type=int, default=200)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--sets", default="", help="comma-separated names (default: every set the rules admit)")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "anomaly.csv"))
    ap.add_argument("--suite-results", default="", help="the suite's results (JSON) whose scikit-learn RF scores "
                    "give each set's signal stratum; without them the strata are by size only")
    ap.add_argument("--strata-only", action="store_true", help="tabulate --out by stratum, fitting nothing")
    a = ap.parse_args()
    if a.strata_only:
        import pandas as pd
        print_strata(pd.read_csv(a.out), a.suite_results)
        return
    # commas inside a "sporf {json}" model's braces belong to it
    models = [m.strip() for m in re.split(r",(?![^{]*})", a.models) if m.strip() and available(m.strip())]
    sets = candidate_sets()
    if a.sets:
        sets = {k: sets[k] for k in a.sets.split(",")}
    rows = []
    for name, (X, y) in sets.items():
        for seed in range(a.seeds):
            Xs, lab = anomaly_task(X, y, seed)
            line = []
            for m in models:
                t0 = time.perf_counter()
                s = model_scores(m, Xs, seed, a.trees)
                sec = time.perf_counter() - t0
                auroc, auprc = roc_auc_score(lab, s), average_precision_score(lab, s)
                rows.append((name, Xs.shape[0], Xs.shape[1], int(lab.sum()), seed, m, auroc, auprc, sec))
                line.append("%s %.3f/%.3f" % (m, auroc, auprc))
            print("%-26s %5d x %-4d %3d anomalies, seed %d: %s" % (name, Xs.shape[0], Xs.shape[1], int(lab.sum()),
                                                                     seed, "  ".join(line)), flush=True)
    import pandas as pd
    df = pd.DataFrame(rows, columns=["set", "n", "p", "anomalies", "seed", "model", "auroc", "auprc", "seconds"])
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    df.to_csv(a.out, index=False)
    per_set = df.groupby(["set", "model"])[["auroc", "auprc", "seconds"]].mean().reset_index()
    per_set["rank"] = per_set.groupby("set")["auroc"].rank(ascending=False)
    summary = per_set.groupby("model").agg(auroc=("auroc", "mean"), auprc=("auprc", "mean"),
                                           rank=("rank", "mean"), seconds=("seconds", "mean"))
    print("\n%d sets, %d seeds, %d trees; means over sets of the seeds' means:" % (len(sets), a.seeds, a.trees))
    print(summary.sort_values("rank").to_string(float_format=lambda v: "%.4f" % v))
    print_strata(df, a.suite_results)


if __name__ == "__main__":
    main()
