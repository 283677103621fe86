"""Fit throughput of sporf.distributed.fit on a Dask LocalCluster with 1 and
with 2 worker processes of 1 thread each (issue: >= 1.7x with 2 workers),
next to a plain one-thread fit in this process.

    python benchmarks/speed/dask_scaling.py [--repeats 3] [--trees 100] [--out benchmarks/results/dask.md]

Runs are interleaved (1 worker, 2 workers, local, then again) and each
configuration's median is reported. Every Dask fit is checked to be the
local fit byte for byte. Times include scattering the data and merging.
"""
import argparse
import os
import platform
import statistics
import time

import numpy as np
from sklearn.datasets import make_classification

import sporf
import sporf.distributed as sd


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "results", "dask.md"))
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    X, y = make_classification(args.rows, 30, n_informative=10, random_state=0)
    params = dict(n_estimators=args.trees, random_state=0)
    reference = sporf.SPORFClassifier(**params, n_jobs=1).fit(X, y).to_bytes()

    clusters = {w: LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=":0",
                                silence_logs=50) for w in (1, 2)}
    clients = {w: Client(c) for w, c in clusters.items()}
    for w, c in clients.items():  # warm up: imports and the extension on every worker
        sd.fit(sporf.SPORFClassifier(n_estimators=4, random_state=0), X[:500], y[:500], client=c)

    times = {"1 worker": [], "2 workers": [], "local, 1 thread": []}
    for _ in range(args.repeats):
        for w, c in clients.items():
            est = sporf.SPORFClassifier(**params)
            t = time.perf_counter()
            sd.fit(est, X, y, client=c)
            times["%d worker%s" % (w, "s" if w > 1 else "")].append(time.perf_counter() - t)
            assert est.to_bytes() == reference, "a Dask fit differs from the local fit"
        t = time.perf_counter()
        sporf.SPORFClassifier(**params, n_jobs=1).fit(X, y)
        times["local, 1 thread"].append(time.perf_counter() - t)
    for c in clients.values():
        c.close()
    for c in clusters.values():
        c.close()

    med = {k: statistics.median(v) for k, v in times.items()}
    one = med["1 worker"]
    lines = [
        "# sporf.distributed: fit throughput on a Dask LocalCluster",
        "",
        "Machine: %s, %d cores, Python %s. sporf %s, dask/distributed %s." % (
            cpu_name(), os.cpu_count() or 0, platform.python_version(), sporf.__version__,
            __import__("distributed").__version__),
        "",
        "Command: `python benchmarks/speed/dask_scaling.py --repeats %d --trees %d --rows %d` "
        "(make_classification %d x 30, %d trees, SPORFClassifier defaults; medians of %d interleaved runs; "
        "worker processes of 1 thread; times include scattering X and merging the shards; every Dask "
        "forest is byte-identical to the local fit)." % (args.repeats, args.trees, args.rows, args.rows,
                                                         args.trees, args.repeats),
        "",
        "| configuration | fit (s) | trees / s | throughput vs 1 worker | runs (s) |",
        "|---|---:|---:|---:|---|",
    ]
    for k, v in med.items():
        lines.append("| %s | %.2f | %.1f | %.2fx | %s |" % (
            k, v, args.trees / v, one / v, ", ".join("%.2f" % t for t in times[k])))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
