"""Bad input gives a ValueError naming the problem, never a crash."""
import numpy as np
import pytest

import sporf
from sporf.datasets import make_trunk

X, Y = make_trunk(60, n_features=4, random_state=0)


def with_nan():
    X2 = X.copy()
    X2[3, 1] = np.nan
    return X2


def with_inf():
    X2 = X.copy()
    X2[5, 0] = np.inf
    return X2


FIT_CASES = [
    ("inf in X", lambda: (with_inf(), Y, {}), r"infinity \(row 5, column 0\)"),
    ("zero rows", lambda: (np.empty((0, 4)), np.empty(0), {}), "0 sample"),
    ("zero columns", lambda: (np.empty((60, 0)), Y, {}), "0 feature"),
    ("y of the wrong length", lambda: (X, Y[:-1], {}), "inconsistent numbers of samples"),
    ("non-numeric X", lambda: (np.array([["a", "b"]] * 60), Y, {}), "could not convert|numeric"),
    ("max_features = 0", lambda: (X, Y, {"max_features": 0}), "max_features"),
    ("max_features < 0", lambda: (X, Y, {"max_features": -0.5}), "max_features"),
    ("feature_combinations = 0", lambda: (X, Y, {"feature_combinations": 0}), "feature_combinations"),
    ("feature_combinations < 0", lambda: (X, Y, {"feature_combinations": -1.0}), "feature_combinations"),
    ("n_estimators = 0", lambda: (X, Y, {"n_estimators": 0}), "n_estimators"),
    ("unknown projection", lambda: (X, Y, {"projection": "dense"}), "projection"),
    ("unknown criterion", lambda: (X, Y, {"criterion": "mse"}), "criterion"),
    ("min_samples_split = 1", lambda: (X, Y, {"min_samples_split": 1}), "min_samples_split"),
    ("min_samples_leaf = 0", lambda: (X, Y, {"min_samples_leaf": 0}), "min_samples_leaf"),
    ("max_depth = 0", lambda: (X, Y, {"max_depth": 0}), "max_depth"),
    ("negative min_impurity_decrease", lambda: (X, Y, {"min_impurity_decrease": -1.0}), "min_impurity_decrease"),
    ("max_samples too large", lambda: (X, Y, {"max_samples": 1000}), "max_samples"),
    ("max_samples above the rows without bootstrap", lambda: (X, Y, {"max_samples": 1000, "bootstrap": False}),
     "max_samples"),
    ("oob without bootstrap", lambda: (X, Y, {"oob_score": True, "bootstrap": False}), "bootstrap"),
    ("bad class_weight", lambda: (X, Y, {"class_weight": "heavy"}), "class_weight"),
    ("class_weight with unknown class", lambda: (X, Y, {"class_weight": {7: 2.0}}), "class_weight"),
    ("min_weight_fraction_leaf > 0.5", lambda: (X, Y, {"min_weight_fraction_leaf": 0.7}), "min_weight_fraction_leaf"),
    ("n_jobs = 0", lambda: (X, Y, {"n_jobs": 0}), "n_jobs"),
]


@pytest.mark.parametrize("name,case,match", FIT_CASES, ids=[c[0] for c in FIT_CASES])
def test_fit_rejects(name, case, match):
    Xb, yb, params = case()
    with pytest.raises(ValueError, match=match):
        sporf.SPORFClassifier(**{"n_estimators": 3, **params}).fit(Xb, yb)


def test_negative_sample_weight():
    with pytest.raises(ValueError, match="(?i)negative"):
        sporf.SPORFClassifier(n_estimators=3).fit(X, Y, sample_weight=-np.ones(60))


@pytest.fixture(scope="module")
def fitted():
    return sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, Y)


def test_predict_wrong_number_of_columns(fitted):
    with pytest.raises(ValueError, match="4 features"):
        fitted.predict(X[:, :3])


def test_nan_is_a_missing_value_not_an_error(fitted):
    # NaN in X is learned at fit and routed at prediction (test_missing.py);
    # infinity stays an error naming where it is.
    proba = fitted.predict_proba(with_nan())
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    sporf.SPORFClassifier(n_estimators=3, random_state=0).fit(with_nan(), Y)
    with pytest.raises(ValueError, match=r"infinity \(row 5, column 0\)"):
        fitted.predict_proba(with_inf())


def test_unfitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        sporf.SPORFClassifier().predict(X)


def test_truncated_model_file(fitted, tmp_path):
    data = fitted.to_bytes()
    for cut in [0, 7, 24, 100, len(data) // 2, len(data) - 1]:
        path = tmp_path / ("cut%d.sporf" % cut)
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="truncated|not a sporf model|only"):
            sporf.load(path)


def test_bit_flipped_model_file(fitted, tmp_path):
    data = bytearray(fitted.to_bytes())
    rng = np.random.default_rng(0)
    for pos in rng.integers(0, len(data), size=40):
        flipped = bytearray(data)
        flipped[pos] ^= 1 << int(rng.integers(0, 8))
        path = tmp_path / "flip.sporf"
        path.write_bytes(bytes(flipped))
        with pytest.raises(ValueError, match="checksum|magic|version|truncated"):
            sporf.load(path)


def test_not_a_model(tmp_path):
    path = tmp_path / "junk.sporf"
    path.write_bytes(b"hello world, this is not a forest" * 3)
    with pytest.raises(ValueError, match="not a sporf model"):
        sporf.load(path)


def test_class_weight_naming_a_class_not_in_y_says_so():
    """The message names the label of class_weight that y lacks, in R's words."""
    X, y = make_trunk(100, 4, random_state=0)
    with pytest.raises(ValueError, match="class_weight names classes that are not in y: 5"):
        sporf.SPORFClassifier(class_weight={0: 1, 5: 3}, n_estimators=3).fit(X, y)


@pytest.mark.parametrize("cls, kw, hint", [
    (sporf.SPORFClassifier, dict(n_trees=10), "did you mean n_estimators"),
    (sporf.SPORFRegressor, dict(mtry=3), "did you mean max_features"),
    (sporf.MORFClassifier, dict(nodesize=5), "did you mean min_samples_leaf"),
    (sporf.URerF, dict(max_feature=2), "did you mean max_features"),
    (sporf.SPORFClassifier, dict(weights=1), "did you mean sample_weight, an argument of fit"),
    (sporf.SPORFClassifier, dict(n_tree=10), "did you mean n_estimators"),
])
def test_unknown_parameters_name_the_public_class_and_the_sporf_name(cls, kw, hint):
    with pytest.raises(TypeError, match="%s got an unknown parameter %r; %s" % (cls.__name__, list(kw)[0], hint)):
        cls(**kw)


def test_a_parameter_of_another_estimator_names_the_estimators_that_take_it():
    # quantile forests are regressors: a classifier given quantiles=True says so
    with pytest.raises(TypeError, match=r"SPORFClassifier got an unknown parameter 'quantiles' "
                                        r"\(a parameter of SPORFRegressor and MORFRegressor\)"):
        sporf.SPORFClassifier(quantiles=True)
    with pytest.raises(TypeError, match=r"URerF got an unknown parameter 'class_weight' \(a parameter of "
                                        r"SPORFClassifier and MORFClassifier\)"):
        sporf.URerF(class_weight="balanced")


def test_one_class_fits_as_scikit_learn_does():
    """y of one class: every tree is a leaf predicting it with probability 1,
    as scikit-learn's forests do; the model saves, loads and predicts the same."""
    X, _ = make_trunk(60, 4, random_state=0)
    clf = sporf.SPORFClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, np.full(60, "only"))
    assert clf.classes_.tolist() == ["only"]
    assert clf.predict(X[:3]).tolist() == ["only"] * 3
    assert clf.predict_proba(X[:2]).tolist() == [[1.0], [1.0]]
    assert sporf.load(clf.to_bytes()).predict(X[:2]).tolist() == ["only"] * 2


def test_out_of_bag_predictions_refuse_rows_that_are_not_the_training_rows():
    X, y = make_trunk(120, 4, random_state=0)
    y = X[:, 0] + X[:, 1]
    reg = sporf.SPORFRegressor(n_estimators=5, random_state=0, quantiles=True).fit(X, y)
    assert reg.predict(X, oob=True).shape == (120,)
    for quantiles in (None, [0.1, 0.9]):
        with pytest.raises(ValueError, match="oob=True is for the training data: the forest was grown on 120 "
                                             "rows, X has 30"):
            reg.predict(X[:30], quantiles=quantiles, oob=True)


@pytest.mark.parametrize("cls", [sporf.SPORFRegressor, sporf.SPORFClassifier])
def test_a_survival_y_given_to_a_regressor_or_classifier_names_sporfsurvival(cls):
    """scikit-survival's structured y (event, time) is refused with the
    estimator that takes it, not cast to numbers or taken as class labels."""
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.array([(i % 2 == 0, 1.0 + i) for i in range(20)], dtype=[("fstat", "?"), ("lenfol", "<f8")])
    with pytest.raises(ValueError, match="fields fstat, lenfol: a survival response .* SPORFSurvival"):
        cls(n_estimators=2).fit(X, y)


def test_a_time_and_event_frame_as_two_outputs_is_refused_with_the_survival_form():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = pd.DataFrame({"time": rng.exponential(size=40), "status": rng.integers(0, 2, 40)})
    with pytest.raises(ValueError, match=r"SPORFSurvival\(\)\.fit\(X, \(y\['status'\] == 1, y\['time'\]\)\)"):
        sporf.SPORFRegressor(n_estimators=2).fit(X, y)
    y12 = y.assign(status=y["status"] + 1).rename(columns={"time": "futime", "status": "death"})
    with pytest.raises(ValueError, match="status 1/2: 2 is the event"):
        sporf.SPORFRegressor(n_estimators=2).fit(X, y12)
    # other names: two outputs, as asked
    assert sporf.SPORFRegressor(n_estimators=2).fit(X, y.rename(columns={"time": "a", "status": "b"})).n_outputs_ == 2


@pytest.mark.parametrize("kind", ["mean", "quantiles", "survival"])
def test_oob_predictions_refuse_rows_that_are_not_the_training_rows(kind):
    """oob=True answers for the training rows in their order: another X of as
    many rows, or the training rows reordered, is refused."""
    X, _ = make_trunk(120, 5, random_state=0)
    y = X[:, 0] + 0.1 * np.random.default_rng(1).normal(size=120)
    if kind == "survival":
        est = sporf.SPORFSurvival(n_estimators=10, random_state=0).fit(X, (y > 0, np.abs(y) + 0.1))
        call = lambda A: est.predict(A, oob=True)  # noqa: E731
    else:
        est = sporf.SPORFRegressor(n_estimators=10, quantiles=kind == "quantiles", random_state=0).fit(X, y)
        call = (lambda A: est.predict(A, oob=True)) if kind == "mean" else (  # noqa: E731
            lambda A: est.predict(A, quantiles=[0.5], oob=True))
    assert np.isfinite(call(X)).any()  # the training rows: answered
    for other in (X[::-1].copy(), X + 1.0):
        with pytest.raises(ValueError, match="oob=True is for the training data.*another order"):
            call(other)
    again = sporf.load(est.to_bytes())  # a loaded forest knows neither: the rows are taken as given
    np.testing.assert_array_equal(again.predict(X, oob=True) if kind != "quantiles" else
                                  again.predict(X, quantiles=[0.5], oob=True), call(X))


def test_survival_y_errors_say_what_the_codes_most_likely_are():
    X = np.random.default_rng(0).normal(size=(20, 3))
    t, e = np.arange(20) + 1.0, np.arange(20) % 2
    swapped = np.array(list(zip(t, e.astype(bool))), dtype=[("time", "<f8"), ("event", "?")])
    with pytest.raises(ValueError, match=r"read by position.*pass y\[\['event', 'time'\]\]"):
        sporf.SPORFSurvival(n_estimators=2).fit(X, swapped)
    with pytest.raises(ValueError, match="status == 2 \\(or status - 1\\)"):
        sporf.SPORFSurvival(n_estimators=2).fit(X, (e + 1, t))
    with pytest.raises(ValueError, match="0/1/2.*status == 2"):
        sporf.SPORFSurvival(n_estimators=2).fit(X, (np.arange(20) % 3, t))
