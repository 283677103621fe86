"""URerF on the paper's four manifolds (linear, helix, sphere, 3-component
Gaussian mixture; 1,000 points in 3 signal dimensions) with 0, 10, 100 and
1,000 added N(0, 1) noise dimensions: geodesic precision at k = 50 of URerF,
Euclidean k-NN and scikit-learn's RandomTreesEmbedding proximity, and a
figure of precision against the number of noise dimensions. Then the scale
run: the sparse top-10 neighbour graph of n = 100,000, p = 20, 100 trees,
with its peak memory.

    python benchmarks/papers/urerf_simulations.py            # table + figure + scale run
    python benchmarks/papers/urerf_simulations.py --no-scale # table + figure only

The figure is written to benchmarks/figures/urerf_precision.png.
"""
import os
import resource
import subprocess
import sys
import time

import numpy as np
from sklearn.ensemble import RandomTreesEmbedding

import sporf
from sporf.datasets import make_manifold
from sporf.metrics import geodesic_precision_recall

KINDS = ("linear", "helix", "sphere", "gmm")
NOISE = (0, 10, 100, 1000)
K = 50
N = 1000
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)  # benchmarks/: results/, figures/, helpers/


def euclidean_similarity(X):
    sq = (X * X).sum(1)
    return -np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))


def rte_similarity(X, seed):
    """RandomTreesEmbedding (100 trees, its defaults otherwise): the fraction
    of trees in which two points share a leaf."""
    E = RandomTreesEmbedding(n_estimators=100, random_state=seed, n_jobs=2).fit_transform(X)
    return (E @ E.T).toarray() / 100.0


def precision_table():
    results = {}
    print("| simulation | noise dims | URerF | Euclidean k-NN | RandomTreesEmbedding | chance | URerF fit + graph (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in KINDS:
        for noise in NOISE:
            X, D, labels = make_manifold(kind, N, n_noise=noise, random_state=0)
            t = time.perf_counter()
            S = sporf.URerF(n_estimators=100, random_state=0, n_jobs=2).fit(X).proximity(n_neighbors=K)
            seconds = time.perf_counter() - t
            row = {"URerF": geodesic_precision_recall(D, S, K)[0],
                   "Euclidean k-NN": geodesic_precision_recall(D, euclidean_similarity(X), K)[0],
                   "RandomTreesEmbedding": geodesic_precision_recall(D, rte_similarity(X, 0), K)[0]}
            if kind == "gmm":  # the components as the truth, too
                row["URerF (components)"] = geodesic_precision_recall(labels, S, K)[0]
                row["Euclidean k-NN (components)"] = geodesic_precision_recall(labels, euclidean_similarity(X), K)[0]
            results[kind, noise] = row
            print("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.1f |" % (
                kind, noise, row["URerF"], row["Euclidean k-NN"], row["RandomTreesEmbedding"], K / (N - 1),
                seconds), flush=True)
    print()
    print("Mixture with its components as the truth (chance is the share of a point's component, about 0.34):")
    print()
    print("| noise dims | URerF | Euclidean k-NN |")
    print("|---:|---:|---:|")
    for noise in NOISE:
        row = results["gmm", noise]
        print("| %d | %.3f | %.3f |" % (noise, row["URerF (components)"], row["Euclidean k-NN (components)"]))
    return results


def figure(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(14, 3.4), sharey=True)
    x = [n + 1 for n in NOISE]  # log axis: 0 noise dimensions drawn at 1
    for ax, kind in zip(axes, KINDS):
        for method, style in (("URerF", "o-"), ("Euclidean k-NN", "s--"), ("RandomTreesEmbedding", "^:")):
            ax.plot(x, [results[kind, n][method] for n in NOISE], style, label=method)
        ax.axhline(K / (N - 1), color="grey", lw=0.8, label="chance")
        ax.set_xscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([str(n) for n in NOISE])
        ax.set_title(kind)
        ax.set_xlabel("noise dimensions")
    axes[0].set_ylabel("geodesic precision at k = %d" % K)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(BENCH, "figures", "urerf_precision.png")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=110)
    print("\nfigure: %s" % os.path.relpath(out, os.path.dirname(BENCH)))


SCALE_CHILD = r"""
import resource, time, numpy as np, sporf
rng = np.random.default_rng(0)
n, p = 100_000, 20
X = rng.normal(size=(n, p))
X[:, :3] += 4.0 * rng.integers(0, 5, size=(n, 1))  # five clusters in 3 of the 20 dimensions
t = time.perf_counter()
f = sporf.URerF(n_estimators=100, n_neighbors=10, random_state=0, n_jobs=2).fit(X)
fit = time.perf_counter() - t
t = time.perf_counter()
G = f.proximity()
graph = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print("%d %.1f %.1f %.0f %d" % (n, fit, graph, peak, G.nnz))
"""


def scale_run():
    """In a fresh process, so the peak resident memory is this run's alone."""
    out = subprocess.run([sys.executable, "-c", SCALE_CHILD], check=True, capture_output=True, text=True)
    n, fit, graph, peak, nnz = out.stdout.split()
    print()
    print("| n | p | trees | fit (s) | top-10 graph (s) | peak resident memory (MB) | stored entries |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print("| %s | 20 | 100 | %s | %s | %s | %s |" % (n, fit, graph, peak, nnz))
    print("\nA dense 100,000 x 100,000 matrix of doubles would take 80,000 MB.")


if __name__ == "__main__":
    res = precision_table()
    figure(res)
    if "--no-scale" not in sys.argv:
        scale_run()
    del resource
