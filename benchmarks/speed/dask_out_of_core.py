"""Training on data larger than any worker: a Dask array 4x a worker's
memory limit, never gathered.

    python benchmarks/speed/dask_out_of_core.py [--rows 12500000] [--trees 20] [--max-samples 40000]

A LocalCluster of 2 worker processes, one thread and a 500 MB memory limit
each. X: rows x 20 float64 standard normals, generated lazily by Dask (seeded)
in partitions of 250,000 rows -- 2.0 GB at the default 12.5M rows, 4x a
worker's limit; y = [x0 + x1 x2 > 0], computed lazily from X. The forest:
SPORFClassifier's defaults with max_samples rows drawn per tree, fitted by
sporf.distributed.fit from the Dask array, then 200,000 new rows predicted
lazily. Against it: the local fit of the same sample size (max_samples rows
in memory, the same trees) on one thread. Reported: time per tree (wall
time x worker threads / trees), peak memory per worker (the worker
processes' peak RSS), and both forests' test errors.
"""
import argparse
import resource
import time

import numpy as np

import sporf
import sporf.distributed


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def make(rows, seed, chunk=250_000):
    import dask.array as da

    X = da.random.RandomState(seed).standard_normal((rows, 20), chunks=(chunk, 20))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)
    return X, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=12_500_000)
    ap.add_argument("--trees", type=int, default=20)
    ap.add_argument("--max-samples", type=int, default=40_000)
    a = ap.parse_args()
    from distributed import Client, LocalCluster

    Xt, yt = make(200_000, 1)
    Xt_np, yt_np = Xt.compute(), yt.compute()
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="500MB", processes=True,
                      dashboard_address=":0", silence_logs=50) as cluster, Client(cluster) as client:
        X, y = make(a.rows, 0)
        print("X: %d x %d float64, %.2f GB, %d partitions; workers: 2 x 500 MB"
              % (X.shape[0], X.shape[1], X.nbytes / 1e9, X.numblocks[0]))
        est = sporf.SPORFClassifier(n_estimators=a.trees, max_samples=a.max_samples, random_state=0)
        t0 = time.perf_counter()
        sporf.distributed.fit(est, X, y, client=client)
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        lazy = est.predict(Xt)
        pred = lazy.compute()
        pred_s = time.perf_counter() - t0
        peaks = client.run(peak_rss_mb)
    # the local forest of the same size: max_samples rows in memory
    Xs, ys = make(a.max_samples, 2)
    local = sporf.SPORFClassifier(n_estimators=a.trees, random_state=0, n_jobs=1)
    t0 = time.perf_counter()
    local.fit(Xs.compute(), ys.compute())
    local_s = time.perf_counter() - t0
    print()
    print("| forest | time per tree (s) | peak memory per worker (MB) | test error |")
    print("|---|---:|---:|---:|")
    print("| from the Dask array (%d rows, max_samples=%d) | %.2f | %s | %.4f |"
          % (a.rows, a.max_samples, fit_s * 2 / a.trees, " / ".join("%.0f" % v for v in peaks.values()),
             np.mean(pred != yt_np)))
    print("| local, %d rows in memory | %.2f | - | %.4f |"
          % (a.max_samples, local_s / a.trees, np.mean(local.predict(Xt_np) != yt_np)))
    print()
    print("fit %.1f s on the cluster; lazy prediction of %d rows %.1f s" % (fit_s, len(yt_np), pred_s))


if __name__ == "__main__":
    main()
