# %% [markdown]
# # Survival forests on a clinical trial
#
# The Mayo Clinic's trial in primary biliary cholangitis (the survival
# package's `pbc`, its 312 randomised patients): 17 clinical and laboratory
# measurements at entry, and the time to death, censored for the patients
# alive at their last visit or transplanted. `SPORFSurvival` grows an oblique
# random survival forest; we compare it with a Cox model and a random survival
# forest on a held-out half, draw the survival curves of a few patients and
# ask which measurements matter.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import sporf

FAST = os.environ.get("SPORF_VIGNETTE_FAST") == "1"
TREES = 30 if FAST else 500
# the vignettes' data folder: SPORF_VIGNETTES when the documentation builds
# run this script elsewhere, else beside it
# the vignettes' folder: SPORF_VIGNETTES when the documentation build runs this page, else beside this file
DATA = os.environ.get("SPORF_VIGNETTES") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
data = pd.read_csv(os.path.join(DATA, "data", "pbc.csv"))
X = data.drop(columns=["time", "status"])
event, time = data["status"].to_numpy(), data["time"].to_numpy(float)
print(X.shape, "patients x measurements;", event.sum(), "deaths")

# %% [markdown]
# ## A forest on half the patients
#
# `y` is the pair (event, time); a structured array of (event, time), as
# scikit-survival builds it, works too. Missing measurements (cholesterol,
# copper, triglycerides, platelets) stay missing: each split learns where
# they go. `oob_score=True` gives the out-of-bag Harrell's C.

# %%
rng = np.random.default_rng(0)
train = np.zeros(len(X), bool)
train[rng.permutation(len(X))[: len(X) // 2]] = True
forest = sporf.SPORFSurvival(n_estimators=TREES, oob_score=True, importance="permutation", random_state=0,
                             n_jobs=-1).fit(X[train], (event[train], time[train]))
print("out-of-bag C %.3f" % forest.oob_score_)
print("held-out C   %.3f" % forest.score(X[~train], (event[~train], time[~train])))

# %% [markdown]
# ## Against a Cox model and a random survival forest
#
# The integrated Brier score (IBS) averages, over times between the 25th and
# 75th percentiles of the held-out deaths, the squared error of the predicted
# survival probability against what happened (censored patients weighted by
# the inverse probability of being still under observation). Scaled against
# the Kaplan-Meier curve of the training half it is the index of prediction
# accuracy, IPA = 1 - IBS / IBS(Kaplan-Meier): 0 for a model no better than
# ignoring the measurements. scikit-survival's metrics and models serve as the
# yardstick here when it is installed.

# %%
try:
    from sksurv.ensemble import RandomSurvivalForest
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.metrics import integrated_brier_score
    from sksurv.nonparametric import kaplan_meier_estimator
except ImportError:  # scikit-survival is optional: the forest alone
    RandomSurvivalForest = None

y_all = np.array(list(zip(event.astype(bool), time)), dtype=[("event", "?"), ("time", "<f8")])
y_tr, y_te = y_all[train], y_all[~train]
times = np.linspace(*np.quantile(time[~train][event[~train] == 1], [0.25, 0.75]), 20)
Xf = X.fillna(X[train].median())  # the Cox model and scikit-survival's forest need complete rows
if RandomSurvivalForest is not None:
    x_km, s_km = kaplan_meier_estimator(y_tr["event"], y_tr["time"])
    km = np.tile(s_km[np.searchsorted(x_km, times, side="right") - 1], (len(y_te), 1))
    ibs_km = integrated_brier_score(y_tr, y_te, km, times)
    cox = CoxPHSurvivalAnalysis(alpha=1e-4).fit(Xf[train], y_tr)
    rsf = RandomSurvivalForest(n_estimators=TREES, min_samples_leaf=3, random_state=0, n_jobs=-1).fit(Xf[train], y_tr)
    rows = [("SPORFSurvival", forest.predict_survival_function(X[~train], return_array=True, times=times),
             forest.predict(X[~train])),
            ("Cox model", np.vstack([f(times) for f in cox.predict_survival_function(Xf[~train])]),
             cox.predict(Xf[~train])),
            ("random survival forest", np.vstack([f(times) for f in rsf.predict_survival_function(Xf[~train])]),
             rsf.predict(Xf[~train]))]
    for name, S, risk in rows:
        ipa = 1 - integrated_brier_score(y_tr, y_te, S, times) / ibs_km
        c = sporf.concordance_index(y_te["event"], y_te["time"], risk)
        print("%-24s IPA %.3f   C %.3f" % (name, ipa, c))

# %% [markdown]
# One split of 156 patients is a noisy comparison (here the oblique forest led
# on both scores); the benchmark (`benchmarks/peers/survival.py`,
# BENCHMARKS.md) repeats such splits on ten data sets.
#
# ## Survival curves of a few patients
#
# Each leaf keeps its training patients, so a tree's curve is the
# Kaplan-Meier estimate of the patients in the new patient's leaf; the
# forest's is their mean. Three held-out patients: the lowest, the median and
# the highest risk score.

# %%
risk = forest.predict(X[~train])
picks = np.argsort(risk)[[0, len(risk) // 2, len(risk) - 1]]
grid = np.linspace(0, time.max(), 300)
S = forest.predict_survival_function(X[~train].iloc[picks], return_array=True, times=grid)
fig, ax = plt.subplots(figsize=(5.5, 3.6))
for curve, label in zip(S, ["lowest risk", "median risk", "highest risk"]):
    ax.step(grid / 365.25, curve, where="post", label=label)
ax.set_xlabel("years since entry")
ax.set_ylabel("predicted survival")
ax.set_ylim(0, 1.02)
ax.legend()
ax.set_title("Three held-out patients")
print("restricted mean survival over 5 years (years):",
      np.round(forest.predict_restricted_mean(X[~train].iloc[picks], 5 * 365.25) / 365.25, 2))

# %% [markdown]
# ## When: intervals for the time of death
#
# `predict_interval` gives each patient the times between which the forest's
# survival curve falls past the middle, at the levels that cover 80% of new
# patients' times of death: calibrated out of bag on the training patients
# who died, each weighted by the inverse of the probability of staying under
# observation that long (the long-lived are censored more often). An upper end
# of `inf` says the curve stays above the level over the trial's follow-up:
# the data bound that patient's time only from below.

# %%
iv = forest.predict_interval(X[~train].iloc[picks], coverage=0.8)
print(pd.DataFrame(iv / 365.25, index=["lowest risk", "median risk", "highest risk"],
                   columns=["from (years)", "to (years)"]).round(1))

# %% [markdown]
# ## Which measurements matter
#
# `importance="permutation"` permuted each measurement among each tree's
# out-of-bag patients and recorded the drop of the tree's Harrell's C.

# %%
imp = pd.Series(forest.permutation_importances_, index=X.columns).sort_values()
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.barh(imp.index, imp.values)
ax.set_xlabel("drop in out-of-bag C when permuted")
ax.set_title("Permutation importance")
print(imp.sort_values(ascending=False).head(5).round(4))

# %% [markdown]
# Bilirubin leads by far, then age and albumin: three of the five variables of
# the Mayo risk score, which was built from this trial.
