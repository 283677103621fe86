"""MORF: patch forests on the papers' simulations, shaped input, importance
maps, persistence and bad grids."""
import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf import MORFClassifier
from sporf.datasets import make_bars, make_circle_segments, make_impulse


def median_error(make, n, model, flatten=False, seeds=(0, 1, 2), n_test=2000):
    errs = []
    for s in seeds:
        X, y = make(n, random_state=s)
        Xt, yt = make(n_test, random_state=100 + s)
        if flatten:
            X, Xt = X.reshape(len(X), -1), Xt.reshape(len(Xt), -1)
        errs.append(np.mean(model(s).fit(X, y).predict(Xt) != yt))
    return float(np.median(errs))


def test_impulse_error_within_goal():
    err = median_error(make_impulse, 100, lambda s: MORFClassifier(
        min_patch_dims=5, max_patch_dims=30, max_features=1.0, random_state=s, n_jobs=2))
    assert err <= 0.15, err


def test_circle_segments_with_wrap_halves_random_forest_error():
    morf = median_error(make_circle_segments, 200, lambda s: MORFClassifier(
        min_patch_dims=3, max_patch_dims=12, boundary="wrap", max_features=0.5, random_state=s, n_jobs=2))
    rf = median_error(make_circle_segments, 200, lambda s: RandomForestClassifier(random_state=s, n_jobs=2))
    assert morf <= rf / 2, (morf, rf)


def test_bars_morf_beats_sporf_and_rf():
    morf = median_error(make_bars, 100, lambda s: MORFClassifier(
        min_patch_dims=(1, 2), max_patch_dims=(2, 9), random_state=s, n_jobs=2))
    sp = median_error(make_bars, 100, lambda s: sporf.SPORFClassifier(random_state=s, n_jobs=2), flatten=True)
    rf = median_error(make_bars, 100, lambda s: RandomForestClassifier(random_state=s, n_jobs=2), flatten=True)
    assert morf < sp and morf < rf, (morf, sp, rf)


def test_shaped_and_flat_input_give_the_same_forest():
    X, y = make_bars(150, size=12, mean_bars=4, random_state=0)
    a = MORFClassifier(n_estimators=10, max_patch_dims=(2, 5), random_state=3).fit(X, y)
    b = MORFClassifier(n_estimators=10, data_dims=(12, 12), max_patch_dims=(2, 5), random_state=3).fit(
        X.reshape(150, -1), y)
    assert a.to_bytes() == b.to_bytes()
    assert a.data_dims_ == (12, 12)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X.reshape(150, -1)))
    with pytest.raises(ValueError, match="shape"):
        a.predict(X[:, :6, :])


def test_importance_maps_find_the_signal():
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(300, 8, 8))
    y = rng.randint(0, 2, 300)
    X[y == 1, 2:5, 2:5] += 0.5
    m = MORFClassifier(n_estimators=30, min_patch_dims=1, max_patch_dims=3, random_state=0).fit(X, y)
    for kind in ("impurity", "usage"):
        imap = m.importance_map(kind)
        assert imap.shape == (8, 8)
        assert imap.sum() == pytest.approx(1.0)
        assert imap[2:5, 2:5].sum() > 0.5 * imap.sum() * (9 / 64) * 3
    r, c = np.unravel_index(np.argmax(m.importance_map()), (8, 8))
    assert 1 <= r <= 5 and 1 <= c <= 5


def test_save_load_keeps_patch_parameters(tmp_path):
    X, y = make_impulse(80, random_state=1)
    m = MORFClassifier(n_estimators=5, boundary="wrap", patch_weights="gaussian", dim_contiguous=True,
                       random_state=2).fit(X, y)
    path = tmp_path / "m.sporf"
    m.save(path)
    loaded = sporf.load(path)
    assert isinstance(loaded, MORFClassifier)
    assert loaded.boundary == ("wrap",) and loaded.patch_weights == "gaussian" and loaded.data_dims_ == (100,)
    np.testing.assert_array_equal(loaded.predict_proba(X), m.predict_proba(X))


def test_determinism_across_threads():
    X, y = make_circle_segments(120, random_state=3)
    a = MORFClassifier(n_estimators=12, boundary="wrap", random_state=5, n_jobs=1).fit(X, y)
    b = MORFClassifier(n_estimators=12, boundary="wrap", random_state=5, n_jobs=2).fit(X, y)
    assert a.to_bytes() == b.to_bytes()


@pytest.mark.parametrize("kw,match", [
    (dict(data_dims=(3, 3)), "describe 9 features"),
    (dict(max_patch_dims=101), "outside the grid"),
    (dict(min_patch_dims=5, max_patch_dims=3), "below min_patch_dims"),
    (dict(data_dims=(1, 100), boundary="wrap"), "wrap"),
    (dict(boundary="mirror"), "boundary"),
    (dict(data_dims=(10, 10), max_patch_dims=(2, 2, 2)), "one per axis"),
    (dict(patch_weights="box"), "patch_weights"),
    (dict(dim_contiguous="yes"), "dim_contiguous"),
])
def test_bad_grids(kw, match):
    X, y = make_impulse(40, random_state=0)
    with pytest.raises(ValueError, match=match):
        MORFClassifier(n_estimators=2, **kw).fit(X, y)


def test_plot_importance_draws_maps_and_signals():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = make_bars(60, size=8, mean_bars=3, random_state=0)
    m = MORFClassifier(n_estimators=5, random_state=0).fit(X, y)
    ax = sporf.plot_importance(m, kind="usage")
    assert ax.images and ax.images[0].get_array().shape == (8, 8)
    Xi, yi = make_impulse(60, random_state=0)
    s = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(Xi, yi)
    ax = sporf.plot_importance(s, data_dims=(100,))
    assert len(ax.lines[0].get_ydata()) == 100
    # without a grid: the top features, most important at the top
    _, ax = plt.subplots()
    sporf.plot_importance(s, ax=ax, top=7)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 7 and labels[-1] == "x%d" % np.argmax(s.feature_importances_)
    with pytest.raises(ValueError, match="impurity"):
        m.importance_map("gini")
    with pytest.raises(ValueError, match='importance="permutation"'):
        sporf.plot_importance(s, kind="permutation")
    plt.close("all")


def test_morf_survival_finds_the_patch_that_sets_the_hazard(tmp_path):
    # a signal of 20 steps whose middle four raise the hazard: the patch
    # survival forest ranks them first, fits shaped input as flat, and loads
    # back as what it is
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 20))
    t = rng.exponential(np.exp(-X[:, 8:12].sum(axis=1)))
    c = rng.exponential(2.0, size=400)
    y = np.array(list(zip(t <= c, np.minimum(t, c))), dtype=[("event", "?"), ("time", "<f8")])
    est = sporf.MORFSurvival(n_estimators=60, max_patch_dims=4, oob_score=True, random_state=0).fit(X, y)
    assert est.oob_score_ > 0.75
    imp = est.importance_map()
    assert set(np.argsort(imp)[-4:]) <= set(range(7, 13))
    shaped = sporf.MORFSurvival(n_estimators=5, max_patch_dims=(2, 2), random_state=1).fit(X.reshape(400, 4, 5), y)
    flat = sporf.MORFSurvival(n_estimators=5, max_patch_dims=(2, 2), data_dims=(4, 5), random_state=1).fit(X, y)
    assert shaped.to_bytes() == flat.to_bytes() and shaped.data_dims_ == (4, 5)
    est.save(tmp_path / "m.sporf")
    again = sporf.load(tmp_path / "m.sporf")
    assert isinstance(again, sporf.MORFSurvival) and again.data_dims_ == (20,)
    np.testing.assert_array_equal(again.predict(X[:10]), est.predict(X[:10]))
