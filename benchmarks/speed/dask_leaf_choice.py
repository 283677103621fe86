"""What the leaf size chosen out of bag costs a cluster fit: sporf.distributed.fit
of SPORFClassifier's defaults (min_samples_leaf="auto": every shard task returns
its trees' nodes and every row's out-of-bag sums, the client adds them, chooses
and prunes) against the same fit with a fixed leaf size of 2 rows (the size
"auto" grows its trees to on more than 5,000 rows), on a LocalCluster of 2
worker processes of 1 thread, and the same two fits locally with n_jobs=2.

    python benchmarks/speed/dask_leaf_choice.py [--repeats 3] [--trees 100] [--rows 30000]
        [--out benchmarks/results/dask_leaf_choice.md]

Runs are interleaved and each configuration's median is reported. The Dask
fit of the defaults is checked to be the local fit byte for byte.
"""
import argparse
import os
import platform
import statistics
import time

from sklearn.datasets import make_classification

import sporf
import sporf.distributed as sd

from dask_scaling import cpu_name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "results",
                                                  "dask_leaf_choice.md"))
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    X, y = make_classification(args.rows, 30, n_informative=10, random_state=0)
    configs = {'"auto" (default)': {}, "fixed, 2 rows": dict(min_samples_leaf=2)}
    base = dict(n_estimators=args.trees, random_state=0)
    reference = sporf.SPORFClassifier(**base, n_jobs=2).fit(X, y)

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=50)
    client = Client(cluster)
    sd.fit(sporf.SPORFClassifier(n_estimators=4, random_state=0), X[:500], y[:500], client=client)  # warm up

    times = {("cluster", k): [] for k in configs}
    times.update({("local", k): [] for k in configs})
    for _ in range(args.repeats):
        for name, kw in configs.items():
            est = sporf.SPORFClassifier(**base, **kw)
            t = time.perf_counter()
            sd.fit(est, X, y, client=client)
            times[("cluster", name)].append(time.perf_counter() - t)
            if not kw:
                assert est.to_bytes() == reference.to_bytes(), "the cluster fit differs from the local fit"
            t = time.perf_counter()
            sporf.SPORFClassifier(**base, **kw, n_jobs=2).fit(X, y)
            times[("local", name)].append(time.perf_counter() - t)
    client.close()
    cluster.close()

    med = {k: statistics.median(v) for k, v in times.items()}
    lines = [
        "# The leaf size chosen out of bag on a Dask cluster",
        "",
        "Machine: %s, %d cores, Python %s. sporf %s, dask/distributed %s." % (
            cpu_name(), os.cpu_count() or 0, platform.python_version(), sporf.__version__,
            __import__("distributed").__version__),
        "",
        "Command: `python benchmarks/speed/dask_leaf_choice.py --repeats %d --trees %d --rows %d` "
        "(make_classification %d x 30, %d trees; medians of %d interleaved runs; a LocalCluster of 2 worker "
        "processes of 1 thread, times including scattering X, the shards' bytes and the merge; the cluster "
        "fit of the defaults is the local fit's forest, byte for byte; it chose leaves of %d rows)." % (
            args.repeats, args.trees, args.rows, args.rows, args.trees, args.repeats,
            reference.min_samples_leaf_),
        "",
        "| where | leaf size | fit (s) | vs fixed | runs (s) |",
        "|---|---|---:|---:|---|",
    ]
    for where in ("cluster", "local"):
        fixed = med[(where, "fixed, 2 rows")]
        for name in configs:
            v = med[(where, name)]
            lines.append("| %s | %s | %.2f | %.2fx | %s |" % (
                where, name, v, v / fixed, ", ".join("%.2f" % t for t in times[(where, name)])))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
