"""How the defaults' fit time grows with the number of rows, up to 10 million.

    python benchmarks/speed/large_n.py                                  # 100k ... 10M rows
    python benchmarks/speed/large_n.py --sizes 1e5,1e6 --trees 2 --jobs 1
    python benchmarks/speed/large_n.py --sizes 1e6,1e7 --model sklearn  # scikit-learn's RF, for comparison

Each size runs in its own process: make_classification(n, 10, n_informative=6,
n_redundant=2, random_state=0) cast to float32, then SPORFClassifier's defaults
(`n_estimators=--trees`, `n_jobs=--jobs`, `random_state=0`) fit on it, or
with `--model sklearn` scikit-learn's RandomForestClassifier (its defaults, the
same three settings) on the same float32 X. The
table gives the fit time (the fastest of up to 5 runs below 3,000,000 rows,
of one above), the thread-seconds per tree, that cost divided by
n log2 n relative to the smallest size (1.00 is growth like n log n; more is
faster growth), the process's peak resident memory (which includes the data
generator's float64 matrix), the peak during the fit (the process with X as
float32, 40 bytes a row, and the fit), and of that the part the fit added.
"""
import argparse
import json
import math
import subprocess
import sys
import time

CHILD = r"""
import gc, json, resource, sys, time
import numpy as np
from sklearn.datasets import make_classification
import sporf
n, trees, jobs, model = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
X, y = make_classification(n, 10, n_informative=6, n_redundant=2, random_state=0)
X = X.astype(np.float32)
gc.collect()
def status_gb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1e6
# the fit's own peak: Linux resets the peak resident memory (VmHWM) to the
# current one when 5 is written to clear_refs
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = status_gb("VmRSS")
t = time.perf_counter()
if model == "sklearn":
    from sklearn.ensemble import RandomForestClassifier
    RandomForestClassifier(n_estimators=trees, n_jobs=jobs, random_state=0).fit(X, y)
else:
    sporf.SPORFClassifier(n_estimators=trees, n_jobs=jobs, random_state=0).fit(X, y)
fit = time.perf_counter() - t
print(json.dumps({"fit": fit, "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
                  "fit_peak_gb": status_gb("VmHWM"), "before_gb": before}))
"""


def run(n, trees, jobs, model):
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(trees), str(jobs), model],
                         check=True, capture_output=True, text=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    return got["fit"], got["rss_gb"], got["fit_peak_gb"], got["before_gb"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e5,3e5,1e6,3e6,1e7", help="row counts, comma-separated")
    ap.add_argument("--trees", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--model", choices=["sporf", "sklearn"], default="sporf")
    args = ap.parse_args()
    sizes = sorted(int(float(s)) for s in args.sizes.split(","))
    rows, base = [], None
    for n in sizes:
        # small sizes take a fraction of a second: the fastest of a few runs
        runs = [run(n, args.trees, args.jobs, args.model) for _ in range(min(5, max(1, round(3e6 / n))))]
        fit, rss, fit_peak, before = min(runs)
        per_tree = fit * min(args.jobs, args.trees) / args.trees
        rel = per_tree / (n * math.log2(n))
        base = base or rel
        rows.append((n, fit, per_tree, rel / base, rss, fit_peak, fit_peak - before))
        print(f"  n={n:,}: fit {fit:.2f} s", file=sys.stderr, flush=True)
    what = "scikit-learn's RandomForestClassifier" if args.model == "sklearn" else "sporf's defaults"
    print(f"make_classification n x 10 (float32), {args.trees} trees of {what}, n_jobs={args.jobs}\n")
    print("| rows | fit (s) | thread-seconds per tree | per tree / (n log2 n), relative | peak RSS (GB) "
          "| peak RSS during the fit (GB) | of which the fit's own (GB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, fit, per_tree, rel, rss, fit_peak, own in rows:
        print(f"| {n:,} | {fit:.2f} | {per_tree:.2f} | {rel:.2f} | {rss:.2f} | {fit_peak:.2f} | {own:.2f} |")


if __name__ == "__main__":
    main()
