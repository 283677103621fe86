# %% [markdown]
# # Regression and honest forests
#
# Two shorter topics: `SPORFRegressor`, the regression twin of the classifier,
# and *honest* trees, whose leaf values come from rows that did not shape the
# tree.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

import sporf
from sporf.datasets import make_trunk, trunk_mean

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
TREES = 10 if FAST else 100
N = 300 if FAST else 2000
N_TEST = 500 if FAST else 5000

# %% [markdown]
# ## Regression: Friedman #1
#
# y = 10 sin(pi x1 x2) + 20 (x3 - 1/2)^2 + 10 x4 + 5 x5 + noise, with five
# more features that do not enter y. Regressors consider half of p candidate
# projections and half of the single features per node by default
# (`max_features=0.5`, `axis_features=0.5`); `oob_score=True` gives the
# out-of-bag R^2.

# %%
X, y = make_friedman1(N, n_features=10, noise=1.0, random_state=0)
Xt, yt = make_friedman1(N_TEST, n_features=10, noise=1.0, random_state=1)
reg = sporf.SPORFRegressor(TREES, oob_score=True, random_state=0, n_jobs=-1).fit(X, y)
rf = RandomForestRegressor(TREES, random_state=0, n_jobs=-1).fit(X, y)
for name, model in [("SPORFRegressor", reg), ("scikit-learn RF", rf)]:
    print("%-16s test MSE %.2f" % (name, np.mean((model.predict(Xt) - yt) ** 2)))
print("SPORFRegressor out-of-bag R^2 %.3f" % reg.oob_score_)
print("feature importances:", np.round(reg.feature_importances_, 3))

fig, ax = plt.subplots(figsize=(4.2, 4))
ax.scatter(yt, reg.predict(Xt), s=3, alpha=0.4)
ax.plot([yt.min(), yt.max()], [yt.min(), yt.max()], "k--", lw=1)
ax.set_xlabel("true y")
ax.set_ylabel("predicted y")
ax.set_title("SPORFRegressor on Friedman #1")

# %% [markdown]
# The first five importances carry nearly all the weight: the forest found the
# features that enter y.
#
# ## Permutation importance
#
# The impurity importance above adds up how much each feature's splits
# decreased the squared error, which favours features with many distinct
# values: they offer more cuts. `importance="permutation"` also measures, on
# each tree's out-of-bag rows, how much the tree's R^2 drops when a feature's
# values are permuted among those rows (randomForest's `importance = TRUE`,
# ranger's "permutation"). Here two of the five features that enter y are
# binary (0/1), among twenty continuous noise features.

# %%
rng = np.random.default_rng(0)
Xb = rng.normal(size=(N, 25))
Xb[:, :2] = rng.integers(0, 2, (N, 2))
yb = 1.5 * Xb[:, 0] + 1.5 * Xb[:, 1] + Xb[:, 2] + Xb[:, 3] + Xb[:, 4] + rng.normal(size=N)
pim = sporf.SPORFRegressor(TREES, importance="permutation", random_state=0, n_jobs=-1).fit(Xb, yb)
print("top five, impurity:   ", np.argsort(-pim.feature_importances_)[:5])
print("top five, permutation:", np.argsort(-pim.permutation_importances_)[:5])
ax = sporf.plot_importance(pim, kind="permutation", top=10)

# %% [markdown]
# Both rankings find the five features that enter y here (oblique splits mix
# the binary features into projections that also have continuous ones). The
# permutation importance reads on its own scale -- R^2 lost, about 0 for a
# noise feature -- and the bars are one standard deviation over trees, so a
# feature whose bar reaches 0 is indistinguishable from noise. It costs about one more pass
# of prediction over the out-of-bag rows per feature a tree uses (0.8 times the
# fit's time on 30,000 x 30, benchmarks/notes/importance.md).
#
# ## Prediction intervals: quantile regression forests
#
# The forest's mean says nothing about how far y may fall from it. With
# `quantiles=True` the forest keeps, in each leaf, the training rows that fell
# there; `predict(X, quantiles=[0.1, 0.9])` then weighs every training row by
# how often it shares a leaf with the new row (Meinshausen's quantile
# regression forests, ranger's `quantreg`) and returns the quantiles of that
# weighted distribution of y. Here the noise grows with |x1|:
# y = x1 + (1 + |x1|) e, with three noise features. Leaves of at least five
# rows (ranger's default for regression) give intervals that cover closer to
# their nominal level; with leaves of one row the in-bag rows sit closer to
# the query than new rows do, and 80% intervals cover about 75%.

# %%
def heteroscedastic(n, seed):
    r = np.random.default_rng(seed)
    X = r.uniform(-3, 3, (n, 4))
    return X, X[:, 0] + (1 + np.abs(X[:, 0])) * r.standard_normal(n)


Xq, yq = heteroscedastic(N, 0)
Xq_test, yq_test = heteroscedastic(N_TEST, 1)
qrf = sporf.SPORFRegressor(TREES, quantiles=True, min_samples_leaf=5, random_state=0, n_jobs=-1).fit(Xq, yq)
q = qrf.predict(Xq_test, quantiles=[0.1, 0.5, 0.9])
inside = (yq_test >= q[:, 0]) & (yq_test <= q[:, 2])
print("share of new rows inside the 10-90%% interval: %.3f" % inside.mean())
# the interval along x1, the noise features held at 0
grid = np.zeros((200, 4))
grid[:, 0] = np.linspace(-3, 3, 200)
band = qrf.predict(grid, quantiles=[0.1, 0.5, 0.9])
fig, ax = plt.subplots(figsize=(5.5, 3.6))
ax.scatter(Xq_test[:, 0], yq_test, s=3, c="0.7", label="new rows")
ax.plot(grid[:, 0], band[:, 1], lw=1, label="median")
ax.fill_between(grid[:, 0], band[:, 0], band[:, 2], alpha=0.3, label="10-90% interval")
ax.set_xlabel("x1")
ax.set_ylabel("y")
ax.legend(loc="upper left")

# %% [markdown]
# The interval widens where the noise does, which a constant interval around
# the mean cannot. `predict(X_train, quantiles=..., oob=True)` gives each
# training row's quantiles from the trees that did not see it, for checking
# coverage without a test set. The model keeps the training responses (8 bytes
# a row) and each tree's leaf rows (a few bytes per row in the file);
# benchmarks/notes/quantiles.md compares coverage, size and time with the quantile-forest
# package and ranger.
#
# ## Categorical features
#
# A pandas `category` column needs no encoding: each level's position in an
# order learned from the response (ranger's `respect.unordered.factors =
# "order"`) is what the trees split, so a split sends a set of levels to each
# side. Read as integer codes the same column would be split in code order,
# which means nothing for an unordered factor. Here 30 levels carry the
# signal, in an order unrelated to their codes.

# %%
import pandas as pd

names = np.array(["level %02d" % k for k in range(30)])
effect = np.random.default_rng(99).normal(0, 2, 30)


def thirty_levels(n, seed):
    r = np.random.default_rng(seed)
    level = r.integers(0, 30, n)
    x = r.normal(size=(n, 2))
    frame = pd.DataFrame({"f": pd.Categorical(names[level], categories=names), "a": x[:, 0], "b": x[:, 1]})
    return frame, effect[level] + 0.5 * x[:, 0] + r.normal(size=n)


frame, yc = thirty_levels(N, 0)
frame_test, yc_test = thirty_levels(N_TEST, 1)
as_category = sporf.SPORFRegressor(TREES, random_state=0, n_jobs=-1).fit(frame, yc)
codes = frame.assign(f=frame["f"].cat.codes.astype(float))
as_codes = sporf.SPORFRegressor(TREES, random_state=0, n_jobs=-1).fit(codes, yc)
print("test MSE, category:      %.3f" % np.mean((as_category.predict(frame_test) - yc_test) ** 2))
print("test MSE, integer codes: %.3f" % np.mean((as_codes.predict(
    frame_test.assign(f=frame_test["f"].cat.codes.astype(float))) - yc_test) ** 2))
print("is_categorical_:", as_category.is_categorical_)

# %% [markdown]
# The model keeps the level names and matches a row's level by name, so the
# categories may come in any order at prediction; a level it never saw is a
# missing value and goes where each split sends missing values.
# `categorical_features=[0]` reads integer codes as levels too.
#
# ## Honest trees
#
# With `honest_fraction=0.5`, each tree's distinct in-bag rows are split in
# two: one half grows the tree, the other half fills its leaves. A leaf's
# value then does not depend on the rows that chose its splits, which is
# what honest estimation (Wager and Athey) needs for valid inference. The
# price is fewer rows per leaf. On trunk we know the true posterior
# P(y = 1 | x) = 1 / (1 + exp(-2 mu.x)), so we can see both effects: how far
# the predicted probabilities are from the truth, and how over-confident a
# forest is on the rows it was grown on.

# %%
X, y = make_trunk(N, 10, random_state=0)
Xt, yt = make_trunk(N_TEST, 10, random_state=1)
mu = trunk_mean(10)


def posterior(X):
    return 1.0 / (1.0 + np.exp(-2.0 * X @ mu))


print("| forest | mean squared distance to the posterior (test) | Brier score, training rows | Brier score, test rows |")
print("|---|---:|---:|---:|")
forests = {}
for name, kw in [("not honest", {}), ("honest_fraction=0.5", dict(honest_fraction=0.5))]:
    f = sporf.SPORFClassifier(TREES, random_state=0, n_jobs=-1, **kw).fit(X, y)
    forests[name] = f
    p_train, p_test = f.predict_proba(X)[:, 1], f.predict_proba(Xt)[:, 1]
    print("| %s | %.4f | %.4f | %.4f |" % (name, np.mean((p_test - posterior(Xt)) ** 2),
                                          np.mean((p_train - y) ** 2), np.mean((p_test - yt) ** 2)))

# %%
fig, ax = plt.subplots(figsize=(4.6, 4))
bins = np.linspace(0, 1, 11)
for name, f in forests.items():
    p = f.predict_proba(Xt)[:, 1]
    idx = np.digitize(p, bins[1:-1])
    ax.plot([p[idx == b].mean() for b in range(10) if np.any(idx == b)],
            [yt[idx == b].mean() for b in range(10) if np.any(idx == b)], "o-", label=name)
ax.plot([0, 1], [0, 1], "k--", lw=1)
ax.set_xlabel("predicted P(y = 1)")
ax.set_ylabel("observed frequency (test)")
ax.set_title("reliability on trunk")
ax.legend()

# %% [markdown]
# On its own training rows the ordinary forest is far more confident than it
# is on new rows (its training Brier score is a fraction of its test score),
# because every leaf was fitted to those rows; the honest forest's two scores
# are much closer. On new rows both are similarly calibrated: the reliability
# curves lie on each other, under-confident in the middle because averaging
# trees pulls probabilities towards 1/2. On this problem honesty costs accuracy against the true
# posterior -- half the rows grow each tree and leaves hold few rows --
# which is the usual trade: use it when you need leaf estimates that are not
# fitted to the same rows (confidence intervals, causal effects), not to win
# on test error. `honest_prior` says what a leaf that received no estimation
# row predicts ("ignore" lets the tree abstain).
