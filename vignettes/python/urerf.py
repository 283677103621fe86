# %% [markdown]
# # URerF: neighbours on a manifold, under noise
#
# An unsupervised randomer forest (URerF; Patterson et al.) grows trees
# without labels: each node cuts the sparse projection whose best two-cluster
# split scores highest (Fast-BIC). Two points are similar when many trees put
# them in the same leaf. The paper's claim: this similarity finds the true
# neighbours on a low-dimensional manifold, and keeps finding them when many
# noise dimensions are added -- where Euclidean distance fails.
#
# We measure it as the paper does: for each point, the k = 50 most similar
# points against its 50 nearest points by *geodesic* (on-manifold) distance;
# precision at k is the share found, chance is 50 / 999.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import sporf
from sporf.datasets import make_manifold
from sporf.metrics import geodesic_precision_recall

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
N = 300 if FAST else 1000
K = 20 if FAST else 50
TREES = 20 if FAST else 100
NOISE = [0, 10] if FAST else [0, 10, 100, 1000]

# %% [markdown]
# `make_manifold` draws the paper's four shapes (a line, a helix, a sphere and
# a mixture of Gaussians) in three dimensions, appends `n_noise` Gaussian noise
# dimensions, and returns the geodesic distances too. Why noise hurts
# Euclidean neighbours: on the helix, the Euclidean distance from one point to
# the others against their geodesic distance, without and with 100 noise
# dimensions.

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
for ax, noise in zip(axes, [0, 100]):
    X, D, _ = make_manifold("helix", 600, n_noise=noise, random_state=0)
    ax.scatter(D[0], np.sqrt(((X - X[0]) ** 2).sum(1)), s=4)
    ax.set_xlabel("geodesic distance from point 0")
    ax.set_ylabel("Euclidean distance")
    ax.set_title("helix, %d noise dimensions" % noise)
fig.tight_layout()

# %% [markdown]
# ## Precision at k against the number of noise dimensions

# %%
def euclidean_similarity(X):
    sq = (X * X).sum(1)
    return -np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))


KINDS = ["linear", "helix", "sphere", "gmm"]
precision = {}
for kind in KINDS:
    for noise in NOISE:
        X, D, _ = make_manifold(kind, N, n_noise=noise, random_state=0)
        forest = sporf.URerF(n_estimators=TREES, random_state=0, n_jobs=-1).fit(X)
        S = forest.proximity(n_neighbors=K)  # sparse: each row's K most similar rows
        precision[kind, noise, "URerF"] = geodesic_precision_recall(D, S, K)[0]
        precision[kind, noise, "Euclidean"] = geodesic_precision_recall(D, euclidean_similarity(X), K)[0]

print("| simulation | noise dims | URerF | Euclidean |")
print("|---|---:|---:|---:|")
for kind in KINDS:
    for noise in NOISE:
        print("| %s | %d | %.3f | %.3f |" % (kind, noise, precision[kind, noise, "URerF"],
                                            precision[kind, noise, "Euclidean"]))

fig, axes = plt.subplots(1, 4, figsize=(15, 3.4), sharey=True)
x = [n + 1 for n in NOISE]  # a log axis: 0 noise dimensions is drawn at 1
for ax, kind in zip(axes, KINDS):
    for method, style in [("URerF", "o-"), ("Euclidean", "s--")]:
        ax.plot(x, [precision[kind, n, method] for n in NOISE], style, label=method)
    ax.axhline(K / (N - 1), color="gray", lw=0.8, ls=":", label="chance")
    ax.set_xscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([str(n) for n in NOISE])
    ax.set_xlabel("noise dimensions")
    ax.set_title(kind)
axes[0].set_ylabel("precision at k = %d" % K)
axes[0].legend()
fig.tight_layout()

# %% [markdown]
# Without noise, Euclidean distance is the right answer on the line, the
# sphere and the mixture, and URerF comes close. As noise dimensions are added,
# Euclidean precision collapses (on the line: from 1.0 to about 0.2 with 10
# noise dimensions) while URerF's falls slowly, and from 100 noise dimensions
# on it is the higher of the two on every shape: its cuts follow directions
# along which the data split into clusters, and pure noise offers none.
#
# ## Using the neighbours
#
# `kneighbors` returns each training point's most similar points (never
# itself); `transform` gives the sparse similarity graph scikit-learn's
# manifold learners take as a precomputed affinity.

# %%
X, D, _ = make_manifold("helix", N, n_noise=10, random_state=0)
forest = sporf.URerF(n_estimators=TREES, n_neighbors=10, random_state=0, n_jobs=-1).fit(X)
similarity, index = forest.kneighbors()
print("point 0: neighbours", index[0][:5], "similarities", np.round(similarity[0][:5], 2))
print("geodesic distance to them:", np.round(D[0, index[0][:5]], 3))
print("median geodesic distance from point 0:", round(float(np.median(D[0])), 3))
