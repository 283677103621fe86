"""sporf against its peers: fit time, batch and single-row prediction, model
size, peak memory and test error.

Every run is a fresh process (so its peak resident memory is its own), runs
are interleaved (each repeat runs every model once, in turn) and the tables
report medians over the repeats. All forests grow 100 fully grown trees with
bootstrap samples and sqrt(p) candidates per node; the oblique ones draw
sparse projections with 1.5 non-zeros on average.

Peers and where they run:
  scikit-learn RF and ExtraTrees, sporf, ydf (pip install ydf)  -- this Python
  treeple 0.10.3 (oblique and patch forests)                     -- its own venv
      python3 -m venv /tmp/treeple-venv
      /tmp/treeple-venv/bin/pip install treeple==0.10.3 scikit-learn==1.6.1
  ranger (Debian's r-cran-ranger)                                -- Rscript

    python benchmarks/peers/peers.py [--repeats 3] [--datasets a,b] [--quick]

Writes the tables to benchmarks/results/peers.md (and the raw runs to
peers.json); benchmarks/notes/peers.md quotes them.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/
DATA = os.environ.get("SPORF_BENCH_DATA", "/tmp/sporf_bench")
TREEPLE_PY = os.environ.get("TREEPLE_PYTHON", "/tmp/treeple-venv/bin/python")
TREES = 100


# ---------------------------------------------------------------- datasets
def make_datasets(names, quick):
    """Write each dataset once as raw little-endian float64 files that every
    worker (Python or R) reads."""
    from sklearn.datasets import load_digits, make_classification

    import sporf.datasets as sd

    def mc(n_train, n_test, p, seed):
        X, y = make_classification(n_samples=n_train + n_test, n_features=p, n_informative=min(p, 20),
                                   n_redundant=min(p // 5, 10), random_state=seed)
        return X[:n_train], y[:n_train], X[n_train:], y[n_train:]

    def sim(make, n_train, n_test, p):
        Xtr, ytr = make(n_train, p, random_state=1)
        Xte, yte = make(n_test, p, random_state=2)
        return Xtr, ytr, Xte, yte

    def digits():
        X, y = load_digits(return_X_y=True)
        rng = np.random.default_rng(0)
        idx = rng.permutation(len(y))
        return X[idx[:1200]], y[idx[:1200]], X[idx[1200:]], y[idx[1200:]]

    scale = 10 if quick else 1
    recipes = {
        "sparse_parity": (lambda: sim(sd.make_sparse_parity, 5000 // scale, 5000 // scale, 20), None),
        "orthant": (lambda: sim(sd.make_orthant, 2000 // scale, 5000 // scale, 6), None),
        "digits": (digits, (8, 8)),
        "mc_100k_30": (lambda: mc(100_000 // scale, 20_000 // scale, 30, 0), None),
        "mc_20k_784": (lambda: mc(20_000 // scale, 5_000 // scale, 784, 1), (28, 28)),
    }
    os.makedirs(DATA, exist_ok=True)
    meta = {}
    for name in names:
        make, grid = recipes[name]
        Xtr, ytr, Xte, yte = make()
        for part, a in (("Xtr", Xtr), ("ytr", ytr), ("Xte", Xte), ("yte", yte)):
            np.ascontiguousarray(a, dtype="<f8").tofile(os.path.join(DATA, "%s_%s.f64" % (name, part)))
        meta[name] = {"p": int(Xtr.shape[1]), "n_train": int(len(ytr)), "n_test": int(len(yte)), "grid": grid}
    with open(os.path.join(DATA, "meta.json"), "w") as fh:
        json.dump(meta, fh)
    return meta


# ---------------------------------------------------------------- models
# name -> (runner, options); runner "py" = this interpreter, "treeple" = the
# treeple venv, "r" = Rscript.
MODELS = {
    "scikit-learn RF": ("py", {}),
    "scikit-learn ExtraTrees": ("py", {}),
    "sporf sparse": ("py", {}),
    "sporf axis": ("py", {}),
    "ydf axis": ("py", {}),
    "ydf sparse oblique": ("py", {}),
    "treeple oblique": ("treeple", {}),
    "treeple patch": ("treeple", {"needs_grid": True}),
    "ranger": ("r", {}),
}
ONE_THREAD = ("scikit-learn RF", "sporf sparse", "sporf axis")


def available(name):
    runner = MODELS[name][0]
    if runner == "treeple":
        return os.path.exists(TREEPLE_PY)
    if runner == "r":
        return shutil.which("Rscript") is not None and subprocess.run(
            ["Rscript", "-e", "library(ranger)"], capture_output=True).returncode == 0
    if name.startswith("ydf"):
        try:
            import ydf  # noqa: F401
        except ImportError:
            return False
    return True


def run_one(name, dataset, n_jobs, meta):
    runner, opts = MODELS[name]
    if opts.get("needs_grid") and not meta[dataset]["grid"]:
        return None
    if runner == "r":
        cmd = ["Rscript", os.path.join(BENCH, "helpers", "peers_worker.R"), DATA, dataset, str(n_jobs), str(TREES)]
    else:
        py = TREEPLE_PY if runner == "treeple" else sys.executable
        cmd = [py, os.path.join(BENCH, "helpers", "peers_worker.py"), DATA, dataset, name, str(n_jobs), str(TREES)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS=str(n_jobs))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        print("  %s on %s failed:\n%s" % (name, dataset, out.stderr[-2000:]), file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "%s, %d cores, Python %s" % (cpu, os.cpu_count(), platform.python_version())


def versions():
    import sklearn

    import sporf
    v = ["sporf %s" % sporf.__version__, "scikit-learn %s" % sklearn.__version__]
    try:
        import ydf
        v.append("ydf %s" % ydf.__version__)
    except ImportError:
        pass
    if os.path.exists(TREEPLE_PY):
        v.append("treeple " + subprocess.run([TREEPLE_PY, "-c", "import treeple; print(treeple.__version__)"],
                                             capture_output=True, text=True).stdout.strip())
    if shutil.which("Rscript"):
        v.append("ranger " + subprocess.run(["Rscript", "-e", "cat(as.character(packageVersion('ranger')))"],
                                            capture_output=True, text=True).stdout.strip())
    return ", ".join(v)


def table(results, dataset, meta):
    """Markdown table for one dataset: medians over repeats, ratios to
    scikit-learn RF at the same thread count."""
    rows = [r for r in results if r["dataset"] == dataset]
    keys = []
    for r in rows:
        k = (r["n_jobs"], r["model"])
        if k not in keys:
            keys.append(k)
    med = {}
    for k in keys:
        runs = [r for r in rows if (r["n_jobs"], r["model"]) == k]
        med[k] = {f: statistics.median(r[f] for r in runs)
                  for f in ("fit_s", "predict_s", "first_predict_s", "p50_ms", "p99_ms", "model_mb", "peak_mb",
                            "fit_mb", "error")}
        med[k]["n"] = len(runs)
        med[k]["nodes"] = statistics.median(r.get("nodes", 0) or 0 for r in runs)
    m = meta[dataset]
    lines = ["### %s (train %d x %d, test %d)" % (dataset, m["n_train"], m["p"], m["n_test"]), "",
             "| threads | model | fit (s) | fit vs RF | predict_proba test set (s) | predict vs RF | "
             "first predict call (s) | 1 row p50 / p99 (ms) | model (MB) | bytes per node | peak RSS (MB) | "
             "fit RSS growth (MB) | test error | runs |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k in sorted(keys, key=lambda k: (k[0], list(MODELS).index(k[1]))):
        v = med[k]
        rf = med.get((k[0], "scikit-learn RF"))
        per_node = "%.1f" % (v["model_mb"] * 1e6 / v["nodes"]) if v["nodes"] else "-"
        lines.append("| %d | %s | %.2f | %s | %.3f | %s | %.3f | %.3f / %.3f | %.2f | %s | %.0f | %.0f | %.4f | %d |" % (
            k[0], k[1], v["fit_s"], "%.2fx" % (v["fit_s"] / rf["fit_s"]) if rf else "-",
            v["predict_s"], "%.2fx" % (v["predict_s"] / rf["predict_s"]) if rf else "-", v["first_predict_s"],
            v["p50_ms"], v["p99_ms"], v["model_mb"], per_node, v["peak_mb"], v["fit_mb"], v["error"], v["n"]))
    for model in ONE_THREAD:
        if (1, model) in med and (2, model) in med:
            lines.append("")
            lines.append("%s: 1 -> 2 threads fit speed-up %.2fx." % (
                model, med[(1, model)]["fit_s"] / med[(2, model)]["fit_s"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--datasets", default="sparse_parity,orthant,digits,mc_20k_784,mc_100k_30")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--quick", action="store_true", help="datasets 10x smaller (a smoke test)")
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    args = ap.parse_args()
    names = args.datasets.split(",")
    models = [m for m in args.models.split(",") if available(m)]
    missing = [m for m in args.models.split(",") if m not in models]
    if missing:
        print("not available here, skipped: %s" % ", ".join(missing), file=sys.stderr)
    meta = make_datasets(names, args.quick)
    results = []
    for rep in range(args.repeats):
        for dataset in names:
            plan = [(m, 2) for m in models] + [(m, 1) for m in ONE_THREAD if m in models]
            for model, n_jobs in plan:
                t = time.time()
                r = run_one(model, dataset, n_jobs, meta)
                if r is None:
                    continue
                r.update(model=model, dataset=dataset, n_jobs=n_jobs, repeat=rep)
                results.append(r)
                print("rep %d %-12s %-24s threads %d: fit %.2fs predict %.3fs p50 %.3fms size %.2fMB "
                      "peak %.0fMB error %.4f (%.0fs)" % (rep, dataset, model, n_jobs, r["fit_s"], r["predict_s"],
                                                         r["p50_ms"], r["model_mb"], r["peak_mb"], r["error"],
                                                         time.time() - t), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "peers.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    doc = ["# sporf vs peers", "",
           "Machine: %s. %s." % (machine(), versions()), "",
           "Command: `python benchmarks/peers/peers.py --repeats %d%s` (medians of interleaved runs, each in a fresh "
           "process; %d trees, sqrt(p) candidates per node, fully grown; each process predicts the test set "
           "5 times: 'predict_proba test set' is the median call, 'first predict call' the first; 'fit vs RF' "
           "and 'predict vs RF' are ratios to scikit-learn's RandomForestClassifier at the same thread count; "
           "peak RSS is the whole "
           "process's, fit RSS growth is the rise of resident memory over the fit)." % (
               args.repeats, " --quick" if args.quick else "", TREES), ""]
    for dataset in names:
        doc += [table(results, dataset, meta), ""]
    with open(os.path.join(args.out, "peers.md"), "w") as fh:
        fh.write("\n".join(doc))
    print("\n".join(doc))


if __name__ == "__main__":
    main()
