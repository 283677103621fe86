# %% [markdown]
# # Isolation forests: anomalies in images and signals
#
# An isolation forest (Liu, Ting and Zhou, 2008) cuts a sample of the rows at
# random until every row stands alone: anomalies, few and different, are
# isolated in fewer cuts, so a row's mean depth over the trees scores it.
# `SPORFIsolation` cuts sparse oblique projections (a few features, each over
# its spread in the node), `projection="axis"` single features (the paper's
# forest), and `MORFIsolation` patches of an image or a signal.
#
# Here: images of one digit with a few of other digits mixed in, and noise
# signals with a few impulses in them. We score every row of each set
# without its labels and measure how well the scores rank the planted
# anomalies first (AUROC; 0.5 is chance).

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score

import sporf
from sporf.datasets import make_impulse

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
TREES = 50 if FAST else 200
SEEDS = 1 if FAST else 3
SHARE = 0.05  # anomalies among the rows

# %% [markdown]
# ## Digits: one class, and a few images of the others
#
# For each digit d: its images are the ordinary rows, and 5% as many images
# of the other digits, drawn at random, are the anomalies.

# %%
X, y = load_digits(return_X_y=True)
images = X.reshape(-1, 8, 8)


def digit_task(d, seed):
    rng = np.random.default_rng(seed)
    normal = np.flatnonzero(y == d)
    odd = rng.choice(np.flatnonzero(y != d), int(round(SHARE * len(normal))), replace=False)
    rows = np.concatenate([normal, odd])
    return rows, np.r_[np.zeros(len(normal)), np.ones(len(odd))]


MODELS = {
    "sporf (sparse oblique)": lambda s: sporf.SPORFIsolation(n_estimators=TREES, random_state=s),
    "sporf axis": lambda s: sporf.SPORFIsolation(n_estimators=TREES, projection="axis", random_state=s),
    "MORF patches": lambda s: sporf.MORFIsolation(n_estimators=TREES, random_state=s),
    "scikit-learn IsolationForest": lambda s: IsolationForest(n_estimators=TREES, random_state=s),
}
auroc = {name: [] for name in MODELS}
seconds = {name: 0.0 for name in MODELS}
for d in range(10):
    for seed in range(SEEDS):
        rows, label = digit_task(d, seed)
        for name, make in MODELS.items():
            data = images[rows] if name == "MORF patches" else X[rows]
            t0 = time.perf_counter()
            score = -make(seed).fit(data).score_samples(data)
            seconds[name] += time.perf_counter() - t0
            auroc[name].append(roc_auc_score(label, score))
for name in MODELS:
    print("%-30s mean AUROC %.3f   fit + score %.2f s in all" % (name, np.mean(auroc[name]), seconds[name]))

# %% [markdown]
# The scores of one task: the ten images each forest finds most abnormal
# among the zeros (a red frame marks an image of another digit).

# %%
rows, label = digit_task(0, 0)
forest = sporf.MORFIsolation(n_estimators=TREES, random_state=0).fit(images[rows])
top = np.argsort(forest.score_samples(images[rows]))[:10]
fig, axes = plt.subplots(1, 10, figsize=(11, 1.5))
for ax, i in zip(axes, top):
    ax.imshow(images[rows][i], cmap="gray_r")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_color("red" if label[i] else "grey")
        side.set_linewidth(3 if label[i] else 1)
fig.suptitle("MORFIsolation: the ten most abnormal of the zeros")
fig.tight_layout()

# %% [markdown]
# ## Signals: noise, and a few impulses
#
# `make_impulse` draws white noise and, for its class 1, noise plus a step
# at t = 20 decaying over 30 steps. The ordinary rows are noise; 3% carry an
# impulse. A single time step tells little (the impulse is at most one unit
# against noise of one unit); a patch of neighbouring steps sums it. Patch
# sums (`patch_weights="uniform"`) suit a bump; the default "haar" patches
# also contrast halves, for edges and slopes.

# %%
MODELS["MORF patch sums"] = lambda s: sporf.MORFIsolation(n_estimators=TREES, patch_weights="uniform", random_state=s)
aur = {name: [] for name in ["sporf (sparse oblique)", "sporf axis", "MORF patches", "MORF patch sums"]}
for seed in range(SEEDS):
    Xs, ys = make_impulse(2000, decay=30.0, random_state=seed)
    rng = np.random.default_rng(seed)
    keep = np.concatenate([np.flatnonzero(ys == 0), rng.choice(np.flatnonzero(ys == 1), 30, replace=False)])
    Xs, ys = Xs[keep], ys[keep]
    for name in aur:
        score = -MODELS[name](seed).fit(Xs).score_samples(Xs)
        aur[name].append(roc_auc_score(ys, score))
for name, values in aur.items():
    print("%-24s mean AUROC %.3f" % (name, np.mean(values)))

# %% [markdown]
# ## Labels and the threshold
#
# `predict` labels a row -1 (an outlier) when its score passes `offset_`:
# the paper's 0.5 by default (`contamination="auto"`), or, with a share, the
# training rows' score above which that share lies. The model file keeps the
# threshold, so a loaded forest labels rows alike (in R too:
# `predict(fit, x, type = "outlier")`).

# %%
rows, label = digit_task(3, 0)
forest = sporf.SPORFIsolation(n_estimators=TREES, contamination=SHARE, random_state=0).fit(X[rows])
flagged = forest.predict(X[rows]) == -1
print("flagged %d of %d rows; %d of the %d anomalies among them"
      % (flagged.sum(), len(rows), int((flagged & (label == 1)).sum()), int(label.sum())))
again = sporf.load(forest.to_bytes())
print("the loaded forest labels alike:", bool((again.predict(X[rows]) == forest.predict(X[rows])).all()))
