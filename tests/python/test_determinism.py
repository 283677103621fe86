"""Same data, parameters and seed => the same model bytes, whatever the thread count."""
import pathlib
import pickle
import tracemalloc

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


@pytest.mark.parametrize("estimator", [sporf.SPORFClassifier, sporf.SPORFRegressor, sporf.URerF, sporf.MORFClassifier])
@pytest.mark.parametrize("order", ["C", "F"])
def test_float32_fits_the_forest_of_its_float64_values(estimator, order):
    # The core reads float32 as it is: each value is exactly a float64, so
    # the forest is the float64 values' forest, byte for byte; the
    # out-of-bag values (computed afterwards, from float64) too.
    X, y = make_trunk(300, random_state=0)
    X32 = np.asarray((X * 1.1).astype(np.float32), order=order)
    X32[::17, 1] = np.nan  # missing values are read from floats too
    kw = dict(n_estimators=6, random_state=5)
    if estimator is not sporf.URerF:
        kw.update(oob_score=True)
    fit = (lambda m, X: m.fit(X)) if estimator is sporf.URerF else (lambda m, X: m.fit(X, y))
    a = fit(estimator(**kw), X32)
    b = fit(estimator(**kw), X32.astype(np.float64))
    assert a.to_bytes() == b.to_bytes()
    assert a.to_bytes() != fit(estimator(**kw), np.where(np.isnan(X32), np.nan, X)).to_bytes()
    if estimator is not sporf.URerF:
        assert a.oob_score_ == b.oob_score_
        oob = "oob_decision_function_" if hasattr(b, "oob_decision_function_") else "oob_prediction_"
        assert np.array_equal(getattr(a, oob), getattr(b, oob))


@pytest.mark.parametrize("fit_kw", [dict(quantiles=True, honest_fraction=0.5), dict(tune_oob=True)])
def test_float32_regressor_quantiles_honesty_and_tuning(fit_kw):
    X, y = make_trunk(300, random_state=1)
    X32 = X.astype(np.float32)
    kw = dict(n_estimators=8, random_state=2, **fit_kw)
    a = sporf.SPORFRegressor(**kw).fit(X32, y)
    b = sporf.SPORFRegressor(**kw).fit(X32.astype(np.float64), y)
    assert a.to_bytes() == b.to_bytes()


def test_float32_two_outputs():
    X, y = make_trunk(300, random_state=1)
    Y = np.column_stack([y, 1 - y])
    X32 = X.astype(np.float32)
    kw = dict(n_estimators=5, random_state=2)
    a = sporf.SPORFClassifier(**kw).fit(X32, Y)
    assert a.to_bytes() == sporf.SPORFClassifier(**kw).fit(X32.astype(np.float64), Y).to_bytes()


@pytest.mark.parametrize("order", ["C", "F"])
def test_float32_fit_makes_no_float64_copy(order):
    # numpy's allocations are traced (the core's are not): a fit on float32
    # allocates at most its float32 column copy (C order) or nothing of X's
    # size (F order), never the float64 copy (with it the peak was 2.2 times
    # X's bytes in both orders).
    rng = np.random.default_rng(0)
    X32 = np.asarray(rng.normal(size=(8000, 60)).astype(np.float32), order=order)
    y = (X32[:, 0] > 0).astype(int)
    tracemalloc.start()
    sporf.SPORFClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X32, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < (1.5 if order == "C" else 0.5) * X32.nbytes, peak


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


_SPLIT_MODES_SCRIPT = r"""
import hashlib, sys
import numpy as np
import sporf
from sklearn.datasets import make_classification, make_regression

X, y = make_classification(3000, 30, n_informative=12, random_state=0)
Xq, _ = make_classification(40000, 30, n_informative=12, random_state=1)
Xr, yr = make_regression(3000, 12, noise=5.0, random_state=2)
Xrq, _ = make_regression(40000, 12, random_state=3)
out = []
for kw in (dict(), dict(feature_combinations=6.0), dict(projection="axis")):
    # one thread: blocks of 32,768 rows, which narrow rows walk on float copies
    clf = sporf.SPORFClassifier(n_estimators=12, min_samples_leaf=1, random_state=4, n_jobs=1, **kw).fit(X, y)
    out += [clf.predict_proba(Xq), clf.apply(Xq)]
reg = sporf.SPORFRegressor(n_estimators=12, min_samples_leaf=1, quantiles=True, random_state=5, n_jobs=1).fit(Xr, yr)
out += [reg.predict(Xrq), reg.predict(Xrq[:30000], quantiles=[0.1, 0.9])]
iso = sporf.SPORFIsolation(n_estimators=30, random_state=6, n_jobs=1).fit(Xq[:5000])
out.append(iso.score_samples(Xq))
for a in out:
    print(hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
"""


def test_vector_and_row_by_row_splits_give_the_same_answers(tmp_path):
    """Where the CPU has AVX2 the partition walk splits eight rows at a time,
    and large blocks of narrow rows on float copies; SPORF_SCALAR=1 keeps it
    row by row on the double rows. Every prediction that walks the trees is
    the same to the bit either way."""
    import os
    import subprocess
    import sys

    script = tmp_path / "modes.py"
    script.write_text(_SPLIT_MODES_SCRIPT)

    def run(scalar):
        env = dict(os.environ)
        env.pop("SPORF_SCALAR", None)
        if scalar:
            env["SPORF_SCALAR"] = "1"
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    vector, scalar = run(False), run(True)
    assert len(vector) == 9
    assert vector == scalar
