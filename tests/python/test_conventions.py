"""What scikit-learn users expect of sporf's Python API: each
test failed on the code before the change it covers."""
import io

import numpy as np
import pytest

import sporf
from sporf.datasets import make_trunk

X, Y = make_trunk(120, n_features=6, random_state=0)


def test_load_takes_bytes_and_binary_file_objects(tmp_path):
    clf = sporf.SPORFClassifier(n_estimators=4, random_state=0).fit(X, Y)
    data = clf.to_bytes()
    for source in (data, bytearray(data), memoryview(data), io.BytesIO(data)):
        assert sporf.load(source).to_bytes() == data
    path = tmp_path / "m.sporf"
    clf.save(path)
    with open(path, "rb") as fh:
        assert sporf.load(fh).to_bytes() == data
    with open(path, "r", encoding="latin-1") as fh, pytest.raises(TypeError, match="binary mode"):
        sporf.load(fh)
    with pytest.raises(TypeError, match="path, the model's bytes or a binary file object"):
        sporf.load(42)
    with pytest.raises(ValueError, match="not a sporf model"):
        sporf.load(b"\x00" * 64)


def test_random_state_beyond_2_53_is_refused():
    for seed in (2 ** 53 + 1, 2 ** 64, -1):
        with pytest.raises(ValueError, match="random_state"):
            sporf.SPORFClassifier(n_estimators=2, random_state=seed).fit(X, Y)


def test_urerf_set_output_and_feature_names():
    urf = sporf.URerF(n_estimators=3, n_neighbors=3, random_state=0)
    assert urf.set_output(transform="default") is urf
    urf.fit(X)
    names = urf.get_feature_names_out()
    assert len(names) == len(X) and names[0] == "urerf0"
    assert urf.transform(X[:2]).shape == (2, len(X))
    # its result is sparse: pandas output is refused, as for scikit-learn's sparse transformers
    urf.set_output(transform="pandas")
    with pytest.raises(ValueError, match="(?i)sparse"):
        urf.transform(X[:2])


def test_distributed_fit_checks_the_data_on_the_client():
    """Bad data is refused before the cluster is touched (a client that
    cannot do anything proves it), not by every worker with a traceback."""
    import sporf.distributed as sd

    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError("the cluster was used (%s)" % name)

    est = sporf.SPORFClassifier(n_estimators=4)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sd.fit(est, X, Y[:-1], client=Untouchable())
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sd.fit(est, X, Y, sample_weight=np.ones(5), client=Untouchable())
    Xi = X.copy()
    Xi[7, 2] = np.inf
    with pytest.raises(ValueError, match=r"infinity \(row 7, column 2\)"):
        sd.fit(est, Xi, Y, client=Untouchable())
    with pytest.raises(ValueError, match="2D"):
        sd.fit(est, X[0], Y[:1], client=Untouchable())


def test_sqrt_resolves_as_documented():
    """"sqrt" is floor(sqrt(p)) for axis-aligned forests and ceil(sqrt(p))
    for oblique ones, as the docstring says."""
    doc = sporf.SPORFClassifier.__doc__
    assert 'floor(sqrt(p)) for "axis"' in doc and "ceil(sqrt(p)) for oblique projections" in doc


@pytest.mark.parametrize("make", [
    # a fixed leaf size: with "auto" the trees added take the size the first fit chose
    # (test_leaf_choice.py), which one fit of all the trees may not choose
    lambda **kw: sporf.SPORFClassifier(min_samples_leaf=3, **kw),
    lambda **kw: sporf.SPORFRegressor(min_samples_leaf=3, **kw),
    lambda **kw: sporf.MORFClassifier(data_dims=(2, 3), **kw),
], ids=["classifier", "regressor", "morf"])
def test_warm_start_adds_trees_of_the_same_forest(make):
    y = Y if "Classifier" in type(make()).__name__ else X[:, 0] * 2.0
    est = make(n_estimators=5, warm_start=True, oob_score=True, random_state=3)
    est.fit(X, y)
    est.set_params(n_estimators=12)
    est.fit(X, y)
    whole = make(n_estimators=12, oob_score=True, random_state=3).fit(X, y)
    assert est.to_bytes() == whole.to_bytes()
    oob = est.oob_decision_function_ if hasattr(est, "oob_decision_function_") else est.oob_prediction_
    np.testing.assert_array_equal(oob, getattr(whole, "oob_decision_function_", None)
                                  if hasattr(whole, "oob_decision_function_") else whole.oob_prediction_)
    with pytest.warns(UserWarning, match="does not fit new trees"):
        est.fit(X, y)
    est.set_params(n_estimators=4)
    with pytest.raises(ValueError, match="at least the 12 trees"):
        est.fit(X, y)


def test_warm_start_with_a_drawn_seed_and_refused_changes():
    np.random.seed(0)
    est = sporf.SPORFClassifier(n_estimators=3, min_samples_leaf=3, warm_start=True).fit(X, Y)  # seed from numpy
    seed = sporf.load(est.to_bytes()).random_state
    est.set_params(n_estimators=6).fit(X, Y)
    assert est.to_bytes() == sporf.SPORFClassifier(n_estimators=6, min_samples_leaf=3,
                                                   random_state=seed).fit(X, Y).to_bytes()
    est.set_params(n_estimators=8, max_depth=3)
    with pytest.raises(ValueError, match="warm_start.*max_depth"):
        est.fit(X, Y)
    # without warm_start a refit grows a new forest
    cold = sporf.SPORFClassifier(n_estimators=3, random_state=1).fit(X, Y)
    assert cold.set_params(n_estimators=4).fit(X, Y).to_bytes() == \
        sporf.SPORFClassifier(n_estimators=4, random_state=1).fit(X, Y).to_bytes()


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_x_gives_the_dense_fit_and_predictions(fmt, monkeypatch):
    """scipy sparse X is densified a block at a time (blocks shrunk here so
    several are used), and gives the dense fit's model bytes and answers."""
    import scipy.sparse as sparse

    from sporf import _sparse

    monkeypatch.setattr(_sparse, "BLOCK_ELEMENTS", 200)
    rng = np.random.default_rng(0)
    Xd = np.where(rng.random(X.shape) < 0.3, X, 0.0)  # mostly zeros (+0.0, as sparse zeros are)
    Xsp = getattr(sparse, fmt + "_matrix")(Xd)
    for make in (lambda: sporf.SPORFClassifier(n_estimators=5, random_state=0),
                 lambda: sporf.SPORFRegressor(n_estimators=5, random_state=0)):
        target = Y if isinstance(make(), sporf.SPORFClassifier) else Xd[:, 0]
        dense, sp_fit = make().fit(Xd, target), make().fit(Xsp, target)
        assert sp_fit.to_bytes() == dense.to_bytes()
        np.testing.assert_array_equal(sp_fit.predict(Xsp), dense.predict(Xd))
        np.testing.assert_array_equal(sp_fit.apply(Xsp), dense.apply(Xd))
    urf = sporf.URerF(n_estimators=3, random_state=0)
    assert urf.fit(Xsp).to_bytes() == sporf.URerF(n_estimators=3, random_state=0).fit(Xd).to_bytes()
    assert sporf.SPORFClassifier().__sklearn_tags__().input_tags.sparse


def test_oob_error_curve():
    """The out-of-bag error as trees are added (randomForest's err.rate, R's
    plot(fit)): its last point is the forest's out-of-bag error."""
    clf = sporf.SPORFClassifier(n_estimators=40, oob_score=True, random_state=0).fit(X, Y)
    curve = clf.oob_error_curve_
    assert curve.shape == (40,) and np.all((curve >= 0) & (curve <= 1))
    assert curve[-1] == pytest.approx(1 - clf.oob_score_, abs=1e-12)
    assert curve[:5].mean() > curve[-10:].mean()  # more trees, fewer errors
    # each class's curve: the share of its out-of-bag rows misclassified
    by_class = clf.oob_error_curve_by_class_
    assert by_class.shape == (40, len(clf.classes_))
    pred = clf.classes_[np.argmax(clf.oob_decision_function_, axis=1)]
    for k, c in enumerate(clf.classes_):
        assert by_class[-1, k] == pytest.approx(np.mean(pred[Y == c] != c), abs=1e-12)
    reg = sporf.SPORFRegressor(n_estimators=40, oob_score=True, random_state=0).fit(X, X[:, 0] * 3)
    mse = np.mean((reg.oob_prediction_ - X[:, 0] * 3) ** 2)
    assert reg.oob_error_curve_[-1] == pytest.approx(mse, rel=1e-9)
    assert not hasattr(sporf.SPORFClassifier(n_estimators=3, random_state=0).fit(X, Y), "oob_error_curve_")


def test_vote_shares_match_r_and_count_leaf_winners():
    clf = sporf.SPORFClassifier(n_estimators=15, max_depth=3, random_state=0).fit(X, Y)
    votes = clf.predict_votes(X)
    assert np.allclose(votes.sum(axis=1), 1.0)
    assert np.all(np.isclose(votes * 15, np.round(votes * 15)))  # whole numbers of trees
    # shallow trees: votes differ from the averaged distributions, but agree on most rows
    assert not np.allclose(votes, clf.predict_proba(X))
    assert np.mean(votes.argmax(1) == clf.predict_proba(X).argmax(1)) > 0.9


def test_a_loaded_model_has_its_forest_not_its_out_of_bag_results():
    # as load()'s docstring says: no oob_score_ and the like, while oob=True
    # predictions on the training rows still come out the same
    reg = sporf.SPORFRegressor(n_estimators=8, oob_score=True, quantiles=True, random_state=0).fit(X, X[:, 0])
    loaded = sporf.load(reg.to_bytes())
    for name in ("oob_score_", "oob_prediction_", "oob_error_curve_", "interval_scores_"):
        assert hasattr(reg, name) and not hasattr(loaded, name), name
    assert "Out-of-bag results are not part of the model file" in sporf.load.__doc__
    np.testing.assert_array_equal(loaded.predict(X, oob=True), reg.predict(X, oob=True))
