"""Missing values: sporf's learned directions against its peers' handling.

Part 1, the acceptance problem: make_classification 5,000 x 20 (8
informative), 3,000 training and 2,000 test rows, 100 trees, medians of 3
seeds, with 20% of the values missing completely at random (MCAR) and with
each feature's largest 15% hidden (not at random, MNAR): sporf's test error
against scikit-learn's RF, which learns missing values natively (1.4+).

Part 2, real data: 8 classification and 6 regression sets of the suite
(benchmarks/suite/suite.py; `Rscript benchmarks/suite/suite_data.R /tmp/sporf_suite`
exports them), each split 70/30 twice (seeds 0, 1). Values are removed from
training and test rows alike, at 10%, 30% and 50%: MCAR (each value with that
probability) and MNAR (each feature's values above the training rows'
(1 - rate) quantile). Models, every one with its defaults and 2 threads:

  sporf                 NaN learned (its split directions)
  sporf + mean          sporf after mean imputation (the training means)
  scikit-learn RF       NaN learned natively by scikit-learn's RF
  ranger + mean         ranger after mean imputation: Debian's ranger is 0.14.1,
                        before ranger's na.action = "na.learn" (0.16), and CRAN
                        is out of reach
  ydf                   ydf's RandomForestLearner, which imputes missing values
                        itself (global imputation)

Scores: Cohen's kappa (classification) and R^2 (regression); per data set and
condition the models are ranked (1 = best) and the mean ranks reported.

Part 3, MORF with missing pixels: make_bars(600, size=8, random_state=0),
flattened, the first 400 images to train; 10% of the pixels missing at random
(seed 0); MORF, scikit-learn's RF and sporf with 50 trees (test accuracy).

    python benchmarks/peers/missing.py [--part 1|2|3|all]

Results: benchmarks/results/missing.json and missing.md (benchmarks/notes/missing.md quotes
them).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
N_JOBS = 2
CLF_SETS = ["spam", "musk", "wells", "hmda", "mlc_churn", "credit_card", "two_class_dat", "cells"]
REG_SETS = ["concrete", "ames", "biomass", "cpus", "caschools", "car_prices"]
MODELS = ["sporf", "sporf + mean", "scikit-learn RF", "ranger + mean", "ydf"]


def hide_mcar(X, rate, rng):
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


def hide_top(X, cut):
    X = X.copy()
    X[X > cut] = np.nan
    return X


# ------------------------------------------------------------ part 1
def part1():
    import sporf
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    rows = {}
    for case in ["20% MCAR", "top 15% hidden"]:
        errs = {"sporf": [], "scikit-learn RF": []}
        for seed in range(3):
            X, y = make_classification(5000, 20, n_informative=8, random_state=seed)
            if case == "20% MCAR":
                X = hide_mcar(X, 0.2, np.random.default_rng(seed))
            else:
                X = hide_top(X, np.quantile(X, 0.85, axis=0))
            Xtr, ytr, Xte, yte = X[:3000], y[:3000], X[3000:], y[3000:]
            for name, model in [("sporf", sporf.SPORFClassifier(n_jobs=N_JOBS, random_state=seed)),
                                ("scikit-learn RF", RandomForestClassifier(n_jobs=N_JOBS, random_state=seed))]:
                errs[name].append(1.0 - model.fit(Xtr, ytr).score(Xte, yte))
        rows[case] = {k: {"errors": v, "median": float(np.median(v))} for k, v in errs.items()}
        print(case, {k: round(v["median"], 4) for k, v in rows[case].items()}, flush=True)
    return rows


# ------------------------------------------------------------ part 3
def part3():
    import sporf
    from sklearn.ensemble import RandomForestClassifier
    from sporf.datasets import make_bars

    X, y = make_bars(600, size=8, random_state=0)
    X = X.reshape(len(X), -1)
    Xm = X.copy()
    Xm[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    rows = {}
    for name, Z in [("complete", X), ("10% of pixels missing", Xm)]:
        models = {"MORF": sporf.MORFClassifier(n_estimators=50, data_dims=(8, 8), random_state=0),
                  "scikit-learn RF": RandomForestClassifier(n_estimators=50, random_state=0),
                  "sporf": sporf.SPORFClassifier(n_estimators=50, random_state=0)}
        rows[name] = {m: float(est.fit(Z[:400], y[:400]).score(Z[400:], y[400:])) for m, est in models.items()}
        print(name, rows[name], flush=True)
    return rows


# ------------------------------------------------------------ part 2
class MeanImputed:
    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.means = np.nan_to_num(np.nanmean(X, axis=0))
        self.model.fit(self._fill(X), y)
        return self

    def _fill(self, X):
        return np.where(np.isnan(X), self.means, X)

    def predict(self, X):
        return self.model.predict(self._fill(X))


class Ranger:
    """ranger through rpy2, in this process."""

    def __init__(self, task):
        self.task = task

    ro = None

    def fit(self, X, y):
        if Ranger.ro is None:  # once: R's start-up and the package
            import rpy2.robjects as ro
            from rpy2.robjects.packages import importr

            importr("ranger", suppress_messages=True)
            Ranger.ro = ro
        ro = self.ro
        df = self._frame(X)
        df = ro.r("function(d, y, clf) { d$target <- if (clf) factor(y) else y; d }")(
            df, ro.FloatVector(y.astype(float)), self.task == "clf")
        self.model = ro.r("function(d) ranger::ranger(target ~ ., data = d, num.threads = %d, seed = 1)" % N_JOBS)(df)
        return self

    def _frame(self, X):
        ro = self.ro
        m = ro.r.matrix(ro.FloatVector(X.ravel(order="F")), nrow=X.shape[0], ncol=X.shape[1])
        return ro.r("function(m) { d <- as.data.frame(m); names(d) <- paste0('f', seq_len(ncol(m))); d }")(m)

    def predict(self, X):
        pred = self.ro.r("function(f, d) { p <- predict(f, d)$predictions; "
                         "if (is.factor(p)) as.numeric(as.character(p)) else p }")(self.model, self._frame(X))
        return np.asarray(pred)


def make_model(name, task):
    import sporf
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from suite import YdfModel

    clf = task == "clf"
    if name == "sporf":
        return (sporf.SPORFClassifier if clf else sporf.SPORFRegressor)(n_jobs=N_JOBS, random_state=0)
    if name == "sporf + mean":
        return MeanImputed(make_model("sporf", task))
    if name == "scikit-learn RF":
        return (RandomForestClassifier if clf else RandomForestRegressor)(n_jobs=N_JOBS, random_state=0)
    if name == "ranger + mean":
        return MeanImputed(Ranger(task))
    if name == "ydf":
        return YdfModel(task, oblique=False)
    raise KeyError(name)


def split(task, y, seed):
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    return train_test_split(idx, test_size=0.3, random_state=seed, stratify=y if task == "clf" else None)


def part2(results):
    from suite import load_all, score

    sets = load_all()
    names = [s for s in CLF_SETS + REG_SETS if s in sets]
    for name in names:
        task, X, y = sets[name]
        for rep in range(2):
            tr, te = split(task, y, rep)
            for pattern in ["MCAR", "MNAR"]:
                for rate in [0.1, 0.3, 0.5]:
                    key = "%s|%d|%s|%g" % (name, rep, pattern, rate)
                    if key in results and all(m in results[key] for m in MODELS):
                        continue
                    rng = np.random.default_rng(1000 * rep + int(rate * 100))
                    if pattern == "MCAR":
                        Xtr, Xte = hide_mcar(X[tr], rate, rng), hide_mcar(X[te], rate, rng)
                    else:
                        cut = np.quantile(X[tr], 1.0 - rate, axis=0)
                        Xtr, Xte = hide_top(X[tr], cut), hide_top(X[te], cut)
                    res = results.setdefault(key, {})
                    for m in MODELS:
                        if m in res:
                            continue
                        t0 = time.perf_counter()
                        pred = make_model(m, task).fit(Xtr, y[tr]).predict(Xte)
                        res[m] = {"score": score(task, y[te], pred), "seconds": time.perf_counter() - t0}
                    print(key, {m: round(res[m]["score"], 3) for m in MODELS}, flush=True)
                    save(results)
    return results


def ranks(scores):
    order = np.argsort(-np.asarray(scores), kind="stable")
    r = np.empty(len(scores))
    s = np.asarray(scores)[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def table(results, sets_task):
    lines = ["| values removed | " + " | ".join(MODELS) + " |", "|---|" + "---:|" * len(MODELS)]
    for pattern in ["MCAR", "MNAR"]:
        for rate in [0.1, 0.3, 0.5]:
            rk, sc = [], []
            for name, task in sets_task:
                reps = [results.get("%s|%d|%s|%g" % (name, rep, pattern, rate)) for rep in range(2)]
                if any(r is None or any(m not in r for m in MODELS) for r in reps):
                    continue
                mean = [np.mean([r[m]["score"] for r in reps]) for m in MODELS]
                rk.append(ranks(mean))
                sc.append(mean)
            if not rk:
                continue
            rk, sc = np.mean(rk, axis=0), np.mean(sc, axis=0)
            best = np.argmin(rk)
            cells = ["**%.2f** (%.3f)" % (r, s) if k == best else "%.2f (%.3f)" % (r, s)
                     for k, (r, s) in enumerate(zip(rk, sc))]
            lines.append("| %s %d%% | %s |" % (pattern, int(rate * 100), " | ".join(cells)))
    return "\n".join(lines)


RESULTS = os.environ.get("SPORF_MISSING_RESULTS", os.path.join(BENCH, "results", "missing.json"))


def save(results):
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as fh:
        json.dump(results, fh, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=["1", "2", "3", "all"])
    args = ap.parse_args()
    results = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {}
    if args.part in ("1", "all"):
        results["acceptance"] = part1()
        save(results)
    if args.part in ("2", "all"):
        part2(results)
    if args.part in ("3", "all"):
        results["morf"] = part3()
        save(results)
    out = ["## Part 1: make_classification 5,000 x 20, medians of 3 seeds (test error)", "",
           "| values missing | sporf | scikit-learn RF (native NaN) |", "|---|---:|---:|"]
    for case, r in results.get("acceptance", {}).items():
        out.append("| %s | %.4f | %.4f |" % (case, r["sporf"]["median"], r["scikit-learn RF"]["median"]))
    for task, sets in [("clf", CLF_SETS), ("reg", REG_SETS)]:
        out += ["", "## Part 2: %s, mean rank (mean %s) over %d sets" % (
            "classification" if task == "clf" else "regression", "kappa" if task == "clf" else "R^2", len(sets)), "",
            table(results, [(s, task) for s in sets])]
    if "morf" in results:
        out += ["", "## Part 3: MORF with missing pixels (test accuracy)", "",
                "| data | MORF | scikit-learn RF | sporf |", "|---|---:|---:|---:|"]
        for name, r in results["morf"].items():
            out.append("| %s | %.3f | %.3f | %.3f |" % (name, r["MORF"], r["scikit-learn RF"], r["sporf"]))
    text = "\n".join(out) + "\n"
    with open(os.path.join(BENCH, "results", "missing.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
