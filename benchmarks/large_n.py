"""How the defaults' fit time grows with the number of rows, up to 10 million.

    python benchmarks/large_n.py                                  # 100k ... 10M rows
    python benchmarks/large_n.py --sizes 1e5,1e6 --trees 2 --jobs 1

Each size runs in its own process: make_classification(n, 10, n_informative=6,
n_redundant=2, random_state=0) cast to float32, then SPORFClassifier's defaults
(`n_estimators=--trees`, `n_jobs=--jobs`, `random_state=0`) fit on it. The
table gives the fit time (the fastest of up to 5 runs below 3,000,000 rows,
of one above), the thread-seconds per tree, that cost divided by
n log2 n relative to the smallest size (1.00 is growth like n log n; more is
faster growth), and the process's peak resident memory (which includes the
data: 40 bytes a row as float32, and the generator's float64 matrix before it).
"""
import argparse
import json
import math
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
import numpy as np
from sklearn.datasets import make_classification
import sporf
n, trees, jobs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
X, y = make_classification(n, 10, n_informative=6, n_redundant=2, random_state=0)
X = X.astype(np.float32)
t = time.perf_counter()
sporf.SPORFClassifier(n_estimators=trees, n_jobs=jobs, random_state=0).fit(X, y)
fit = time.perf_counter() - t
print(json.dumps({"fit": fit, "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}))
"""


def run(n, trees, jobs):
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(trees), str(jobs)],
                         check=True, capture_output=True, text=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    return got["fit"], got["rss_gb"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e5,3e5,1e6,3e6,1e7", help="row counts, comma-separated")
    ap.add_argument("--trees", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    sizes = sorted(int(float(s)) for s in args.sizes.split(","))
    rows, base = [], None
    for n in sizes:
        # small sizes take a fraction of a second: the fastest of a few runs
        runs = [run(n, args.trees, args.jobs) for _ in range(min(5, max(1, round(3e6 / n))))]
        fit, rss = min(runs)
        per_tree = fit * min(args.jobs, args.trees) / args.trees
        rel = per_tree / (n * math.log2(n))
        base = base or rel
        rows.append((n, fit, per_tree, rel / base, rss))
        print(f"  n={n:,}: fit {fit:.2f} s", file=sys.stderr, flush=True)
    print(f"make_classification n x 10 (float32), {args.trees} trees of the defaults, n_jobs={args.jobs}\n")
    print("| rows | fit (s) | thread-seconds per tree | per tree / (n log2 n), relative | peak RSS (GB) |")
    print("|---:|---:|---:|---:|---:|")
    for n, fit, per_tree, rel, rss in rows:
        print(f"| {n:,} | {fit:.2f} | {per_tree:.2f} | {rel:.2f} | {rss:.2f} |")


if __name__ == "__main__":
    main()
