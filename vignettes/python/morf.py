# %% [markdown]
# # MORF: patch forests for signals and images
#
# Manifold oblique random forests (Li et al., 2021-2023) know that the features
# lie on a grid -- a time series, an image -- and draw each candidate
# projection as the sum of a random *patch* of neighbouring features. This
# document reruns the papers' three simulations and their importance figure:
# MORF against sporf's sparse oblique forest and scikit-learn's random forest,
# each with 100 trees (10 in the fast rendering CI does).

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf.datasets import make_bars, make_circle_segments, make_impulse

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
TREES = 10 if FAST else 100
N_TEST = 300 if FAST else 2000
SEEDS = [0] if FAST else [0, 1, 2]

# %% [markdown]
# ## The three simulations
#
# - **impulse response**: white noise of 100 steps; class 1 adds an
#   exponentially decaying step from step 20. MORF patches are runs of 5 to
#   30 consecutive steps.
# - **circle segments**: a circle of 100 cells with two runs of ones, of
#   lengths 5 and 5 (class 0) or 4 and 6 (class 1), at random places: both
#   classes have the same mass, only the runs' shape differs. Patches are runs
#   of 3 to 12 cells that wrap around the circle.
# - **bars**: 28 x 28 binary images of randomly placed horizontal (class 0) or
#   vertical (class 1) bars; every pixel has the same distribution in both
#   classes. Patches are 1-2 pixels by 2-9 pixels.
#
# MORF keeps the grid: `fit` takes the images (n, 28, 28) as they are.

# %%
def flat(X):
    return X.reshape(len(X), -1)


PROBLEMS = {
    "impulse (n = 100)": (make_impulse, 100, dict(min_patch_dims=5, max_patch_dims=30, max_features=1.0)),
    "circle segments (n = 200)": (make_circle_segments, 200,
                                  dict(min_patch_dims=3, max_patch_dims=12, boundary="wrap", max_features=0.5)),
    "bars 28x28 (n = 100)": (make_bars, 100, dict(min_patch_dims=(1, 2), max_patch_dims=(2, 9))),
}
errors = {}
for name, (make, n, kw) in PROBLEMS.items():
    for s in SEEDS:
        X, y = make(n, random_state=s)
        Xt, yt = make(N_TEST, random_state=100 + s)
        fits = {
            "MORF": sporf.MORFClassifier(TREES, random_state=s, n_jobs=-1, **kw).fit(X, y).predict(Xt),
            "SPORF": sporf.SPORFClassifier(TREES, random_state=s, n_jobs=-1).fit(flat(X), y).predict(flat(Xt)),
            "RF": RandomForestClassifier(TREES, random_state=s, n_jobs=-1).fit(flat(X), y).predict(flat(Xt)),
        }
        for model, pred in fits.items():
            errors.setdefault((name, model), []).append(np.mean(pred != yt))

print("| problem | MORF | SPORF | RF |")
print("|---|---:|---:|---:|")
for name in PROBLEMS:
    print("| %s | %.3f | %.3f | %.3f |" % (name, *[np.median(errors[(name, m)]) for m in ("MORF", "SPORF", "RF")]))

# %%
fig, axes = plt.subplots(1, 4, figsize=(15, 3.2), gridspec_kw=dict(width_ratios=[1.3, 1.3, 0.9, 1.6]))
Xi, yi = make_impulse(400, random_state=1)
for c, col in [(0, "tab:blue"), (1, "tab:red")]:
    axes[0].plot(Xi[yi == c][0], color=col, lw=0.5, alpha=0.5)
    axes[0].plot(Xi[yi == c].mean(axis=0), color=col, lw=2, label="class %d: one series, and the mean" % c)
axes[0].set_title("impulse")
axes[0].set_xlabel("step")
axes[0].legend(fontsize=7, loc="upper right")
Xc, yc = make_circle_segments(40, random_state=1)
rows = np.vstack([Xc[yc == 0][:4], np.full((1, Xc.shape[1]), 0.5), Xc[yc == 1][:4]])
axes[1].imshow(rows, aspect="auto", cmap="gray_r", interpolation="nearest")
axes[1].set_yticks([1.5, 6.5])
axes[1].set_yticklabels(["class 0", "class 1"])
axes[1].set_xlabel("cell on the circle")
axes[1].set_title("circle segments: 4 samples per class")
Xb, yb = make_bars(20, random_state=3)
pair = [Xb[yb == 0][0], np.ones((28, 2)) * 0.5, Xb[yb == 1][0]]
axes[2].imshow(np.hstack(pair), cmap="gray")
axes[2].set_title("bars: class 0 | class 1")
axes[2].axis("off")
names = list(PROBLEMS)
width = 0.27
for k, (model, col) in enumerate([("MORF", "tab:green"), ("SPORF", "tab:orange"), ("RF", "tab:gray")]):
    axes[3].bar(np.arange(3) + (k - 1) * width, [np.median(errors[(n, model)]) for n in names], width,
                label=model, color=col)
axes[3].set_xticks(np.arange(3))
axes[3].set_xticklabels([n.split(" (")[0] for n in names])
axes[3].set_ylabel("test error (median)")
axes[3].legend()
fig.tight_layout()

# %% [markdown]
# As in the papers, MORF's error is far below the other two on all three:
# a patch adds up a run of neighbouring steps or pixels, which is what the
# signal is made of, while single features or scattered sparse combinations
# each see mostly noise.
#
# ## Where the forests look: importance maps on digits
#
# The MORF papers show pixel importance on MNIST: a random forest's map is
# speckled, MORF's is smooth, because a patch credits a neighbourhood. The same
# on scikit-learn's 8 x 8 digits. `importance_map()` returns a MORF forest's
# importance on its grid, either impurity based or the papers' usage count
# (how often each pixel appears in the split projections).

# %%
X, y = load_digits(return_X_y=True)
n_trees = 20 if FAST else 300
maps = {
    "RF (scikit-learn)": RandomForestClassifier(n_trees, random_state=0, n_jobs=-1)
    .fit(X, y).feature_importances_.reshape(8, 8),
    "SPORF": sporf.SPORFClassifier(n_trees, random_state=0, n_jobs=-1).fit(X, y).feature_importances_.reshape(8, 8),
}
morf = sporf.MORFClassifier(n_trees, data_dims=(8, 8), max_patch_dims=(3, 3), random_state=0, n_jobs=-1).fit(X, y)
maps["MORF"] = morf.importance_map("impurity")
maps["MORF (usage count)"] = morf.importance_map("usage")


def roughness(m):
    """Mean absolute difference between 4-neighbour pixels over the map's mean: lower is smoother."""
    return float((np.abs(np.diff(m, axis=0)).mean() + np.abs(np.diff(m, axis=1)).mean()) / 2 / m.mean())


fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
for ax, (title, m) in zip(axes, maps.items()):
    im = ax.imshow(m, cmap="viridis")
    ax.set_title("%s\nroughness %.2f" % (title, roughness(m)))
    ax.axis("off")
    fig.colorbar(im, ax=ax, fraction=0.046)
fig.tight_layout()
for title, m in maps.items():
    print("%-20s roughness %.2f" % (title, roughness(m)))

# %% [markdown]
# MORF's maps are the smoothest (lowest roughness): neighbouring pixels share
# credit, and the centre of the digit, where the strokes differ, stands out.
# `sporf.plot_importance(morf)` draws such a map in one call.
