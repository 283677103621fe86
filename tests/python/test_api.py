"""Behaviour of SPORFClassifier beyond the scikit-learn checks."""
import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk


def test_string_labels_and_classes(trunk_small):
    X, y = trunk_small
    labels = np.array(["cat", "dog"])[y]
    clf = sporf.SPORFClassifier(n_estimators=10, random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["cat", "dog"]
    assert set(clf.predict(X)) <= {"cat", "dog"}
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("labels", [
    np.array([-7, 3]), np.array([0, 2**40]), np.array([250, 3], dtype=np.uint8),
    np.array([2**63 + 5, 1], dtype=np.uint64), np.array([False, True]), np.array([2.0, -1.0])])
def test_labels_of_any_type_give_the_forest_of_their_codes(trunk_small, labels):
    # integer labels are counted, not sorted, into codes: the forest and the
    # classes must be those of np.unique's codes, whatever the labels' type
    X, y = trunk_small
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, labels[y])
    ref = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, np.argsort(np.argsort(labels))[y])
    assert clf.classes_.dtype == labels.dtype
    np.testing.assert_array_equal(clf.classes_, np.sort(labels))
    np.testing.assert_array_equal(clf.predict_proba(X), ref.predict_proba(X))
    np.testing.assert_array_equal(clf.predict(X), np.sort(labels)[ref.predict(X)])


def test_dataframe_feature_names(trunk_small):
    pd = pytest.importorskip("pandas")
    X, y = trunk_small
    df = pd.DataFrame(X, columns=["f%d" % i for i in range(X.shape[1])])
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(df, y)
    assert list(clf.feature_names_in_) == list(df.columns)
    assert clf.n_features_in_ == X.shape[1]


def test_dataframe_rows_predict_as_their_values_and_bad_frames_are_still_refused(trunk_small):
    # The small-DataFrame shortcut of prediction gives the array's answers;
    # what it does not take goes through scikit-learn's validation.
    pd = pytest.importorskip("pandas")
    X, y = trunk_small
    cols = ["f%d" % i for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=cols)
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(df, y)
    plain = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(df.iloc[[3]]), plain.predict_proba(X[3:4]))
    ints = pd.DataFrame((X * 10).astype(int), columns=cols)
    np.testing.assert_array_equal(clf.predict_proba(ints), plain.predict_proba((X * 10).astype(int).astype(float)))
    with pytest.raises(ValueError):
        clf.predict(df.assign(f0="text"))


def test_columns_are_matched_by_name_as_in_r(trunk_small):
    # the rule both languages follow: by name when the forest knows its
    # features' names (any order, extra columns ignored, a missing one named);
    # by position otherwise, with a warning when the forest had names
    pd = pytest.importorskip("pandas")
    X, y = trunk_small
    cols = ["f%d" % i for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=cols)
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(df, y)
    expected = clf.predict_proba(df)
    np.testing.assert_array_equal(clf.predict_proba(df[cols[::-1]]), expected)
    np.testing.assert_array_equal(clf.predict_proba(df.assign(extra=1.0)), expected)
    with pytest.raises(ValueError, match="lacks columns the forest was trained on: f3, f4"):
        clf.predict(df.iloc[:, :3])
    with pytest.warns(UserWarning, match="feature names"):
        np.testing.assert_array_equal(clf.predict_proba(X), expected)
    # a forest fitted without names reads a DataFrame by position, silently
    plain = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(plain.predict_proba(df[cols[::-1]]), plain.predict_proba(X[:, ::-1]))


def test_feature_names_survive_save(tmp_path, trunk_small):
    pd = pytest.importorskip("pandas")
    X, y = trunk_small
    df = pd.DataFrame(X, columns=["f%d" % i for i in range(X.shape[1])])
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(df, y)
    clf.save(tmp_path / "m.sporf")
    assert list(sporf.load(tmp_path / "m.sporf").feature_names_in_) == list(df.columns)


def test_importances_point_at_informative_features():
    X, y = make_sparse_parity(2000, n_features=10, random_state=0)
    clf = sporf.SPORFClassifier(n_estimators=50, max_features=30, random_state=0, n_jobs=2).fit(X, y)
    imp = clf.feature_importances_
    assert imp.shape == (10,)
    assert abs(imp.sum() - 1.0) < 1e-12
    assert set(np.argsort(imp)[-3:]) == {0, 1, 2}


def test_oob_score_tracks_test_accuracy():
    X, y = make_trunk(1000, n_features=10, random_state=0)
    Xt, yt = make_trunk(5000, n_features=10, random_state=1)
    clf = sporf.SPORFClassifier(n_estimators=60, oob_score=True, random_state=0).fit(X, y)
    test_acc = np.mean(clf.predict(Xt) == yt)
    assert clf.oob_decision_function_.shape == (1000, 2)
    assert abs(clf.oob_score_ - test_acc) < 0.03


def test_apply_shape_and_leaves(trunk_small):
    X, y = trunk_small
    clf = sporf.SPORFClassifier(n_estimators=7, random_state=0).fit(X, y)
    leaves = clf.apply(X)
    assert leaves.shape == (len(X), 7) and leaves.dtype == np.int64
    assert (leaves > 0).all()  # the root is never a leaf here


def test_max_depth_limits_trees(trunk_small):
    X, y = trunk_small
    stump = sporf.SPORFClassifier(n_estimators=5, max_depth=1, random_state=0).fit(X, y)
    assert stump.apply(X).max() <= 2


def test_class_weight_shifts_predictions():
    X, y = make_trunk(600, n_features=4, random_state=0)
    plain = sporf.SPORFClassifier(n_estimators=30, min_samples_leaf=20, random_state=0).fit(X, y)
    heavy = sporf.SPORFClassifier(n_estimators=30, min_samples_leaf=20, random_state=0,
                                  class_weight={1: 20.0}).fit(X, y)
    assert heavy.predict(X).mean() > plain.predict(X).mean()
    for cw in ["balanced", "balanced_subsample"]:
        sporf.SPORFClassifier(n_estimators=5, class_weight=cw, random_state=0).fit(X, y)


def test_sample_weight_zero_removes_rows():
    X, y = make_trunk(200, n_features=4, random_state=0)
    w = np.ones(200)
    w[y == 1] = 0.0
    w[0] = 1.0  # keep one row of class 1 so both classes exist
    clf = sporf.SPORFClassifier(n_estimators=10, bootstrap=False, random_state=0).fit(X, y, sample_weight=w)
    # Without weight the class-1 rows cannot be learned: mostly class 0.
    assert clf.predict(X).mean() < 0.1


def test_max_features_above_p_for_oblique():
    X, y = make_orthant(300, n_features=4, random_state=0)
    sporf.SPORFClassifier(n_estimators=3, max_features=16, random_state=0).fit(X, y)
    sporf.SPORFClassifier(n_estimators=3, max_features=4.0, random_state=0).fit(X, y)


@pytest.mark.parametrize("kw", [dict(), dict(n_jobs=2), dict(tune_oob=True)])
def test_verbose_reports_progress(capsys, kw):
    X, y = make_trunk(200, n_features=4, random_state=0)
    sporf.SPORFClassifier(n_estimators=10, verbose=1, random_state=0, **kw).fit(X, y)
    err = capsys.readouterr().err
    last = "24/24 trees" if kw.get("tune_oob") else "10/10 trees"  # tuning counts every candidate's trees
    assert err.count(last) == 1  # the last count once: the core may report it twice


def test_ctrl_c_cancels_fit_quickly():
    X, y = make_sparse_parity(20_000, n_features=20, random_state=0)
    # Shallow trees: a long fit whose forest would still fit in memory (the core
    # refuses at once one that could not).
    clf = sporf.SPORFClassifier(n_estimators=10_000, max_features=400, max_depth=10, random_state=0)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X, y)
    elapsed = time.perf_counter() - t0
    timer.cancel()
    assert elapsed < 3.0, elapsed
    assert not hasattr(clf, "classes_")
    # The estimator is still usable afterwards.
    clf.set_params(n_estimators=3, max_features="sqrt").fit(X[:500], y[:500])
