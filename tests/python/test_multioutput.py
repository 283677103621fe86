"""Multi-output y: one forest for several responses, as scikit-learn's forests
fit a 2-D y. Accuracy per output against single-output forests, the
scikit-learn conventions (classes_ and predict_proba per output), what carries
over (OOB, honesty, missing values, tune_oob, warm_start, pickling, Dask), the
refusals. The same forests from R: tests/python/test_cross_language.py."""
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_friedman1, make_multilabel_classification

import sporf
from sporf import SPORFClassifier, SPORFRegressor


def two_class_outputs(n, seed):
    """Two classification outputs on 8 features: a two-class one on an oblique
    direction, a three-class one on another feature."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    a = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    b = np.digitize(X[:, 2] - 0.5 * X[:, 3], [-0.6, 0.6])
    return X, np.column_stack([a, np.array(["low", "mid", "high"])[b]])


def two_regression_outputs(n, seed):
    """Friedman #1 and a second response on other features, with noise."""
    X, y1 = make_friedman1(n, n_features=10, noise=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    y2 = 3 * X[:, 5] * X[:, 6] + np.sin(4 * X[:, 7]) + 0.3 * rng.standard_normal(n)
    return X, np.column_stack([y1, y2])


def twin_measurements(n, seed):
    """One signal (Friedman #1) measured twice, on two scales with their own
    noise: the outputs share their structure, the case multi-output forests
    are for."""
    X, f = make_friedman1(n, n_features=10, noise=0.0, random_state=seed)
    rng = np.random.default_rng(seed)
    return X, np.column_stack([f + rng.standard_normal(n), 0.1 * f + 0.1 * rng.standard_normal(n)])


def test_classification_outputs_are_as_accurate_as_single_output_forests():
    # two correlated labels (scikit-learn's multilabel generator): per output,
    # within one standard error of a forest grown on that output alone
    X, Y = make_multilabel_classification(4000, n_features=10, n_classes=2, n_labels=1, random_state=0)
    X, Xt, Y, Yt = X[:2000], X[2000:], Y[:2000], Y[2000:]
    pred = SPORFClassifier(n_estimators=60, random_state=0, n_jobs=2).fit(X, Y).predict(Xt)
    assert pred.shape == (2000, 2)
    for j in range(2):
        single = SPORFClassifier(n_estimators=60, random_state=0, n_jobs=2).fit(X, Y[:, j])
        acc_multi = np.mean(pred[:, j] == Yt[:, j])
        acc_single = np.mean(single.predict(Xt) == Yt[:, j])
        se = np.sqrt(acc_single * (1 - acc_single) / len(Yt))
        assert acc_multi >= acc_single - se, (j, acc_multi, acc_single, se)


def test_each_output_has_its_classes_and_probabilities():
    X, Y = two_class_outputs(1000, 0)
    Xt, Yt = two_class_outputs(1000, 1)
    multi = SPORFClassifier(n_estimators=30, random_state=0, n_jobs=2).fit(X, Y)
    assert multi.n_outputs_ == 2 and multi.n_classes_ == [2, 3]
    np.testing.assert_array_equal(multi.classes_[1], ["high", "low", "mid"])
    assert np.all(np.mean(multi.predict(Xt) == Yt, axis=0) > 0.85)
    proba = multi.predict_proba(Xt[:5])
    assert [p.shape for p in proba] == [(5, 2), (5, 3)]
    for p in proba:
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    log = multi.predict_log_proba(Xt[:5])
    np.testing.assert_allclose(np.exp(log[1]), proba[1])


def test_regression_outputs_are_as_accurate_as_single_output_forests():
    X, Y = twin_measurements(2000, 0)
    Xt, Yt = twin_measurements(2000, 1)
    multi = SPORFRegressor(n_estimators=60, random_state=0, n_jobs=2).fit(X, Y)
    pred = multi.predict(Xt)
    assert pred.shape == (2000, 2) and pred.dtype == np.float64
    for j in range(2):
        single = SPORFRegressor(n_estimators=60, random_state=0, n_jobs=2).fit(X, Y[:, j])
        err_multi = (pred[:, j] - Yt[:, j]) ** 2
        err_single = (single.predict(Xt) - Yt[:, j]) ** 2
        se = err_single.std() / np.sqrt(len(Yt))
        assert err_multi.mean() <= err_single.mean() + se, (j, err_multi.mean(), err_single.mean(), se)


def test_one_column_y_is_the_single_output_forest():
    X, Y = two_class_outputs(300, 2)
    a = SPORFClassifier(n_estimators=5, random_state=1).fit(X, Y[:, 0])
    with pytest.warns(Warning, match="column-vector"):
        b = SPORFClassifier(n_estimators=5, random_state=1).fit(X, Y[:, :1])
    assert a.to_bytes() == b.to_bytes() and b.n_outputs_ == 1
    # a single-output model keeps format 10: its bytes did not change with multi-output y
    assert a.to_bytes()[8:12] == (10).to_bytes(4, "little")


def test_a_duplicated_output_grows_the_single_output_trees():
    # every cut of two copies of one output scores twice the single output's
    X, Y = two_regression_outputs(400, 3)
    y = Y[:, 0]
    kw = dict(n_estimators=8, random_state=2, guided_features=0)
    multi = SPORFRegressor(**kw).fit(X, np.column_stack([y, y]))
    single = SPORFRegressor(**kw).fit(X, y)
    p = multi.predict(X)
    np.testing.assert_array_equal(p[:, 0], single.predict(X))
    np.testing.assert_array_equal(p[:, 1], single.predict(X))


@pytest.mark.parametrize("kind", ["oob", "honest", "missing", "tune_oob", "structure"])
def test_what_carries_over_to_several_outputs(kind):
    X, Y = two_class_outputs(600, 4)
    kw = dict(n_estimators=16, random_state=3, n_jobs=2)
    if kind in ("tune_oob", "structure"):  # the winner's fit again: a fixed leaf size ("auto" chooses per round)
        kw.update(min_samples_leaf=3)
    if kind == "honest":
        kw.update(honest_fraction=0.5, oob_score=True)
    if kind == "oob":
        kw.update(oob_score=True)
    if kind == "missing":
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    if kind in ("tune_oob", "structure"):
        kw.update(tune_oob=True if kind == "tune_oob" else "structure", oob_score=True)
    clf = SPORFClassifier(**kw).fit(X, Y)
    assert np.mean(clf.predict(X) == Y) > 0.8
    if kw.get("oob_score"):
        assert len(clf.oob_decision_function_) == 2
        assert 0.6 < clf.oob_score_ <= 1.0
        pred = np.column_stack([c[np.argmax(d, axis=1)] for c, d in zip(clf.classes_, clf.oob_decision_function_)])
        assert clf.oob_score_ == pytest.approx(np.mean(np.mean(pred == Y, axis=0)))
    if kind in ("tune_oob", "structure"):
        # the tuned forest is the plain fit of the winner's parameters
        again = SPORFClassifier(**{**kw, "tune_oob": False, **clf.best_params_}).fit(X, Y)
        assert again.to_bytes() == clf.to_bytes()


def test_warm_start_pickle_load_and_merge_keep_the_outputs(tmp_path):
    X, Y = two_regression_outputs(300, 5)
    # a fixed leaf size: trees added to an "auto" forest take the size its first fit chose
    whole = SPORFRegressor(n_estimators=12, random_state=4, oob_score=True, min_samples_leaf=3).fit(X, Y)
    warm = SPORFRegressor(n_estimators=5, random_state=4, oob_score=True, warm_start=True,
                          min_samples_leaf=3).fit(X, Y)
    warm.set_params(n_estimators=12).fit(X, Y)
    assert warm.to_bytes() == whole.to_bytes()
    np.testing.assert_array_equal(warm.oob_prediction_, whole.oob_prediction_)
    assert whole.oob_prediction_.shape == (300, 2)
    again = pickle.loads(pickle.dumps(whole))
    np.testing.assert_array_equal(again.predict(X), whole.predict(X))
    whole.save(tmp_path / "m.sporf")
    loaded = sporf.load(tmp_path / "m.sporf")
    assert loaded.n_outputs_ == 2
    np.testing.assert_array_equal(loaded.predict(X), whole.predict(X))
    Xc, Yc = two_class_outputs(300, 6)
    clf = SPORFClassifier(n_estimators=6, random_state=1).fit(Xc, Yc)
    back = sporf.load(clf.to_bytes())
    assert back.n_classes_ == [2, 3] and [list(c) for c in back.classes_] == [list(c) for c in clf.classes_]
    np.testing.assert_array_equal(back.predict(Xc), clf.predict(Xc))


def test_per_tree_values_and_dask_predictions_have_every_output():
    X, Y = two_regression_outputs(200, 7)
    reg = SPORFRegressor(n_estimators=4, random_state=0).fit(X, Y)
    assert reg.predict_trees(X[:3]).shape == (3, 4, 2)
    np.testing.assert_allclose(reg.predict_trees(X[:3]).mean(axis=1), reg.predict(X[:3]))
    assert reg.get_tree(0).value.shape[1] == 2
    da = pytest.importorskip("dask.array")
    lazy = reg.predict(da.from_array(X, chunks=70))
    np.testing.assert_array_equal(lazy.compute(), reg.predict(X))
    Xc, Yc = two_class_outputs(200, 8)
    clf = SPORFClassifier(n_estimators=4, random_state=0).fit(Xc, Yc)
    lazy = clf.predict_proba(da.from_array(Xc, chunks=70))
    for got, want in zip(lazy, clf.predict_proba(Xc)):
        np.testing.assert_array_equal(got.compute(), want)
    np.testing.assert_array_equal(clf.predict(da.from_array(Xc, chunks=70)).compute(), clf.predict(Xc))


@pytest.mark.parametrize("est, extra, message", [
    (SPORFClassifier(class_weight="balanced"), {}, "class_weight is not available with multi-output"),
    (SPORFClassifier(importance="permutation"), {}, "single-output"),
    (SPORFRegressor(quantiles=True), {}, "single-output regression"),
])
def test_what_several_outputs_do_not_do_is_refused(est, extra, message):
    X, Y = two_class_outputs(100, 9)
    if isinstance(est, SPORFRegressor):
        Y = np.column_stack([X[:, 0], X[:, 1]])
    with pytest.raises(ValueError, match=message):
        est.set_params(n_estimators=2).fit(X, Y, **extra)
    assert "_forest" not in est.__dict__


def test_votes_of_a_multi_output_forest_are_refused():
    X, Y = two_class_outputs(100, 10)
    clf = SPORFClassifier(n_estimators=2, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="single-output"):
        clf.predict_votes(X)


@pytest.mark.parametrize("projection", ["axis", "sparse", "gaussian", "frc", "patch"])
def test_every_projection_kind_learns_several_outputs(projection):
    from sporf.datasets import make_bars

    X, y = make_bars(400, size=6, random_state=0)
    Y = np.column_stack([y, (X.reshape(400, -1)[:, :6].sum(axis=1) > 3).astype(int)])
    Xt, yt = make_bars(400, size=6, random_state=1)
    Yt = np.column_stack([yt, (Xt.reshape(400, -1)[:, :6].sum(axis=1) > 3).astype(int)])
    def make():
        if projection == "patch":
            return sporf.MORFClassifier(n_estimators=30, random_state=0)
        return SPORFClassifier(n_estimators=30, projection=projection, random_state=0)

    if projection != "patch":
        X, Xt = X.reshape(400, -1), Xt.reshape(400, -1)
    clf = make().fit(X, Y)
    acc = np.mean(clf.predict(Xt) == Yt, axis=0)
    single = [np.mean(make().fit(X, Y[:, j]).predict(Xt) == Yt[:, j]) for j in range(2)]
    # both outputs learned, each near its own forest (the two share no structure here)
    assert clf.n_outputs_ == 2 and np.all(acc >= np.array(single) - 0.06) and np.all(acc > 0.6), (acc, single)
