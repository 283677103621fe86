"""Would survival forests gain by choosing their node size out of bag?

    python benchmarks/peers/survival_oob_choice.py [--sets whas500,gbsg2,veterans,aids,flchain] [--splits 4]

For each development set and random half split (survival.py's protocol and
data), grows SPORFSurvival at several node sizes -- events to split
(`min_events_split`) and leaf rows (`min_samples_leaf`) -- and scores each
forest twice: on the held-out half (IPA, Harrell's C, as survival.py does)
and on its own training rows out of bag (each row's integrated Brier score
with inverse-probability-of-censoring weights, and the C index of the
out-of-bag risks). It then reports what the held-out half says of a forest
that chose its size by either out-of-bag score: freely, or leaving the
defaults (16 events, leaves of 3 rows) only for a size that beats them by
more than z standard errors of the per-row difference. Only the development
sets (never the report or confirmation sets) take part.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import survival as S  # noqa: E402

import sporf  # noqa: E402

SIZES = [(16, 1), (16, 3), (16, 8), (16, 13), (16, 21), (0, 3), (4, 3), (8, 3), (32, 3), (64, 3), (32, 8), (8, 1),
         (64, 8)]
DEFAULT = (16, 3)


def brier_per_row(y, surv, times):
    """Each row's integrated Brier score over `times` (IPCW weights from y's
    censoring distribution, as scikit-survival's integrated_brier_score)."""
    from sksurv.nonparametric import CensoringDistributionEstimator

    cens = CensoringDistributionEstimator().fit(y)
    t, e = y["time"], y["event"]
    g_row = np.clip(cens.predict_proba(np.minimum(t, np.nextafter(t.max(), 0))), 1e-12, None)
    g_tau = np.clip(cens.predict_proba(times), 1e-12, None)
    terms = np.empty((len(t), len(times)))
    for j, tau in enumerate(times):
        terms[:, j] = np.where((t <= tau) & e, surv[:, j] ** 2 / g_row, 0.0) + \
            np.where(t > tau, (1.0 - surv[:, j]) ** 2 / g_tau[j], 0.0)
    return np.trapezoid(terms, times, axis=1) / (times[-1] - times[0])


def concordance(y, risk):
    from sksurv.metrics import concordance_index_censored
    return concordance_index_censored(y["event"], y["time"], risk)[0]


def fits(sets, n_splits, trees):
    cache = tempfile.mkdtemp(prefix="sporf_survival_")
    subprocess.run(["Rscript", os.path.join(os.path.dirname(HERE), "helpers", "survival_sets.R"), cache], check=True,
                   capture_output=True)
    for name in sets:
        X_all, event, time_ = S.load_set(name, cache)
        for split in range(n_splits):
            rng = np.random.default_rng(1000 + split)
            keep = np.arange(len(time_))
            if len(keep) > 2000:
                keep = np.sort(rng.choice(keep, 2000, replace=False))
            perm = rng.permutation(keep)
            tr, te = np.sort(perm[: len(perm) // 2]), np.sort(perm[len(perm) // 2:])
            Xtr, Xte = S.encode(X_all.iloc[tr].reset_index(drop=True), X_all.iloc[te].reset_index(drop=True))
            Xtr, Xte = Xtr.to_numpy(), Xte.to_numpy()
            y_tr, y_te = S.structured(event[tr], time_[tr]), S.structured(event[te], time_[te])
            t_te, t_tr = S.eval_times(event[te], time_[te]), S.eval_times(event[tr], time_[tr])
            km = S.km_curve(y_tr["event"], y_tr["time"], t_tr)
            for events, leaf in SIZES:
                m = sporf.SPORFSurvival(n_estimators=trees, min_events_split=events, min_samples_leaf=leaf,
                                        random_state=split, n_jobs=2).fit(Xtr, y_tr)
                held = S.scores(y_tr, y_te, m.predict_survival_function(Xte, return_array=True, times=t_te),
                                m.predict(Xte), t_te)
                oob = m.predict_survival_function(Xtr, return_array=True, times=t_tr, oob=True)
                oob = np.where(np.isfinite(oob), oob, km[None, :])  # a row no tree left out: Kaplan-Meier
                risk = m.predict(Xtr, oob=True)
                yield dict(set=name, split=split, size=(events, leaf), ipa=held["ipa"], c=held["c"],
                           rows=brier_per_row(y_tr, oob, t_tr), oob_c=concordance(y_tr, np.nan_to_num(risk)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(S.SKSURV_SETS))
    ap.add_argument("--splits", type=int, default=4)
    ap.add_argument("--trees", type=int, default=200)
    a = ap.parse_args()
    groups = collections.defaultdict(dict)
    for r in fits(a.sets.split(","), a.splits, a.trees):
        groups[(r["set"], r["split"])][r["size"]] = r
    print("| rule | held-out IPA - defaults' | held-out C - defaults' | splits that left the defaults |")
    print("|---|---:|---:|---:|")
    rules = [("lowest out-of-bag integrated Brier score", "ibs", None)] + \
        [("... only when better than the defaults by > %d SE" % z, "ibs", z) for z in (1, 2)] + \
        [("highest out-of-bag C", "c", None), ("best held-out IPA (an oracle)", "oracle", None)]
    for label, score, z in rules:
        d_ipa, d_c, moved = [], [], 0
        for g in groups.values():
            base = g[DEFAULT]
            if score == "oracle":
                pick = max(g.values(), key=lambda r: r["ipa"])
            elif score == "c":
                pick = max(g.values(), key=lambda r: r["oob_c"])
            else:
                pick, best = base, 0.0
                for r in g.values():
                    diff = r["rows"] - base["rows"]
                    m, se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
                    if m < best and (z is None or m < -z * se):
                        pick, best = r, m
            d_ipa.append(pick["ipa"] - base["ipa"])
            d_c.append(pick["c"] - base["c"])
            moved += pick is not base
        print("| %s | %+.4f | %+.4f | %d of %d |" % (label, np.mean(d_ipa), np.mean(d_c), moved, len(groups)))


if __name__ == "__main__":
    main()
