# %% [markdown]
# # SPORF on the paper's simulations
#
# Sparse projection oblique randomer forests (Tomita et al., JMLR 2020) split
# each node on sparse random combinations of the features, with weights +1 or
# -1, instead of on single features. This document reruns the paper's three
# simulations and shows where that pays:
#
# - **sparse parity**: the class is the parity of the signs of the first 3 of
#   20 features -- no single feature says anything, a sum of a few does;
# - **orthant**: the class is the orthant of 6 features -- axis-aligned by
#   construction, where oblique splits should not lose much;
# - **trunk**: two Gaussians whose means differ by 1/sqrt(j) in feature j --
#   every direction carries a little signal.
#
# Each model gets 100 trees; errors are on 5,000 fresh test points, the median
# over seeds. `SPORF_VIGNETTE_FAST=1` (what CI renders) shrinks everything.

# %%
import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
TREES = 10 if FAST else 100
N_TEST = 500 if FAST else 5000
SEEDS = [0] if FAST else [0, 1]
# orthant has 64 classes: scikit-learn warns that small training sets look like regression targets
warnings.filterwarnings("ignore", message="The number of unique classes")

# %% [markdown]
# ## Error against the number of training samples
#
# Three models per problem: sporf's sparse oblique forest, sporf with
# `projection="axis"` (Breiman's random forest), and scikit-learn's
# `RandomForestClassifier`. On sparse parity the oblique forest considers
# d = p² = 400 candidate projections per node (as in the paper); the
# axis-aligned forests consider every feature.

# %%
PROBLEMS = {
    "sparse parity (p = 20)": (make_sparse_parity, 20, [200, 500] if FAST else [500, 1000, 2000, 4000],
                               dict(max_features=400)),
    "orthant (p = 6)": (make_orthant, 6, [100, 200] if FAST else [100, 200, 400, 1000, 2000], {}),
    "trunk (p = 100)": (make_trunk, 100, [100, 200] if FAST else [100, 300, 1000, 3000], {}),
}


def models(p, kw, seed):
    axis_kw = {k: min(v, p) for k, v in kw.items()}
    return {
        "sporf (sparse oblique)": sporf.SPORFClassifier(TREES, random_state=seed, n_jobs=-1, **kw),
        "sporf (axis)": sporf.SPORFClassifier(TREES, projection="axis", random_state=seed, n_jobs=-1, **axis_kw),
        "scikit-learn RF": RandomForestClassifier(TREES, random_state=seed, n_jobs=-1, **axis_kw),
    }


errors = {}
start = time.perf_counter()
for name, (make, p, sizes, kw) in PROBLEMS.items():
    for n in sizes:
        for seed in SEEDS:
            X, y = make(n, p, random_state=seed)
            Xt, yt = make(N_TEST, p, random_state=1000 + seed)
            for label, model in models(p, kw, seed).items():
                err = np.mean(model.fit(X, y).predict(Xt) != yt)
                errors.setdefault((name, label, n), []).append(err)
print("fitted %d forests in %.0f s" % (sum(len(v) for v in errors.values()), time.perf_counter() - start))

fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
for ax, (name, (_, _, sizes, _)) in zip(axes, PROBLEMS.items()):
    for label, style in [("sporf (sparse oblique)", "o-"), ("sporf (axis)", "s--"), ("scikit-learn RF", "^:")]:
        ax.plot(sizes, [np.median(errors[(name, label, n)]) for n in sizes], style, label=label)
    ax.set_xscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(n) for n in sizes])
    ax.minorticks_off()
    ax.set_ylim(bottom=0)
    ax.set_title(name)
    ax.set_xlabel("training samples")
    ax.set_ylabel("test error")
axes[0].legend()
fig.tight_layout()

# %%
print("| problem | n | sporf sparse | sporf axis | scikit-learn RF |")
print("|---|---:|---:|---:|---:|")
for name, (_, _, sizes, _) in PROBLEMS.items():
    for n in sizes:
        row = [np.median(errors[(name, label, n)]) for label in
               ("sporf (sparse oblique)", "sporf (axis)", "scikit-learn RF")]
        print("| %s | %d | %.3f | %.3f | %.3f |" % (name, n, *row))

# %% [markdown]
# What the paper shows, and these curves reproduce: on sparse parity the
# axis-aligned forests improve slowly from chance (0.5) while the oblique
# forest's error falls to nearly zero by 4,000 samples; on orthant, a problem
# made for axis-aligned splits, the oblique forest stays close to them (with 64
# orthants as classes, the smallest training sets hold one or two samples of a
# class); on trunk, where the signal is spread thinly over 100 features,
# summing features gives the lowest error at every size.
#
# ## Which projections matter: projection importance on trunk
#
# `feature_importances_` shares each split's impurity decrease among its
# features. The SPORF paper (section 4.5) instead scores each distinct
# *projection*: `projection_importances()` sums the decrease of the splits that
# used it (a projection and its negation count as one). On trunk the first
# features carry the most signal, so the best projections should combine
# them.

# %%
X, y = make_trunk(500 if FAST else 3000, 10, random_state=0)
clf = sporf.SPORFClassifier(TREES, feature_combinations=2.0, random_state=0, n_jobs=-1).fit(X, y)
top = clf.projection_importances(top=12)


def label(pi):
    return " ".join("%s%d" % ("+" if w > 0 else "-", f + 1) for f, w in zip(pi.features, pi.weights))


for pi in top[:6]:
    print("%-14s %.3f" % (label(pi), pi.importance))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 3.8), gridspec_kw=dict(width_ratios=[1.4, 1]))
ax1.barh(range(len(top))[::-1], [pi.importance for pi in top])
ax1.set_yticks(range(len(top))[::-1])
ax1.set_yticklabels([label(pi) for pi in top])
ax1.set_xlabel("projection importance")
ax1.set_title("trunk, p = 10: the 12 most important projections")
j = np.arange(1, 11)
ax2.bar(j, clf.feature_importances_, label="feature importance")
ax2.plot(j, (1 / np.sqrt(j)) / (1 / np.sqrt(j)).sum(), "ko-", label="mean difference 1/sqrt(j), scaled")
ax2.set_xticks(j)
ax2.set_xlabel("feature j")
ax2.legend()
fig.tight_layout()

# %% [markdown]
# The leading projections are single early features and sums of them with
# matching signs (the class means differ by +1/sqrt(j) in every feature), and
# the feature importances fall off with j as the signal does.

# %% [markdown]
# ## Letting the forest choose d and λ: `tune_oob`
#
# The paper tuned the number of candidate projections d and their density λ
# by out-of-bag error. `tune_oob=True` does that within one fit: the grid is d,
# 2d and 4d, each with `feature_combinations` as given and doubled; every
# candidate grows a few trees, the better half (by out-of-bag error) grows on,
# and so on, until the last one grows the whole forest -- which is exactly the
# forest `best_params_` would grow. On sparse parity the default d = ⌈√20⌉ = 5
# is far too small; tuning finds a larger one.

# %%
X, y = make_sparse_parity(500 if FAST else 1000, 20, random_state=0)
Xt, yt = make_sparse_parity(N_TEST, 20, random_state=1000)
plain = sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1).fit(X, y)
tuned = sporf.SPORFClassifier(TREES, tune_oob=True, random_state=0, n_jobs=-1).fit(X, y)
print("default d: test error %.3f" % np.mean(plain.predict(Xt) != yt))
print("tuned %s: test error %.3f" % (tuned.best_params_, np.mean(tuned.predict(Xt) != yt)))
print("| max_features | feature_combinations | trees | out-of-bag error |")
print("|---|---:|---:|---:|")
for row in tuned.tuning_:
    print("| %s | %s | %d | %.3f |" % (row["max_features"], row["feature_combinations"], row["n_trees"], row["oob_error"]))

# %% [markdown]
# `tune_oob="structure"` chooses the forest's structure the same way: the
# parameters as given, random cuts, axis-aligned candidates (with best and
# random cuts), plain sparse projections, projections twice as dense, and
# twice as many candidates (with best and random cuts).

# %%
structured = sporf.SPORFClassifier(TREES, tune_oob="structure", random_state=0, n_jobs=-1).fit(X, y)
print("| projection | splitter | max_features | feature_combinations | trees | out-of-bag error |")
print("|---|---|---|---:|---:|---:|")
for row in structured.tuning_:
    print("| %s | %s | %s | %s | %d | %.3f |" % (row["projection"], row["splitter"], row["max_features"],
                                              row["feature_combinations"], row["n_trees"], row["oob_error"]))
print("structure chosen %s: test error %.3f" % (structured.best_params_, np.mean(structured.predict(Xt) != yt)))

# %% [markdown]
# ## Random thresholds: `splitter="random"`
#
# Extremely Randomized Trees draw each candidate's threshold uniformly between
# the node's minimum and maximum of its values instead of searching for the
# best one, and grow every tree on all the rows. `splitter="random"` applies
# that rule to every candidate kind (sparse projections, single features,
# guided projections, patches); with `bootstrap=False` the forest is
# ExtraTrees with SPORF's candidates. The trees are less correlated and
# cheaper to grow. On trunk, where the signal is spread over many features,
# random cuts of oblique candidates do well; on orthant, whose classes turn on
# exact axis-aligned thresholds and which has few rows, they cost accuracy.

# %%
print("| data | best cuts | random cuts, no bootstrap |")
print("|---|---:|---:|")
for name, make, n, p in [("trunk", make_trunk, 500 if FAST else 1000, 100), ("orthant", make_orthant, 400, 6)]:
    X, y = make(n, p, random_state=0)
    Xt, yt = make(N_TEST, p, random_state=1000)
    errors = []
    for extra in [{}, dict(splitter="random", bootstrap=False)]:
        model = sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1, **extra).fit(X, y)
        errors.append(np.mean(model.predict(Xt) != yt))
    print("| %s | %.3f | %.3f |" % (name, errors[0], errors[1]))

# %% [markdown]
# ## Learning with missing values
#
# NaN marks a missing value, in training data and in rows to predict; sporf
# learns where it goes instead of imputing it. An oblique split cannot compute
# a row's projection when one of its features is missing, so the row is
# "missing" at that split, and each split learns, by the score of its cut,
# where missing rows go: left, right, or by the projection with the missing
# features at their training means. Below, trunk with p = 10 loses values in two
# ways: completely at random (30% of all values), and not at random (each
# feature's largest 15% hidden: a missing value then means "large", which a
# learned direction can use and an imputed mean hides).

# %%
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline

rng = np.random.default_rng(0)
X, y = make_trunk(1000 if FAST else 3000, 10, random_state=0)
Xt, yt = make_trunk(N_TEST, 10, random_state=1000)


def hide(X, how):
    X = X.copy()
    if how == "30% at random":
        X[rng.random(X.shape) < 0.3] = np.nan
    else:  # each feature's largest 15%, with the training data's cut
        X[X > cut] = np.nan
    return X


cut = np.quantile(X, 0.85, axis=0)
rows = []
for how in ["30% at random", "largest 15% hidden"]:
    Xm, Xtm = hide(X, how), hide(Xt, how)
    native = sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1).fit(Xm, y)
    imputed = make_pipeline(SimpleImputer(), sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1)).fit(Xm, y)
    rows.append((how, np.mean(native.predict(Xtm) != yt), np.mean(imputed.predict(Xtm) != yt)))
complete = np.mean(sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1).fit(X, y).predict(Xt) != yt)
print("| values missing | sporf, learned | sporf after mean imputation |")
print("|---|---:|---:|")
for how, e_native, e_imputed in rows:
    print("| %s | %.3f | %.3f |" % (how, e_native, e_imputed))
print("no value missing: %.3f" % complete)

fig, ax = plt.subplots(figsize=(6, 3))
pos = np.arange(len(rows))
ax.bar(pos - 0.2, [r[1] for r in rows], 0.4, label="learned (NaN)")
ax.bar(pos + 0.2, [r[2] for r in rows], 0.4, label="mean imputation")
ax.axhline(complete, color="k", ls="--", lw=1, label="no value missing")
ax.set_xticks(pos)
ax.set_xticklabels([r[0] for r in rows])
ax.set_ylabel("test error")
ax.set_title("trunk, p = 10, with missing values")
ax.legend()
fig.tight_layout()

# %% [markdown]
# When the values are missing at random, the splits mostly impute, and the
# learned forest does about as well as imputing first. When the largest values are
# hidden, a learned side sends missing rows with the large values, where they
# belong, while an imputed mean puts them in the middle of the range: the
# learned forest is the more accurate.
# `benchmarks/notes/missing.md` compares sporf with scikit-learn's and
# ranger's native handling and with ydf on real data sets.
