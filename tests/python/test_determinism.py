"""Same data, parameters and seed => the same model bytes, whatever the thread count."""
import pathlib
import pickle

import numpy as np
import pytest

import sporf
from sporf.datasets import make_orthant, make_sparse_parity, make_trunk


@pytest.mark.parametrize("projection", ["sparse", "axis"])
@pytest.mark.parametrize("make", [make_trunk, make_orthant, make_sparse_parity])
def test_bytes_identical_across_threads_and_runs(make, projection):
    X, y = make(400, random_state=3)
    kw = dict(n_estimators=20, projection=projection, random_state=123, max_features=4)
    one = sporf.SPORFClassifier(n_jobs=1, **kw).fit(X, y).to_bytes()
    two = sporf.SPORFClassifier(n_jobs=2, **kw).fit(X, y).to_bytes()
    again = sporf.SPORFClassifier(n_jobs=2, **kw).fit(X, y).to_bytes()
    assert one == two == again


def test_different_seeds_give_different_forests():
    X, y = make_trunk(300, random_state=0)
    a = sporf.SPORFClassifier(n_estimators=5, random_state=1).fit(X, y).to_bytes()
    b = sporf.SPORFClassifier(n_estimators=5, random_state=2).fit(X, y).to_bytes()
    assert a != b


def test_layout_of_X_does_not_matter():
    X, y = make_trunk(300, random_state=0)
    kw = dict(n_estimators=10, random_state=5)
    c = sporf.SPORFClassifier(**kw).fit(np.ascontiguousarray(X), y)
    f = sporf.SPORFClassifier(**kw).fit(np.asfortranarray(X), y)
    assert c.to_bytes() == f.to_bytes()
    strided = np.repeat(X, 2, axis=1)[:, ::2]
    assert np.array_equal(c.predict_proba(strided), c.predict_proba(X))


@pytest.mark.parametrize("estimator", [sporf.SPORFClassifier, sporf.SPORFRegressor, sporf.URerF])
def test_float32_fits_the_forest_of_its_float64_values(estimator):
    # float32 takes one conversion, straight into the core's column layout:
    # the values are the same as the float64 cast's, so is the forest.
    X, y = make_trunk(300, random_state=0)
    X32 = (X * 1.1).astype(np.float32)
    kw = dict(n_estimators=6, random_state=5)
    fit = (lambda m, X: m.fit(X)) if estimator is sporf.URerF else (lambda m, X: m.fit(X, y))
    a = fit(estimator(**kw), X32)
    b = fit(estimator(**kw), X32.astype(np.float64))
    assert a.to_bytes() == b.to_bytes()
    assert a.to_bytes() != fit(estimator(**kw), X).to_bytes()


def test_pickles_of_an_earlier_version_load_and_predict_the_same():
    # tests/golden/python_pickles.pkl (tools/make_golden_pickles.py)
    X, _ = make_trunk(200, 16, random_state=0)
    path = pathlib.Path(__file__).resolve().parent.parent / "golden" / "python_pickles.pkl"
    with open(path, "rb") as fh:
        stored = pickle.load(fh)
    assert len(stored) == 5
    for name, (data, model_bytes, answer) in stored.items():
        est = pickle.loads(data)
        # the same model, re-saved in the current format
        assert est.to_bytes() == sporf.load(model_bytes).to_bytes(), name
        assert len(est.to_bytes()) >= len(model_bytes), name
        now = est.predict(X) if hasattr(est, "predict") else est.transform(X[:5])
        now = now.toarray() if hasattr(now, "toarray") else now
        assert np.array_equal(now, answer), name


def test_save_load_and_pickle_round_trip(tmp_path):
    X, y = make_trunk(300, random_state=0)
    labels = np.where(y == 1, "yes", "no")
    clf = sporf.SPORFClassifier(n_estimators=15, random_state=0).fit(X, labels)
    path = tmp_path / "m.sporf"
    clf.save(path)
    loaded = sporf.load(path)
    assert loaded.to_bytes() == clf.to_bytes()
    assert list(loaded.classes_) == ["no", "yes"]
    assert np.array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    assert np.array_equal(loaded.predict(X), clf.predict(X))
    assert loaded.get_params()["random_state"] == 0
    unpickled = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(unpickled.predict_proba(X), clf.predict_proba(X))


def test_training_rows_reach_their_own_leaves():
    """Without bootstrap, every training row of a fully grown tree on
    distinct points is classified correctly: fit and predict agree exactly."""
    X, y = make_trunk(500, n_features=20, random_state=1)
    clf = sporf.SPORFClassifier(n_estimators=3, bootstrap=False, random_state=0).fit(X, y)
    assert np.array_equal(clf.predict(X), y)
