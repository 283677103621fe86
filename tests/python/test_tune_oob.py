"""tune_oob: out-of-bag tuning of d and lambda (MORF: d and the patch sizes)
by successive halving (csrc/api/tune.c)."""
import numpy as np
import pytest
from sklearn.datasets import make_friedman1

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk


def test_the_tuned_forest_is_the_winners_fit_byte_for_byte():
    X, y = make_trunk(600, 30, random_state=0)
    # a fixed leaf size: with "auto" each candidate's first round of trees chooses the size
    tuned = sporf.SPORFClassifier(n_estimators=40, tune_oob=True, random_state=3, min_samples_leaf=3).fit(X, y)
    assert set(tuned.best_params_) == {"max_features", "feature_combinations"}
    again = sporf.SPORFClassifier(n_estimators=40, random_state=3, min_samples_leaf=3,
                                  **tuned.best_params_).fit(X, y)
    assert tuned.to_bytes() == again.to_bytes()
    # deterministic for a seed, whatever the threads
    two = sporf.SPORFClassifier(n_estimators=40, tune_oob=True, random_state=3, n_jobs=2,
                                min_samples_leaf=3).fit(X, y)
    assert two.to_bytes() == tuned.to_bytes() and two.tuning_ == tuned.tuning_


def test_the_report_follows_successive_halving():
    X, y = make_friedman1(400, n_features=15, random_state=0)
    reg = sporf.SPORFRegressor(n_estimators=64, tune_oob=True, oob_score=True, random_state=1).fit(X, y)
    rows = reg.tuning_
    # d, 2d, 4d x lambda, 2 lambda: 6 candidates, R = 3 halvings: 8, 16, 32, 64 trees
    assert len(rows) == 6
    assert sorted(r["n_trees"] for r in rows) == [8, 8, 8, 16, 32, 64]
    assert [r["max_features"] for r in rows] == [0.5, 0.5, 14, 14, 28, 28]  # d = 7 of p = 15 by default
    assert [r["feature_combinations"] for r in rows] == [1.5, 3.0] * 3
    best = max(rows, key=lambda r: r["n_trees"])
    assert {k: best[k] for k in reg.best_params_} == reg.best_params_
    # the winner's error is its whole forest's out-of-bag MSE
    mse = np.mean((reg.oob_prediction_ - y) ** 2)
    assert best["oob_error"] == pytest.approx(mse, rel=1e-12)


def test_tuning_finds_the_larger_d_that_sparse_parity_needs():
    """The SPORF paper's sparse parity needs many candidates (it used d = p^2):
    with the default d = ceil(sqrt(20)) = 5 a forest stays near chance; the
    OOB-tuned forest picks a larger d and is more accurate. Fully grown trees,
    as in the paper."""
    errs = {"default": [], "tuned": []}
    for s in (0, 1, 2):
        X, y = make_sparse_parity(1000, 20, random_state=s)
        Xt, yt = make_sparse_parity(5000, 20, random_state=100 + s)
        for key, tune in (("default", False), ("tuned", True)):
            m = sporf.SPORFClassifier(tune_oob=tune, axis_features=0, min_samples_leaf=1, random_state=s,
                                      n_jobs=2).fit(X, y)
            errs[key].append(np.mean(m.predict(Xt) != yt))
            if tune:
                assert m.best_params_["max_features"] != "sqrt"
    assert np.median(errs["tuned"]) < np.median(errs["default"]) - 0.02, errs


def test_morf_tunes_patch_sizes():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((200, 64))
    y = (X[:, [9, 10, 17, 18]].sum(1) > 0).astype(int)
    m = sporf.MORFClassifier(data_dims=(8, 8), n_estimators=20, tune_oob=True, random_state=1).fit(X, y)
    assert {"max_features", "max_patch_dims"} <= set(m.tuning_[0])
    assert {r["max_patch_dims"] for r in m.tuning_} == {None, (6, 6)}  # default ceil(sqrt(8)) = 3, doubled


def test_verbose_shows_progress_over_all_candidates(capsys):
    X, y = make_trunk(300, 10, random_state=0)
    sporf.SPORFClassifier(n_estimators=16, tune_oob=True, verbose=1, random_state=0).fit(X, y)
    lines = capsys.readouterr().err.strip().splitlines()
    # 6 candidates: 6 x 2 + 3 x 2 + 2 x 4 + 1 x 8 trees (rounds of 2, 4, 8, 16)
    assert lines[-1].startswith("sporf: 34/34 trees")


def test_refit_without_tuning_drops_the_report():
    X, y = make_trunk(300, 10, random_state=0)
    m = sporf.SPORFClassifier(n_estimators=8, tune_oob=True, random_state=0).fit(X, y)
    assert hasattr(m, "tuning_")
    m.set_params(tune_oob=False).fit(X, y)
    assert not hasattr(m, "tuning_") and not hasattr(m, "best_params_")


@pytest.mark.parametrize("kw,msg", [
    (dict(tune_oob="yes"), "tune_oob must be True, False or \"structure\"; got 'yes'"),
    (dict(tune_oob=True, bootstrap=False), r"tune_oob needs rows left out of each tree \(bootstrap on, or max_samples"),
])
def test_bad_tune_oob_is_refused(kw, msg):
    X, y = make_trunk(100, 5, random_state=0)
    with pytest.raises(ValueError, match=msg):
        sporf.SPORFClassifier(n_estimators=4, **kw).fit(X, y)


def test_structure_grid_candidates_and_the_winners_fit():
    """tune_oob="structure": eight structurally different forests in the
    documented order, chosen by out-of-bag error; the fitted forest is the
    winner's fit byte for byte, for any thread count."""
    X, y = make_trunk(500, 20, random_state=2)
    kw = dict(n_estimators=32, random_state=4, min_samples_leaf=3, splitter="best")  # candidates' cuts as named
    tuned = sporf.SPORFClassifier(tune_oob="structure", **kw).fit(X, y)
    rows = tuned.tuning_
    assert [(r["projection"], r["splitter"]) for r in rows] == [
        ("sparse", "best"), ("sparse", "random"), ("axis", "best"), ("axis", "random"),
        ("sparse", "best"), ("sparse", "best"), ("sparse", "best"), ("sparse", "random")]
    assert (rows[4]["axis_features"], rows[4]["guided_features"]) == (0, 0)
    assert rows[5]["feature_combinations"] == 3.0
    assert rows[6]["max_features"] == rows[7]["max_features"] == 10  # 2 * ceil(sqrt(20))
    assert sorted(r["n_trees"] for r in rows) == [4, 4, 4, 4, 8, 8, 16, 32]
    again = sporf.SPORFClassifier(**{**kw, **tuned.best_params_}).fit(X, y)
    assert tuned.to_bytes() == again.to_bytes()
    two = sporf.SPORFClassifier(tune_oob="structure", n_jobs=2, **kw).fit(X, y)
    assert two.to_bytes() == tuned.to_bytes() and two.tuning_ == tuned.tuning_


def test_structure_grid_finds_axis_splits_where_they_are_optimal():
    """Orthant's classes turn on exact axis-aligned thresholds: out of bag,
    the structure grid must not keep a random-cut forest there, and the
    tuned forest is as accurate as the defaults (0.0226 both, 600 rows)."""
    X, y = make_orthant(600, 6, random_state=0)
    Xt, yt = make_orthant(5000, 6, random_state=1)
    tuned = sporf.SPORFClassifier(tune_oob="structure", random_state=0, n_jobs=2).fit(X, y)
    plain = sporf.SPORFClassifier(random_state=0, n_jobs=2).fit(X, y)
    assert tuned.best_params_["splitter"] != "random" and getattr(tuned, "splitter_", "best") != "random"
    assert np.mean(tuned.predict(Xt) != yt) <= np.mean(plain.predict(Xt) != yt) + 0.005


def test_structure_grid_from_an_axis_forest_tries_oblique_candidates():
    X, y = make_friedman1(300, n_features=10, random_state=0)
    reg = sporf.SPORFRegressor(n_estimators=16, projection="axis", tune_oob="structure", random_state=1).fit(X, y)
    assert [r["projection"] for r in reg.tuning_][:4] == ["axis", "axis", "sparse", "sparse"]


@pytest.mark.parametrize("value", ["yes", 2, None])
def test_tune_oob_takes_true_false_or_structure(value):
    X, y = make_trunk(60, 4, random_state=0)
    with pytest.raises(ValueError, match='tune_oob must be True, False or "structure"'):
        sporf.SPORFClassifier(tune_oob=value).fit(X, y)
