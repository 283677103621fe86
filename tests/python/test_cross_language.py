"""The cross-language contract: Python and R, same data, parameters and seed
=> byte-identical model files and identical predictions, for any thread count;
a model saved by either language predicts identically in the other (the
committed golden files: test_golden_files.py).

R is driven in-process through rpy2; the R package is found in SPORF_R_LIB
(the Makefile's project-local library). These tests are never skipped: a
machine without R or rpy2 fails them (``make test`` installs both)."""
import os
import pathlib
import re

import numpy as np
import pytest

import sporf
from sporf.datasets import make_manifold, make_orthant, make_sparse_parity, make_trunk

from rbridge import GOLDEN, HERE, REPO, r, r_fit, r_labels, r_matrix, r_model_bytes, r_proba, r_value  # noqa: F401,E402
import rpy2.rinterface  # noqa: E402
import rpy2.robjects as ro  # noqa: E402



def assert_same_numeric_defaults(r, py_fn, r_name):
    """The R function has py_fn's arguments, in order, with the same defaults
    (none, NULL or the same number)."""
    import inspect

    py_defaults = {k: v.default for k, v in inspect.signature(py_fn).parameters.items()}
    shown = r("vapply(formals(sporf::%s), function(v) paste(deparse(v), collapse = ''), '')" % r_name)
    assert list(shown.names) == list(py_defaults)
    r_defaults = dict(zip(shown.names, shown))
    for k, v in py_defaults.items():
        if v is inspect.Parameter.empty:
            assert r_defaults[k] == "", k
        elif v is None:
            assert r_defaults[k] == "NULL", k
        else:
            assert float(r_defaults[k]) == v, k


def weights_for(n):
    return np.linspace(0.2, 2.0, n)


CASES = [
    # (name, data, params for both languages)
    ("trunk-defaults", lambda: make_trunk(300, 20, random_state=0), {}),
    ("orthant-axis-entropy",
     lambda: make_orthant(400, 4, random_state=1),
     dict(projection="axis", criterion="entropy", max_depth=6, min_samples_leaf=3)),
    ("parity-dense-nobootstrap",
     lambda: make_sparse_parity(300, 8, random_state=2),
     dict(max_features=64, feature_combinations=2.5, bootstrap=False, min_samples_split=4)),
    ("trunk-subsample-balanced",
     lambda: make_trunk(250, 10, random_state=3),
     dict(max_samples=0.6, class_weight="balanced_subsample", min_weight_fraction_leaf=0.01,
          max_features="log2", min_impurity_decrease=0.001)),
    ("orthant-weights",
     lambda: make_orthant(300, 3, random_state=4),
     dict(class_weight={0: 2.0, 5: 0.5}, sample_weight="linspace", max_features=None)),
    ("trunk-random-thresholds",
     lambda: make_trunk(300, 12, random_state=6),
     dict(splitter="random", bootstrap=False)),
    ("trunk-subsample-no-bootstrap",
     lambda: make_trunk(300, 12, random_state=7),
     dict(bootstrap=False, max_samples=0.632, oob_score=True)),
    ("trunk-auto-leaf-subsample",
     lambda: make_trunk(300, 12, random_state=8),
     dict(min_samples_leaf="auto", bootstrap=False, max_samples=0.7, splitter="random")),
    ("trunk-mixed-auto-leaf", lambda: make_trunk(300, 12, random_state=9), dict(splitter="mixed", oob_score=True)),
    ("trunk-auto-kinds", lambda: make_trunk(300, 12, random_state=10), dict(splitter="auto", oob_score=True)),
]


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("name,make,params", CASES, ids=[c[0] for c in CASES])
def test_same_seed_same_model_and_probabilities(r, name, make, params, n_jobs):
    X, y = make()
    params = dict(params)
    sw = weights_for(len(y)) if params.pop("sample_weight", None) == "linspace" else None
    common = dict(n_estimators=15, random_state=123, n_jobs=n_jobs, **params)
    py = sporf.SPORFClassifier(**common).fit(X, y, sample_weight=sw)
    rm = r_fit(r, X, y, sample_weight=sw, **{k: v for k, v in common.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    Xt, _ = make()
    np.testing.assert_array_equal(r_proba(r, rm, Xt, n_jobs=n_jobs), py.predict_proba(Xt))


def test_oob_results_match(r):
    X, y = make_trunk(300, 10, random_state=5)
    py = sporf.SPORFClassifier(n_estimators=20, random_state=9, oob_score=True).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=20, random_state=9, oob_score=True)
    np.testing.assert_array_equal(np.array(rm.rx2("oob_decision_function")).reshape(300, 2, order="F"),
                                  py.oob_decision_function_)
    assert float(rm.rx2("oob_score")[0]) == py.oob_score_


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_permutation_importance_matches(r, task):
    X, y = make_trunk(300, 10, random_state=5)
    kw = dict(n_estimators=20, random_state=9, importance="permutation", n_jobs=2)
    if task == "regression":
        y = X[:, 0] + X[:, 1] * X[:, 2]
        py = sporf.SPORFRegressor(**kw).fit(X, y)
        rm = r["sporf"](r_matrix(X), ro.FloatVector(y), **{k: r_value(v) for k, v in kw.items()})
    else:
        py = sporf.SPORFClassifier(**kw).fit(X, y)
        rm = r_fit(r, X, y, **kw)
    imp = r["importance"](rm, type="permutation")
    np.testing.assert_array_equal(np.array(imp), py.permutation_importances_)
    np.testing.assert_array_equal(np.array(r["attr"](imp, "sd")), py.permutation_importances_std_)
    assert np.argmax(py.permutation_importances_) in (0, 1, 2, 3)


@pytest.mark.parametrize("kind", ["sporf", "honest", "weighted", "morf"])
def test_quantiles_match(r, kind):
    # the same quantile forest from both languages: the same model bytes, and
    # the same quantiles for new rows and out of bag
    rng = np.random.default_rng(11)
    X = rng.uniform(-3, 3, (300, 4))
    y = X[:, 0] + (1 + np.abs(X[:, 0])) * rng.standard_normal(300)
    kw = dict(n_estimators=15, random_state=4, quantiles=True, n_jobs=2)
    extra = {}
    if kind == "honest":
        kw.update(honest_fraction=0.5)
    if kind == "weighted":
        extra["sample_weight"] = rng.uniform(0.5, 2.0, 300)
    if kind == "morf":
        kw.update(data_dims=[2, 2])
        py = sporf.MORFRegressor(**kw).fit(X, y)
        rm = r["morf"](r_matrix(X), ro.FloatVector(y), **{k: r_value(v) for k, v in kw.items()})
    else:
        py = sporf.SPORFRegressor(**kw).fit(X, y, **extra)
        rm = r["sporf"](r_matrix(X), ro.FloatVector(y), **{k: r_value(v) for k, v in {**kw, **extra}.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    probs = [0.9, 0.1, 0.5]
    Xt = rng.uniform(-3, 3, (50, 4))
    expected = py.predict(Xt, quantiles=probs)
    got = np.array(r["predict"](rm, r_matrix(Xt), type="quantiles", quantiles=ro.FloatVector(probs)))
    np.testing.assert_array_equal(got, expected)
    assert np.all(expected[:, 1] <= expected[:, 2]) and np.all(expected[:, 2] <= expected[:, 0])
    oob = py.predict(X, quantiles=probs, oob=True)
    got = np.array(r["predict"](rm, r_matrix(X), type="quantiles", quantiles=ro.FloatVector(probs), oob=True))
    np.testing.assert_array_equal(got, oob)
    # calibrated intervals: the same out-of-bag scores, the same intervals;
    # then calibrated on held-out rows
    np.testing.assert_array_equal(np.array(r["$"](rm, "interval_scores")), py.interval_scores_)
    for coverage, calibrated in [(0.8, True), (0.9, True), (0.9, False)]:
        got = np.array(r["predict"](rm, r_matrix(Xt), type="interval", coverage=coverage, calibrated=calibrated))
        np.testing.assert_array_equal(got, py.predict_interval(Xt, coverage, calibrated=calibrated))
    Xc = rng.uniform(-3, 3, (80, 4))
    yc = Xc[:, 0] + rng.standard_normal(80)
    rm = r["calibrate_intervals"](rm, r_matrix(Xc), ro.FloatVector(yc))
    py.calibrate_intervals(Xc, yc)
    got = np.array(r["predict"](rm, r_matrix(Xt), type="interval", coverage=0.8))
    np.testing.assert_array_equal(got, py.predict_interval(Xt, 0.8))


@pytest.mark.parametrize("task", ["regression", "two classes", "three classes"])
def test_categorical_features_give_the_same_forest(r, task):
    # a pandas category column and an R factor with the same levels, and
    # integer codes named in categorical_features: byte-identical models and
    # the same predictions, unseen levels included
    import pandas as pd

    rng = np.random.default_rng(21)
    n = 400
    level = rng.integers(0, 12, n)
    x = rng.normal(size=(n, 2))
    signal = rng.normal(0, 2, 12)[level] + x[:, 0]
    names = np.array(["lv%02d" % k for k in range(12)])
    names_r = ro.StrVector(names.tolist())
    kw = dict(n_estimators=10, random_state=7, n_jobs=2)
    if task == "regression":
        y = signal + rng.normal(size=n)
        y_r = ro.FloatVector(y)
        est = sporf.SPORFRegressor
    else:
        k = 2 if task == "two classes" else 3
        y = np.array(["c%d" % c for c in np.digitize(signal, np.quantile(signal, np.linspace(0, 1, k + 1)[1:-1]))])
        y_r = ro.StrVector(y.tolist())
        est = sporf.SPORFClassifier
    frame = pd.DataFrame({"f": pd.Categorical(names[level], categories=names), "a": x[:, 0], "b": x[:, 1]})
    py = est(**kw).fit(frame, y)
    factor = ro.r["factor"](ro.StrVector(names[level].tolist()), levels=names_r)
    df = ro.r["data.frame"](f=factor, a=ro.FloatVector(x[:, 0]), b=ro.FloatVector(x[:, 1]))
    rm = r["sporf"](df, y_r, **{k: r_value(v) for k, v in kw.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    # new rows: a level the fit never saw and a missing one go where missing values go
    new = frame.head(6).copy()
    new["f"] = pd.Categorical(["lv03", "zz", None, "lv11", "lv00", "lv05"], categories=list(names) + ["zz"])
    new_r = ro.r["data.frame"](f=ro.r["factor"](ro.StrVector(["lv03", "zz", "NA", "lv11", "lv00", "lv05"]),
                                                 exclude="NA"),
                               a=ro.FloatVector(new["a"]), b=ro.FloatVector(new["b"]))
    if task == "regression":
        np.testing.assert_array_equal(np.array(r["predict"](rm, new_r)), py.predict(new))
    else:
        np.testing.assert_array_equal(np.array(r["predict"](rm, new_r, type="prob")), py.predict_proba(new))
    # the same levels given as integer codes in categorical_features
    codes = np.column_stack([level, x]).astype(float)
    py_codes = est(categorical_features=[0], **kw).fit(codes, y)
    rm_codes = r["sporf"](r_matrix(codes), y_r, categorical_features=1, **{k: r_value(v) for k, v in kw.items()})
    assert r_model_bytes(rm_codes) == py_codes.to_bytes()
    if task == "regression":
        np.testing.assert_array_equal(py_codes.predict(codes), py.predict(frame))


def test_a_forest_fitted_from_dask_partitions_loads_in_r(r, tmp_path):
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    import sporf.distributed as sd

    X, y = make_trunk(600, 6, random_state=3)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        py = sd.fit(sporf.SPORFClassifier(n_estimators=6, max_samples=0.5, random_state=2),
                    da.from_array(X, chunks=150), y, client=client)
    path = tmp_path / "dask.sporf"
    py.save(path)
    rm = r["sporf_load"](str(path))
    np.testing.assert_array_equal(r_proba(r, rm, X), py.predict_proba(X))


def test_per_tree_access_matches(r):
    # get_tree (R: 1-based rows) and each tree's predictions (R: predict.all)
    X, y = make_trunk(200, 6, random_state=8)
    py = sporf.SPORFClassifier(n_estimators=4, random_state=3).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=4, random_state=3)
    for t in range(4):
        view = py.get_tree(t)
        rt = r["get_tree"](rm, t + 1)
        left = np.array(rt.rx2("left"))
        np.testing.assert_array_equal(np.where(left > 0, left - 1, -1), view.children_left)
        np.testing.assert_array_equal(np.array(rt.rx2("threshold")), view.threshold)
        np.testing.assert_array_equal(np.array(rt.rx2("missing"), dtype=object)[view.children_left >= 0],
                                      view.missing[view.children_left >= 0])
    individual = r["predict"](rm, r_matrix(X), **{"predict.all": True}).rx2("individual")
    classes = np.array(individual).reshape(200, 4, order="F")
    expected = py.classes_[py.predict_trees(X).argmax(axis=2)]
    np.testing.assert_array_equal(classes.astype(int), expected)


def test_data_frames_with_feature_names_match(r):
    import pandas as pd
    X, y = make_trunk(200, 5, random_state=6)
    cols = ["alpha", "beta", "gamma", "delta", "epsilon"]
    py = sporf.SPORFClassifier(n_estimators=10, random_state=4).fit(pd.DataFrame(X, columns=cols), y)
    df = ro.r["data.frame"](**{c: ro.FloatVector(X[:, i]) for i, c in enumerate(cols)})
    rm = r["sporf"](df, r_labels(y), n_estimators=10, random_state=4)
    assert r_model_bytes(rm) == py.to_bytes()
    assert list(r["names"](r["importance"](rm))) == cols


def test_labels_of_each_kind_round_trip(r, tmp_path):
    X, _ = make_trunk(120, 4, random_state=7)
    y_int = np.tile([10, -3, 7], 40)
    y_str = np.tile(["b", "a", "Zeta"], 40)
    for y in (y_int, y_str):
        py = sporf.SPORFClassifier(n_estimators=5, random_state=1).fit(X, y)
        rm = r_fit(r, X, y, n_estimators=5, random_state=1)
        assert r_model_bytes(rm) == py.to_bytes()
        assert list(rm.rx2("classes")) == [str(c) for c in py.classes_]
    # R's logical labels load in Python as booleans, and back.
    r.assign("xl", r_matrix(X))
    rm = r("sporf(xl, rep(c(TRUE, FALSE), 60), n_estimators = 5, random_state = 1)")
    path = tmp_path / "logical.sporf"
    r["sporf_save"](rm, str(path))
    loaded = sporf.load(path)
    assert loaded.classes_.dtype == bool and list(loaded.classes_) == [False, True]


def test_model_saved_by_r_predicts_identically_in_python(r, tmp_path):
    X, y = make_orthant(300, 3, random_state=8)
    rm = r_fit(r, X, y, n_estimators=25, random_state=77)
    path = tmp_path / "from_r.sporf"
    r["sporf_save"](rm, str(path))
    py = sporf.load(path)
    Xt, _ = make_orthant(2000, 3, random_state=9)
    np.testing.assert_array_equal(py.predict_proba(Xt), r_proba(r, rm, Xt))
    assert list(py.classes_) == sorted(set(y.tolist()))
    np.testing.assert_array_equal(py.apply(Xt[:50]),
                                  np.array(r["predict"](rm, r_matrix(Xt[:50]), type="leaf")).reshape(50, -1, order="F"))


def test_model_saved_by_python_predicts_identically_in_r(r, tmp_path):
    X, y = make_sparse_parity(400, 6, random_state=10)
    py = sporf.SPORFClassifier(n_estimators=25, random_state=31, max_features=36).fit(X, y)
    path = tmp_path / "from_python.sporf"
    py.save(path)
    rm = r["sporf_load"](str(path))
    Xt, _ = make_sparse_parity(2000, 6, random_state=11)
    np.testing.assert_array_equal(r_proba(r, rm, Xt, n_jobs=2), py.predict_proba(Xt))
    np.testing.assert_array_equal(np.array(r["importance"](rm)), py.feature_importances_)


def test_r_errors_do_not_take_python_down(r, tmp_path):
    bad = tmp_path / "bad.sporf"
    bad.write_bytes((GOLDEN / "python_model.sporf").read_bytes()[:100])
    from rpy2.rinterface_lib.embedded import RRuntimeError

    with pytest.raises(RRuntimeError, match="truncated|corrupt"):
        r["sporf_load"](str(bad))
    with pytest.raises(ValueError, match="truncated|corrupt"):
        sporf.load(bad)
    # Both still work afterwards.
    assert sporf.load(GOLDEN / "python_model.sporf").n_classes_ == 3
    assert len(r["sporf_load"](str(GOLDEN / "python_model.sporf")).rx2("classes")) == 3


@pytest.mark.parametrize("cls,r_fun", [(sporf.SPORFClassifier, "sporf.default"),
                                       (sporf.MORFClassifier, "morf.default"),
                                       (sporf.SPORFRegressor, "sporf.default"),
                                       (sporf.MORFRegressor, "morf.default")])
def test_r_has_every_python_parameter_with_the_same_default(r, cls, r_fun):
    """One R function serves both of Python's classes: its parameters are the
    union; class_weight is the classifier's; criterion and some sizes
    default by task in R (criterion = NULL, the sizes expressions of y),
    resolved to the default of the Python class of the task (checked by
    fitting)."""
    import inspect

    py_defaults = {k: v.default for k, v in inspect.signature(cls).parameters.items()}
    shown = r("vapply(formals(sporf:::%s), function(v) paste(deparse(v), collapse = ''), '')" % r_fun)
    r_defaults = dict(zip(shown.names, shown))
    for name in ("x", "y", "...", "sample_weight"):  # sample_weight is fit()'s argument in Python
        r_defaults.pop(name)
    if "class_weight" not in py_defaults:  # a regressor
        assert r_defaults.pop("class_weight") == "NULL"
    else:  # a classifier: R's function takes quantiles for its regression forests
        assert r_defaults.pop("quantiles") == "FALSE"
    # Python's warm_start is R's grow(fit, n_more) (a function, as R's fits are values)
    assert py_defaults.pop("warm_start") is False
    assert "grow" in list(r("getNamespaceExports('sporf')"))
    assert r_defaults.pop("criterion") == "NULL"
    # Defaults that are expressions of y (the task's) are checked on a fitted forest;
    # the usage ?sporf shows calls only functions a user can call (no internal
    # .helper(y)).
    assert not [v for v in r_defaults.values() if re.search(r"(^|[^\w.])\.[A-Za-z_]\w*\(", v)]
    by_task = sorted(k for k, v in r_defaults.items() if v.startswith("if ("))
    assert by_task, "the R function has no task-dependent default left to check"
    task_y = "rnorm(30)" if "class_weight" not in py_defaults else "factor(rep(0:1, 15))"
    fitted = r("sporf::%s(matrix(rnorm(120), 30), %s, n_estimators = 2, random_state = 1)$params"
               % (r_fun.split(".")[0], task_y))
    assert fitted.rx2("criterion")[0] == py_defaults.pop("criterion")
    for name in by_task:
        r_defaults.pop(name)
        r_value_fitted = fitted.rx2(name)
        if name not in py_defaults:  # a survival forest's own: the other tasks take 0
            assert name in inspect.signature(sporf.SPORFSurvival).parameters and r_value_fitted[0] == 0, name
            continue
        py_value = py_defaults.pop(name)
        if py_value is None:
            assert r_value_fitted is rpy2.rinterface.NULL, name
        else:
            assert r_value_fitted[0] == py_value, name
    assert set(r_defaults) == set(py_defaults)
    for name, default in py_defaults.items():
        got = r_defaults[name]
        if default is None:
            assert got == "NULL", name
        elif isinstance(default, bool):
            assert got == ("TRUE" if default else "FALSE"), name
        elif isinstance(default, str):
            assert got == '"%s"' % default, name
        else:
            assert float(got) == default, name


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_morf_same_seed_same_model_in_both_languages(r, tmp_path, n_jobs):
    from sporf.datasets import make_bars, make_impulse

    X, y = make_bars(80, size=10, mean_bars=3, random_state=1)
    kw = dict(n_estimators=8, min_patch_dims=(1, 2), max_patch_dims=(3, 5), boundary=("inside", "wrap"),
              dim_contiguous=(True, False), patch_weights="gaussian", random_state=17, n_jobs=n_jobs)
    py = sporf.MORFClassifier(**kw).fit(X, y)
    r.assign("xa", ro.r.array(ro.FloatVector(X.ravel(order="F")), dim=ro.IntVector(X.shape)))
    r.assign("yb", r_labels(y))
    rm = r("morf(xa, yb, n_estimators = 8, min_patch_dims = c(1, 2), max_patch_dims = c(3, 5), "
           "boundary = c('inside', 'wrap'), dim_contiguous = c(TRUE, FALSE), patch_weights = 'gaussian', "
           "random_state = 17, n_jobs = %d)" % n_jobs)
    assert r_model_bytes(rm) == py.to_bytes()
    Xi, yi = make_impulse(60, random_state=2)
    py = sporf.MORFClassifier(n_estimators=6, max_patch_dims=20, random_state=3).fit(Xi, yi)
    rm = r["morf"](r_matrix(Xi), r_labels(yi), data_dims=100, n_estimators=6, max_patch_dims=20, random_state=3)
    assert r_model_bytes(rm) == py.to_bytes()
    path = tmp_path / "morf_from_r.sporf"
    r["sporf_save"](rm, str(path))
    loaded = sporf.load(path)
    assert isinstance(loaded, sporf.MORFClassifier)
    np.testing.assert_array_equal(loaded.predict_proba(Xi), py.predict_proba(Xi))


DATASETS = ["make_sparse_parity", "make_orthant", "make_trunk", "make_circle_segments", "make_bars",
            "make_impulse"]


@pytest.mark.parametrize("name", DATASETS)
def test_r_datasets_match_python(r, name):
    """Same arguments and defaults, the same shapes and the same distribution
    (the draws differ: R and numpy have different generators)."""
    from sporf import datasets

    fn = getattr(datasets, name)
    assert_same_numeric_defaults(r, fn, name)
    n = 4000
    X, y = fn(n, random_state=0)
    res = r[name](n, random_state=0)
    rx = np.asarray(res.rx2("x"))
    ry = np.asarray(r("function(y) { stopifnot(is.factor(y)); as.integer(as.character(y)) }")(res.rx2("y")))
    assert rx.shape == X.shape and ry.shape == y.shape
    assert set(ry.tolist()) <= set(range(int(y.max()) + 1)) and ry.dtype.kind == "i"
    assert abs(ry.mean() - y.mean()) < 0.05 * max(1.0, y.mean())
    for cls in (0, 1):
        xm, rm = X[y == cls].mean(axis=0).ravel(), rx[ry == cls].mean(axis=0).ravel()
        assert np.abs(xm - rm).max() < 0.2, (name, cls)
    # random_state makes a draw repeatable and leaves R's own stream alone.
    r("set.seed(5); a <- runif(1)")
    again = r[name](50, random_state=3)
    r("set.seed(5); b <- runif(1)")
    assert np.array_equal(np.asarray(again.rx2("x")), np.asarray(r[name](50, random_state=3).rx2("x")))
    assert r("a == b")[0]


def test_importance_helpers_have_the_same_names(r):
    import inspect

    assert list(inspect.signature(sporf.MORFClassifier.importance_map).parameters) == ["self", "kind"]
    assert list(r("names(formals(sporf::importance_map))")) == ["object", "kind"]
    py = inspect.signature(sporf.plot_importance).parameters
    rp = list(r("names(formals(sporf::plot_importance))"))
    assert "kind" in py and "kind" in rp and py["kind"].default == "impurity"
    assert list(r("eval(formals(sporf::plot_importance)$kind)"))[0] == "impurity"
    assert list(inspect.signature(sporf.SPORFClassifier.projection_importances).parameters) == ["self", "top"]
    assert list(r("names(formals(sporf::projection_importances))")) == ["object", "top"]
    assert r("is.null(formals(sporf::projection_importances)$top)")[0]


REGRESSION_CASES = [
    ("friedman-defaults", {}),
    ("friedman-honest-frc", dict(projection="frc", feature_combinations=2, honest_fraction=0.4)),
    ("friedman-gaussian-ignore", dict(projection="gaussian", honest_fraction=0.5, honest_prior="ignore",
                                      max_features=8, min_samples_leaf=2)),
    ("friedman-poisson-axis", dict(projection="poisson", max_samples=0.7, oob_score=True)),
    ("friedman-random-thresholds", dict(splitter="random", oob_score=True)),
    ("friedman-random-subsample", dict(splitter="random", bootstrap=False, max_samples=0.7, oob_score=True)),
    ("friedman-auto-leaf", dict(min_samples_leaf="auto", oob_score=True)),
    ("friedman-mixed", dict(splitter="mixed", max_samples=0.8, oob_score=True)),
    ("friedman-auto-kinds", dict(splitter="auto", oob_score=True)),
]


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("name,params", REGRESSION_CASES, ids=[c[0] for c in REGRESSION_CASES])
def test_regression_same_seed_same_model_in_both_languages(r, name, params, n_jobs):
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(200, n_features=8, random_state=3)
    common = dict(n_estimators=12, random_state=77, n_jobs=n_jobs, **params)
    py = sporf.SPORFRegressor(**common).fit(X, y)
    rm = r["sporf"](r_matrix(X), ro.FloatVector(y), **{k: r_value(v) for k, v in common.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    np.testing.assert_array_equal(np.array(r["predict"](rm, r_matrix(X))), py.predict(X))
    if params.get("oob_score"):
        assert float(rm.rx2("oob_score")[0]) == pytest.approx(py.oob_score_, abs=1e-12)
    if params.get("min_samples_leaf") == "auto":  # the same choice, reported the same
        assert int(rm.rx2("min_samples_leaf")[0]) == py.min_samples_leaf_
        assert list(rm.rx2("leaf_scores")) == list(py.leaf_scores_.values())
    if params.get("splitter") == "auto":
        assert rm.rx2("splitter")[0] == py.splitter_
        assert list(rm.rx2("splitter_scores")) == list(py.splitter_scores_.values())
        assert rm.rx2("n_estimators")[0] == py.n_estimators_


@pytest.mark.parametrize("projection", ["frc", "gaussian", "poisson"])
def test_classifier_projections_and_honesty_same_model_in_both_languages(r, projection):
    X, y = make_trunk(200, 12, random_state=5)
    common = dict(n_estimators=10, projection=projection, honest_fraction=0.3, honest_prior="uniform",
                  random_state=8)
    py = sporf.SPORFClassifier(**common).fit(X, y)
    rm = r_fit(r, X, y, **common)
    assert r_model_bytes(rm) == py.to_bytes()


def test_projection_importance_is_the_same_table_in_both_languages(r):
    X, y = make_trunk(300, 10, random_state=2)
    py = sporf.SPORFClassifier(n_estimators=20, random_state=4).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=20, random_state=4)
    table = r["projection_importances"](rm)
    py_table = py.projection_importances()
    imp = np.array(table.rx2("importance"))
    np.testing.assert_array_equal(imp, [t.importance for t in py_table])
    for r_feat, r_w, t in zip(table.rx2("features"), table.rx2("weights"), py_table):
        np.testing.assert_array_equal(np.array(r_feat) - 1, t.features)  # R numbers columns from 1
        np.testing.assert_array_equal(np.array(r_w), t.weights)


def test_morf_regressor_same_model_in_both_languages(r):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5, 7))
    y = X[:, 1:3, 2:5].sum(axis=(1, 2))
    kw = dict(n_estimators=6, min_patch_dims=1, max_patch_dims=(2, 3), boundary="wrap", random_state=21)
    py = sporf.MORFRegressor(**kw).fit(X, y)
    r.assign("xa", ro.r.array(ro.FloatVector(X.ravel(order="F")), dim=ro.IntVector(X.shape)))
    rm = r["morf"](r["xa"], ro.FloatVector(y), **{k: r_value(v) if not isinstance(v, tuple) else ro.FloatVector(v)
                                                 for k, v in kw.items()})
    assert r_model_bytes(rm) == py.to_bytes()


URERF_CASES = [
    ("defaults", {}),
    ("twomeans-axis", dict(criterion="twomeans", projection="axis", min_samples_split=6, bootstrap=False)),
    ("gaussian-maxsamples", dict(projection="gaussian", max_features=4, max_samples=0.6, max_depth=6)),
    ("patch", dict(projection="patch", data_dims=[4, 4], max_patch_dims=2, boundary="wrap")),
]


def r_urerf(r, X, _function="sporf::urerf", **params):
    """An R fit of X alone (urerf, or isolation_forest through _function)."""
    kwargs = {k: (ro.FloatVector(v) if isinstance(v, list) else r_value(v)) for k, v in params.items()}
    return r(_function)(r_matrix(X), **kwargs)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("name,params", URERF_CASES, ids=[c[0] for c in URERF_CASES])
def test_urerf_same_model_and_neighbours_in_both_languages(r, name, params, n_jobs):
    X, _, _ = make_manifold("sphere", 160, n_noise=13, random_state=4)
    common = dict(n_estimators=15, random_state=31, n_jobs=n_jobs, **params)
    py = sporf.URerF(**{k: tuple(v) if isinstance(v, list) else v for k, v in common.items()}).fit(X)
    rm = r_urerf(r, X, **common)
    assert r_model_bytes(rm) == py.to_bytes()
    nb = r["kneighbors"](rm, n_neighbors=6)
    sim, idx = py.kneighbors(n_neighbors=6)
    assert np.array_equal(np.array(nb.rx2("index")) - 1, idx)
    assert np.array_equal(np.array(nb.rx2("similarity")), sim)
    dense = np.array(r["proximity"](rm, dense=True))
    assert np.array_equal(dense, py.proximity(dense=True))
    sparse_r = np.array(r("as.matrix")(r["proximity"](rm, r_matrix(X[:5]), n_neighbors=4)))
    assert np.array_equal(sparse_r, py.proximity(X[:5], n_neighbors=4).toarray())


def test_urerf_defaults_and_names_match(r):
    import inspect

    py = {k: v.default for k, v in inspect.signature(sporf.URerF).parameters.items()}
    shown = r("vapply(formals(sporf:::urerf.default), function(v) paste(deparse(v), collapse = ''), '')")
    rd = dict(zip(shown.names, shown))
    for name in ("x", "..."):
        rd.pop(name)
    assert set(rd) == set(py)
    for name, default in py.items():
        got = rd[name]
        if default is None:
            assert got == "NULL", name
        elif isinstance(default, bool):
            assert got == ("TRUE" if default else "FALSE"), name
        elif isinstance(default, str):
            assert got == '"%s"' % default, name
        else:
            assert float(got) == default, name
    assert list(r("names(formals(sporf:::proximity.sporf))")) == ["object", "x", "reference", "dense",
                                                                   "n_neighbors", "..."]
    assert list(inspect.signature(sporf.URerF.proximity).parameters) == ["self", "X", "reference", "dense",
                                                                         "n_neighbors"]
    assert list(r("names(formals(sporf:::kneighbors.urerf))")) == ["object", "x", "n_neighbors", "..."]
    assert list(inspect.signature(sporf.URerF.kneighbors).parameters) == ["self", "X", "n_neighbors"]


def test_urerf_saved_in_r_loads_in_python(r, tmp_path):
    X, _, _ = make_manifold("gmm", 120, n_noise=3, random_state=1)
    rm = r_urerf(r, X, n_estimators=10, random_state=2)
    path = str(tmp_path / "u.sporf")
    r["sporf_save"](rm, path)
    py = sporf.load(path)
    assert isinstance(py, sporf.URerF) and py.criterion == "fastbic"
    dense_r = np.array(r["proximity"](rm, dense=True))
    assert np.array_equal(py.proximity(reference=X, dense=True), dense_r)


ISOLATION_CASES = [
    ("defaults", {}),
    ("axis-contamination", dict(projection="axis", contamination=0.1)),
    ("dense-gaussian-deeper", dict(projection="gaussian", feature_combinations=6.0, max_depth=12)),
    ("sample-fraction-bootstrap", dict(max_samples=0.5, bootstrap=True, max_features=2)),
]


def r_isolation(r, X, **params):
    return r_urerf(r, X, _function="sporf::isolation_forest", **params)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("name,params", ISOLATION_CASES, ids=[c[0] for c in ISOLATION_CASES])
def test_isolation_same_model_scores_and_labels_in_both_languages(r, name, params, n_jobs):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 6))
    X[:8] += 5.0
    X[::11, 2] = np.nan  # rows with a missing value are scored in both
    common = dict(n_estimators=25, random_state=13, n_jobs=n_jobs, **params)
    py = sporf.SPORFIsolation(**common).fit(X)
    rm = r_isolation(r, X, **common)
    assert r_model_bytes(rm) == py.to_bytes()
    score = np.array(r["predict"](rm, r_matrix(X)))
    assert np.array_equal(score, -py.score_samples(X))
    assert rm.rx2("offset")[0] == pytest.approx(-py.offset_, rel=1e-14)
    outlier = np.array(r["predict"](rm, r_matrix(X), type="outlier"), dtype=bool)
    assert np.array_equal(outlier, py.predict(X) == -1)
    assert np.array_equal(np.array(r["predict"](rm, r_matrix(X), type="decision")), py.decision_function(X))


def test_isolation_patches_same_model_in_both_languages(r, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 8, 8))
    X[:4, 2:5, 2:5] += 3.0
    py = sporf.MORFIsolation(n_estimators=20, max_patch_dims=3, random_state=2).fit(X)
    rm = r_isolation(r, X.reshape(120, -1), n_estimators=20, projection="patch", data_dims=[8, 8], max_patch_dims=3,
                     random_state=2)
    assert r_model_bytes(rm) == py.to_bytes()
    path = str(tmp_path / "morf_isolation.sporf")
    r["sporf_save"](rm, path)
    back = sporf.load(path)
    assert type(back) is sporf.MORFIsolation and back.data_dims_ == (8, 8)
    assert np.array_equal(np.array(r["predict"](rm, r_matrix(X.reshape(120, -1)))), -back.score_samples(X))


def test_isolation_defaults_and_names_match(r):
    """R's isolation_forest() is SPORFIsolation and MORFIsolation in one
    function: its parameters are their union (sample_weight is Python's fit
    argument; warm_start is R's grow()), with the same defaults."""
    import inspect

    py = {k: v.default for k, v in inspect.signature(sporf.SPORFIsolation).parameters.items()}
    morf = {k: v.default for k, v in inspect.signature(sporf.MORFIsolation).parameters.items()}
    shown = r("vapply(formals(sporf:::isolation_forest.default), function(v) paste(deparse(v), collapse = ''), '')")
    rd = dict(zip(shown.names, shown))
    for name in ("x", "...", "sample_weight"):
        rd.pop(name)
    assert rd.pop("patch_weights") == 'if (identical(projection, "patch")) "haar" else "uniform"'
    assert morf.pop("patch_weights") == "haar"
    assert py.pop("warm_start") is False and morf.pop("warm_start") is False
    union = dict(morf, **py)
    assert set(rd) == set(union)
    for name, default in union.items():
        got = rd[name]
        if default is None:
            assert got == "NULL", name
        elif isinstance(default, bool):
            assert got == ("TRUE" if default else "FALSE"), name
        elif isinstance(default, str):
            assert got == '"%s"' % default, name
        else:
            assert float(got) == default, name
    assert list(r("names(formals(sporf:::predict.sporf_isolation))")) == ["object", "newdata", "type", "n_jobs",
                                                                         "..."]


def test_isolation_shards_from_both_languages_merge_into_one_forest(r, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 5))
    whole = sporf.SPORFIsolation(n_estimators=20, random_state=9).fit(X)
    py_shard = sporf.SPORFIsolation(n_estimators=8, first_tree=0, random_state=9).fit(X)
    r_shard = r_isolation(r, X, n_estimators=12, first_tree=8, random_state=9)
    path = str(tmp_path / "r_shard.sporf")
    r["sporf_save"](r_shard, path)
    merged = sporf.merge_forests([py_shard, sporf.load(path)])
    assert merged.to_bytes() == whole.to_bytes()


def test_supervised_proximity_matches(r):
    X, y = make_trunk(90, 6, random_state=0)
    py = sporf.SPORFClassifier(n_estimators=10, random_state=4).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=10, random_state=4)
    got = np.array(r("as.matrix")(r["proximity"](rm, r_matrix(X), n_neighbors=5)))
    assert np.array_equal(got, py.proximity(X, n_neighbors=5).toarray())
    # fewer reference rows than neighbours: both keep the rows there are
    got = np.array(r("as.matrix")(r["proximity"](rm, r_matrix(X[:4]))))
    assert np.array_equal(got, py.proximity(X[:4]).toarray())


@pytest.mark.parametrize("truth_kind", ["distances", "labels"])
def test_geodesic_precision_recall_matches(r, truth_kind):
    X, D, labels = make_manifold("gmm", 80, n_noise=2, random_state=5)
    truth = D if truth_kind == "distances" else labels
    S = sporf.URerF(n_estimators=10, random_state=0).fit(X).proximity(dense=True)
    py = sporf.metrics.geodesic_precision_recall(truth, S, 7)
    rt = r_matrix(truth) if truth.ndim == 2 else ro.IntVector([int(v) for v in truth])
    got = np.array(r["geodesic_precision_recall"](rt, r_matrix(S), 7))
    assert np.allclose(got, py, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["linear", "helix", "sphere", "gmm"])
def test_r_make_manifold_matches_python(r, kind):
    """Same arguments and defaults; the grids (linear, helix, sphere) are the
    same numbers, the mixture the same distribution."""
    from sporf.datasets import make_manifold as py_fn

    assert_same_numeric_defaults(r, py_fn, "make_manifold")
    X, D, labels = py_fn(kind, 300, n_noise=2, random_state=0)
    res = r["make_manifold"](kind, 300, n_noise=2, random_state=0)
    rx, rd, rl = (np.asarray(res.rx2(k)) for k in ("x", "geodesic", "labels"))
    assert rx.shape == X.shape and rd.shape == D.shape and rl.shape == labels.shape
    if kind == "gmm":
        assert abs(np.mean(rl == 2) - 0.4) < 0.1 and set(rl.tolist()) <= {0, 1, 2}
    else:
        assert np.allclose(rx[:, :3], X[:, :3], rtol=0, atol=1e-12)
        assert np.allclose(rd, D, rtol=0, atol=1e-9)


def test_shards_from_both_languages_merge_into_one_forest(r, tmp_path):
    """Trees 0-4 grown in R and 5-11 in Python are the forest either language
    grows in one fit; each language merges them to those exact bytes."""
    X, y = make_trunk(300, n_features=6, random_state=2)
    # a fixed leaf size (the test after this one takes "auto")
    params = dict(n_estimators=12, max_features=3, random_state=31, min_samples_leaf=3)
    whole = sporf.SPORFClassifier(**params).fit(X, y)
    r_shard = r_fit(r, X, y, **dict(params, n_estimators=5, first_tree=0))
    py_shard = sporf.SPORFClassifier(**dict(params, n_estimators=7, first_tree=5)).fit(X, y)
    r["sporf_save"](r_shard, str(tmp_path / "r_shard.sporf"))
    py_shard.save(tmp_path / "py_shard.sporf")

    in_python = sporf.merge_forests([sporf.load(tmp_path / "r_shard.sporf"), py_shard])
    assert in_python.to_bytes() == whole.to_bytes()
    in_r = r["merge_forests"](r["sporf_load"](str(tmp_path / "py_shard.sporf")), r_shard)
    assert r_model_bytes(in_r) == whole.to_bytes()
    assert r_model_bytes(r_fit(r, X, y, **params)) == whole.to_bytes()

    from rpy2.rinterface_lib.embedded import RRuntimeError

    other_seed = r_fit(r, X, y, **dict(params, n_estimators=7, first_tree=5, random_state=32))
    with pytest.raises(RRuntimeError, match="different random_state"):
        r["merge_forests"](r_shard, other_seed)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_auto_shards_from_both_languages_choose_as_one_fit(r, tmp_path, task):
    """The default leaf size "auto": shards grown in R and in Python keep
    their out-of-bag sums, and merge_forests in either language chooses for
    the whole forest -- the bytes one fit grows, whatever the shards alone
    would choose."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) if task == "classification" else X[:, 0] + 2 * rng.normal(size=2000)
    cls = sporf.SPORFClassifier if task == "classification" else sporf.SPORFRegressor
    whole = cls(n_estimators=40, random_state=5).fit(X, y)
    y_r = r_labels(y) if task == "classification" else ro.FloatVector(y)  # a numeric y: a regression forest
    r_shard = r["sporf"](r_matrix(X), y_r, n_estimators=10, first_tree=0, random_state=5)
    py_shard = cls(n_estimators=30, first_tree=10, random_state=5).fit(X, y)
    r["sporf_save"](r_shard, str(tmp_path / "r_shard.sporf"))
    py_shard.save(tmp_path / "py_shard.sporf")
    in_python = sporf.merge_forests([sporf.load(tmp_path / "r_shard.sporf"), py_shard])
    assert in_python.to_bytes() == whole.to_bytes() and in_python.min_samples_leaf_ == whole.min_samples_leaf_
    in_r = r["merge_forests"](r["sporf_load"](str(tmp_path / "py_shard.sporf")), r_shard)
    assert r_model_bytes(in_r) == whole.to_bytes()
    assert in_r.rx2("min_samples_leaf")[0] == whole.min_samples_leaf_
    np.testing.assert_array_equal(np.array(in_r.rx2("leaf_scores")), list(whole.leaf_scores_.values()))


def test_trees_added_to_a_forest_that_chose_its_leaf_size_agree(r):
    """The default leaf size "auto": Python's warm_start and R's grow() prune
    the trees they add to the size the first fit chose, to the same bytes."""
    X, y = make_trunk(300, n_features=6, random_state=2)
    py = sporf.SPORFClassifier(n_estimators=6, random_state=31, warm_start=True).fit(X, y)
    py.set_params(n_estimators=12).fit(X, y)
    first = r_fit(r, X, y, n_estimators=6, random_state=31)
    grown = r["grow"](first, 6)
    assert r_model_bytes(grown) == py.to_bytes()
    assert grown.rx2("min_samples_leaf")[0] == py.min_samples_leaf_
    np.testing.assert_allclose(np.array(grown.rx2("leaf_scores")), list(py.leaf_scores_.values()), rtol=1e-12)


def test_trees_added_to_a_forest_that_kept_one_kind_agree(r):
    """splitter="auto" (the default) kept one kind of its 24 trees: Python's
    warm_start to 34 trees and R's grow(fit, 10) add that kind's trees among
    the 10 grown next, to the same bytes, and report the trees held alike."""
    X, y = make_trunk(300, n_features=6, random_state=2)
    for seed in range(40):
        py = sporf.SPORFClassifier(n_estimators=24, random_state=seed, warm_start=True).fit(X, y)
        if py.splitter_ != "mixed":
            break
    assert py.splitter_ != "mixed" and py.n_estimators_ == 12
    first = r_fit(r, X, y, n_estimators=24, random_state=seed)
    assert first.rx2("n_estimators")[0] == 12 and first.rx2("splitter")[0] == py.splitter_
    py.set_params(n_estimators=34).fit(X, y)
    grown = r["grow"](first, 10)
    assert r_model_bytes(grown) == py.to_bytes()
    assert grown.rx2("n_estimators")[0] == py.n_estimators_ == 17


def test_merge_forests_exists_in_both_languages(r):
    import inspect

    assert list(inspect.signature(sporf.merge_forests).parameters) == ["forests"]
    assert list(r("names(formals(sporf::merge_forests))")) == ["..."]
    for fn in ("sporf.default", "morf.default", "urerf.default"):
        assert r("is.null(formals(sporf:::%s)$first_tree)" % fn)[0]


# ---- the parameter spec, walked: every parameter, every form a user may give it ----
from sporf import _spec_gen as _spec  # noqa: E402

# Python estimator -> (R function, whether y is a class label, numeric response or absent)
TWINS = {"SPORFClassifier": ("sporf", "classes"), "SPORFRegressor": ("sporf", "numeric"),
         "MORFClassifier": ("morf", "classes"), "MORFRegressor": ("morf", "numeric"),
         "URerF": ("urerf", None), "SPORFIsolation": ("isolation_forest", None)}
GRID = (4, 4)


def _values_of(name, row, espec):
    """A few valid values of each form the spec allows, other than the default
    where there is a choice (so each value changes the forest or its file)."""
    kind = row["kind"]
    if kind == "int":
        out = [row["min"] + 2]
        return out + [None] if "none" in row else out
    if kind == "real":
        lo, hi = row["min"], row.get("max")
        return [lo + (hi - lo) / 3 if hi is not None else lo + 0.75, 2.0 if hi is None else lo + (hi - lo) / 2]
    if kind == "flag":
        return [not row["default"]]
    if kind == "choice":
        values = list(espec["choices"].get(name, row["values"]))
        return values + [a for a, t in row.get("aliases", {}).items() if t in values]
    if kind == "amount":
        out = []
        for form in row["forms"]:
            if form in ("sqrt", "log2"):
                out.append(form)
            elif form == "all":
                out.append(None)
            elif form == "count":
                out.append(row["count_min"] + 1)
            else:
                hi = row.get("fraction_max")
                out.append(0.25)
                if hi is None or (hi >= 1.0 and not row.get("fraction_max_open")):
                    out.append(1.0)  # whole: R writes fraction(1)
                if hi is None:
                    out.append(2.0)
        return out
    if kind == "seed":
        return [12345, 2 ** 40 + 3]
    if kind == "class_weight":
        return [None, "balanced", "balanced_subsample", {0: 2.0, 1: 0.5}]
    if kind == "grid":
        return [GRID, (16,)]
    if kind == "axes":
        if row["of"] == "int":
            return [None, 2, (1, 3)]
        if row["of"] == "flag":
            return [None, False, (True, False)]
        return list(row["values"]) + [tuple(row["values"][:2])]
    return []  # options and threads are not part of the model


def _spec_cases():
    cases = []
    for ename, (rname, ykind) in TWINS.items():
        espec = _spec.ESTIMATORS[ename]
        for name in espec["params"]:
            row = _spec.PARAMS[name]
            for value in _values_of(name, row, espec):
                if name == "projection" and value == "patch" and "data_dims" not in espec["params"]:
                    continue
                cases.append(pytest.param(ename, name, value, id="%s-%s-%r" % (ename, name, value)))
    return cases


def _r_value(r, v, kind):
    if kind == "amount" and isinstance(v, float) and v == int(v):
        return r("fraction")(v)
    if isinstance(v, tuple):
        if all(isinstance(x, bool) for x in v):
            return ro.BoolVector(list(v))
        if all(isinstance(x, str) for x in v):
            return ro.StrVector(list(v))
        return ro.FloatVector([float(x) for x in v])
    if isinstance(v, dict):
        vec = ro.FloatVector(list(v.values()))
        vec.names = ro.StrVector([str(k) for k in v])
        return vec
    return r_value(v)


def _spec_case_data(ename, name, value):
    """Data and the fixed parameters a case needs (a grid for patch forests)."""
    rng = np.random.RandomState(5)
    X = rng.standard_normal((90, 16))
    _, ykind = TWINS[ename]
    y = None if ykind is None else (X[:, 0] + X[:, 1] > 0).astype(np.int64) if ykind == "classes" \
        else X[:, 0] - 2 * X[:, 3] + 0.1 * rng.standard_normal(90)
    base = dict(n_estimators=3, random_state=7)
    espec = _spec.ESTIMATORS[ename]
    if "data_dims" in espec["params"] and name != "data_dims":
        base["data_dims"] = GRID
    if ename == "URerF" and _spec.PARAMS[name]["kind"] in ("grid", "axes"):
        base["projection"] = "patch"
    if name == "max_samples" and value is not None:
        base["bootstrap"] = True
    if name == "splitter" and value == "auto":  # it chooses with the leaf size
        base["min_samples_leaf"] = "auto"
    if ename == "URerF" and "data_dims" in base and base.get("projection") != "patch" and name != "projection":
        del base["data_dims"]
    if name == "projection" and ename == "URerF" and value != "patch":
        base.pop("data_dims", None)
    base[name] = value
    return X, y, base


def _r_fit_with(r, rname, X, y, params):
    kwargs = {k: _r_value(r, v, _spec.PARAMS[k]["kind"]) for k, v in params.items()}
    args = [r_matrix(X)]
    if y is not None:
        args.append(r_labels(y) if y.dtype.kind == "i" else ro.FloatVector(y))
    return r(rname)(*args, **kwargs)


@pytest.mark.parametrize("ename,name,value", _spec_cases())
def test_every_parameter_form_refits_to_the_same_bytes_in_the_other_language(r, tmp_path, ename, name, value):
    """Fit in one language, save, load in the other, refit there with the
    loaded parameters => the same bytes; in both directions. Cases come from
    spec/params.toml, so a new parameter is covered without a new test."""
    rname, _ = TWINS[ename]
    X, y, params = _spec_case_data(ename, name, value)
    cls = getattr(sporf, ename)
    # Python -> R
    py = cls(**params)
    py.fit(X) if y is None else py.fit(X, y)
    path = tmp_path / "py.sporf"
    py.save(path)
    loaded = r["sporf_load"](str(path))
    r.assign("loaded_params", loaded.rx2("params"))
    r.assign("xm", r_matrix(X))
    if y is None:
        refit = r("do.call(sporf::%s, c(list(xm), loaded_params))" % rname)
    else:
        r.assign("ym", r_labels(y) if y.dtype.kind == "i" else ro.FloatVector(y))
        refit = r("do.call(sporf::%s, c(list(xm, ym), loaded_params))" % rname)
    assert r_model_bytes(refit) == py.to_bytes(), "Python -> R: %s=%r" % (name, value)
    # R -> Python
    rm = _r_fit_with(r, rname, X, y, params)
    assert r_model_bytes(rm) == py.to_bytes(), "same parameters, different bytes: %s=%r" % (name, value)
    path = tmp_path / "r.sporf"
    r["sporf_save"](rm, str(path))
    back = sporf.load(path)
    assert type(back) is cls
    again = cls(**back.get_params())
    again.fit(X) if y is None else again.fit(X, y)
    assert again.to_bytes() == r_model_bytes(rm), "R -> Python: %s=%r" % (name, value)


def _bad_values(row):
    kind = row["kind"]
    if kind == "option":  # the binding's options the spec types (verbose, importance, n_neighbors)
        return "loud" if row.get("of") == "int" else "bogus" if "values" in row else -2 if "min" in row else None
    return {"int": -5, "real": -1.5, "flag": "yes", "choice": "bogus", "amount": -3, "class_weight": 7,
            "axes": "bogus" if row.get("of") != "choice" else 9}.get(kind)


def _normalise(message, lang):
    """A message with the language's spelling of the spec's tokens put back
    ({null}, {int}...), up to the value shown."""
    message = message.split("; got")[0]
    tokens = {"py": [("None", "{null}"), ("True", "{true}"), ("False", "{false}"), ("an int", "{int}"),
                     ("a float", "{fraction}")],
              "r": [("NULL", "{null}"), ("TRUE", "{true}"), ("FALSE", "{false}"), ("a whole number", "{int}"),
                    ("a non-whole number or fraction(x)", "{fraction}"), ("a number", "{float}")]}[lang]
    for word, token in sorted(tokens, key=lambda t: -len(t[0])):
        message = message.replace(word, token)
    return message


@pytest.mark.parametrize("ename", ["SPORFClassifier", "MORFClassifier", "URerF"])
def test_a_bad_parameter_reads_the_same_in_both_languages(r, ename):
    from rpy2.rinterface_lib.embedded import RRuntimeError

    rname, _ = TWINS[ename]
    checked = 0
    for name in _spec.ESTIMATORS[ename]["params"]:
        row = _spec.PARAMS[name]
        bad = _bad_values(row)
        if bad is None or (ename == "URerF" and row["kind"] == "axes"):
            continue
        X, y, params = _spec_case_data(ename, name, bad)
        with pytest.raises(ValueError) as py_err:
            est = getattr(sporf, ename)(**params)
            est.fit(X) if y is None else est.fit(X, y)
        with pytest.raises(RRuntimeError) as r_err:
            _r_fit_with(r, rname, X, y, params)
        r_message = str(r_err.value).strip().replace("Error: ", "", 1)
        assert str(py_err.value).startswith(name + " must be "), str(py_err.value)
        assert r_message.startswith(name + " must be "), r_message
        assert _normalise(str(py_err.value), "py") == _normalise(r_message, "r"), name
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize("rule", range(len(_spec.RULES)))
def test_checks_across_parameters_read_the_same_in_both_languages(r, rule):
    """The spec's checks across parameters (oob_score without the bootstrap),
    which only the bindings make: one definition, one message in both."""
    from rpy2.rinterface_lib.embedded import RRuntimeError

    when = _spec.RULES[rule]["when"]
    X, y = make_trunk(60, 6, random_state=1)
    # "none" stands for None / NULL in the spec's rules
    params = dict({name: None if v == "none" else v for name, v in when.items()}, n_estimators=2)
    with pytest.raises(ValueError) as py_err:
        sporf.SPORFClassifier(**params).fit(X, y)
    with pytest.raises(RRuntimeError) as r_err:
        r_fit(r, X, y, **params)
    r_message = str(r_err.value).strip().replace("Error: ", "", 1)
    assert _normalise(str(py_err.value), "py") == _normalise(r_message, "r")
    assert all(name in r_message for name in when), r_message
    # and a forest fits when the rule does not hold (max_samples set: a subsample)
    ok = {name: not v if isinstance(v, bool) else 0.5 if v == "none" else v for name, v in when.items()}
    sporf.SPORFClassifier(**dict(ok, n_estimators=2)).fit(X, y)


@pytest.mark.parametrize("case", ["negative class weight", "grid of the wrong size", "grid without patches"])
def test_core_checked_values_read_the_same_in_both_languages(r, case):
    """Values only the core checks (custom class weights, a grid against the
    data) reach the user in the core's words, the same in both languages."""
    from rpy2.rinterface_lib.embedded import RRuntimeError

    X, y = make_trunk(60, 6, random_state=1)
    if case == "negative class weight":
        est = sporf.SPORFClassifier(n_estimators=2, class_weight={0: 1.0, 1: -2.0})
        rcall = lambda: r_fit(r, X, y, n_estimators=2, class_weight={0: 1.0, 1: -2.0})
        expect = "class_weight[1] = -2; class weights must be finite"
    elif case == "grid of the wrong size":
        est = sporf.MORFClassifier(n_estimators=2, data_dims=(2, 2))
        rcall = lambda: r("sporf::morf")(r_matrix(X), r_labels(y), n_estimators=2,
                                  data_dims=ro.FloatVector([2, 2]))
        expect = "data_dims (2 x 2) describe 4 features, but the data has 6"
    else:
        est = sporf.URerF(n_estimators=2, data_dims=(2, 3))
        rcall = lambda: r("sporf::urerf")(r_matrix(X), n_estimators=2, data_dims=ro.FloatVector([2, 3]))
        expect = 'data_dims and the patch parameters apply to projection "patch" only'
    with pytest.raises(ValueError) as py_err:
        est.fit(X) if isinstance(est, sporf.URerF) else est.fit(X, y)
    with pytest.raises(RRuntimeError) as r_err:
        rcall()
    assert expect in str(py_err.value)
    assert expect in str(r_err.value)


def test_fraction_means_the_same_in_both_languages(r):
    """fraction(1) is all p in both languages (R needs it; Python's float is one)."""
    X, y = make_trunk(120, 6, random_state=3)
    py = sporf.SPORFClassifier(n_estimators=4, max_features=sporf.fraction(1), random_state=2).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=4, max_features=r("fraction")(1), random_state=2)
    assert r_model_bytes(rm) == py.to_bytes()
    assert sporf.fraction(1) == 1.0 and isinstance(sporf.fraction(1), float)
    with pytest.raises(ValueError, match="fraction"):
        sporf.fraction(0)


@pytest.mark.parametrize("grid", [True, "structure"])
@pytest.mark.parametrize("task", ["classification", "regression", "morf"])
def test_tune_oob_picks_the_same_forest_in_both_languages(r, task, grid):
    """tune_oob runs in the core: the same candidates, out-of-bag errors and
    trees, and the winner's model bytes, from Python and from R, for both
    grids (d and lambda; the forest's structure)."""
    rng = np.random.RandomState(11)
    X = rng.standard_normal((240, 16))
    if task == "regression":
        y = X[:, 0] - 2 * X[:, 3] + X[:, 5] * X[:, 6] + 0.2 * rng.standard_normal(240)
        py = sporf.SPORFRegressor(n_estimators=24, tune_oob=grid, oob_score=True, random_state=9).fit(X, y)
        rm = r["sporf"](r_matrix(X), ro.FloatVector(y), n_estimators=24, tune_oob=grid, oob_score=True,
                        random_state=9)
    else:
        y = (X[:, 0] + X[:, 1] - X[:, 4] > 0).astype(np.int64)
        if task == "morf":
            py = sporf.MORFClassifier(data_dims=(4, 4), n_estimators=24, tune_oob=grid, oob_score=True,
                                      random_state=9).fit(X, y)
            rm = r["morf"](r_matrix(X), r_labels(y), data_dims=ro.FloatVector([4, 4]), n_estimators=24,
                           tune_oob=grid, oob_score=True, random_state=9)
        else:
            py = sporf.SPORFClassifier(n_estimators=24, tune_oob=grid, oob_score=True, random_state=9).fit(X, y)
            rm = r_fit(r, X, y, n_estimators=24, tune_oob=grid, oob_score=True, random_state=9)
    assert r_model_bytes(rm) == py.to_bytes()
    table = rm.rx2("tuning")
    assert list(table.rx2("oob_error")) == [row["oob_error"] for row in py.tuning_]
    assert list(table.rx2("n_trees")) == [row["n_trees"] for row in py.tuning_]
    assert list(table.names)[:-2] == list(py.best_params_)
    assert rm.rx2("oob_score")[0] == pytest.approx(py.oob_score_, rel=1e-12)


@pytest.mark.parametrize("task", ["classification", "regression", "unsupervised", "morf"])
def test_python_nan_and_r_na_give_the_same_model(r, task):
    """Missing values: NaN in Python, NA (not NaN) in R, give the same model
    bytes and the same predictions of rows with missing values."""
    rng = np.random.default_rng(7)
    X, y = make_trunk(300, 16, random_state=6)
    X = X.copy()
    X[rng.random(X.shape) < 0.15] = np.nan
    Xt = X[::-1].copy()
    rx = r("function(m) { m[is.nan(m)] <- NA_real_; stopifnot(anyNA(m), !any(is.nan(m))); m }")(r_matrix(X))
    rxt = r("function(m) { m[is.nan(m)] <- NA_real_; m }")(r_matrix(Xt))
    common = dict(n_estimators=10, random_state=11)
    if task == "classification":
        py = sporf.SPORFClassifier(**common).fit(X, y)
        rm = r["sporf"](rx, r_labels(y), **{k: r_value(v) for k, v in common.items()})
    elif task == "regression":
        yr = np.nan_to_num(X[:, 0]) + y
        py = sporf.SPORFRegressor(**common).fit(X, yr)
        rm = r["sporf"](rx, ro.FloatVector(yr), **{k: r_value(v) for k, v in common.items()})
    elif task == "unsupervised":
        py = sporf.URerF(**common).fit(X)
        rm = r["urerf"](rx, **{k: r_value(v) for k, v in common.items()})
    else:
        dims = dict(data_dims=(4, 4))
        py = sporf.MORFClassifier(**common, **dims).fit(X, y)
        rm = r["morf"](rx, r_labels(y), data_dims=ro.IntVector([4, 4]),
                       **{k: r_value(v) for k, v in common.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    if task == "unsupervised":
        leaves = np.array(r["predict"](rm, rxt, type="leaf")).reshape(Xt.shape[0], -1, order="F")
        np.testing.assert_array_equal(leaves, py.apply(Xt))
    elif task == "regression":
        np.testing.assert_array_equal(np.array(r["predict"](rm, rxt)), py.predict(Xt))
    else:
        p = np.array(r["predict"](rm, rxt, type="prob")).reshape(Xt.shape[0], -1, order="F")
        np.testing.assert_array_equal(p, py.predict_proba(Xt))


def test_warm_start_and_grow_give_the_same_forest(r):
    """Python's warm_start and R's grow() add the same trees: both equal one
    fit of the final size, in either language."""
    X, y = make_trunk(200, 8, random_state=12)
    py = sporf.SPORFClassifier(n_estimators=4, warm_start=True, random_state=21).fit(X, y)
    py.set_params(n_estimators=9).fit(X, y)
    rx, ry = r_matrix(X), r_labels(y)
    ro.globalenv["gx"], ro.globalenv["gy"] = rx, ry
    rm = r("grow(sporf(gx, gy, n_estimators = 4, random_state = 21), 5)")
    assert r_model_bytes(rm) == py.to_bytes()


def test_r_formula_survives_a_trip_through_python(r, tmp_path):
    """R keeps a formula fit's formula in the model's note; Python loads,
    predicts and re-saves the file unchanged, and R then predicts from a
    data frame again."""
    rm = r("sporf(Species ~ ., iris, n_estimators = 5, random_state = 3)")
    path = tmp_path / "formula.sporf"
    r["sporf_save"](rm, str(path))
    py = sporf.load(path)
    assert py.to_bytes() == path.read_bytes()
    iris_x = np.array(r("as.matrix(iris[, 1:4])"))
    np.testing.assert_array_equal(py.predict_proba(iris_x),
                                  np.array(r("function(m) predict(m, iris, type = 'prob')")(rm)).reshape(150, 3, order="F"))
    back = tmp_path / "back.sporf"
    py.save(back)
    same = r("function(p) { m <- sporf_load(p); identical(predict(m, iris), predict(sporf(Species ~ ., iris, "
             "n_estimators = 5, random_state = 3), iris)) }")(str(back))
    assert bool(same[0])


def test_votes_oob_curve_sparse_and_bytes_loading_match(r):
    """These conventions give the same numbers on both sides: vote
    fractions (predict_votes / type = "vote"), the out-of-bag error curve
    (oob_error_curve_ / $oob_error_curve), sparse X (scipy / Matrix) and
    loading a model from its bytes (load(bytes) / sporf_load(raw))."""
    import scipy.sparse as sparse

    X, y = make_trunk(200, 8, random_state=13)
    Xs = np.where(np.random.default_rng(0).random(X.shape) < 0.4, X, 0.0)
    py = sporf.SPORFClassifier(n_estimators=12, max_depth=3, oob_score=True, random_state=5).fit(Xs, y)
    ro.globalenv["sx"], ro.globalenv["sy"] = r_matrix(Xs), r_labels(y)
    rm = r("sporf(sx, sy, n_estimators = 12, max_depth = 3, oob_score = TRUE, random_state = 5)")
    assert r_model_bytes(rm) == py.to_bytes()
    rv = np.array(r("function(m) predict(m, sx, type = 'vote')")(rm)).reshape(200, 2, order="F")
    np.testing.assert_array_equal(rv, py.predict_votes(Xs))
    np.testing.assert_array_equal(np.array(rm.rx2("oob_error_curve")), py.oob_error_curve_)
    np.testing.assert_array_equal(np.array(rm.rx2("oob_error_curve_by_class")), py.oob_error_curve_by_class_)
    # sparse input in both languages: the dense fit's bytes
    assert sporf.SPORFClassifier(n_estimators=12, max_depth=3, random_state=5).fit(
        sparse.csr_matrix(Xs), y).to_bytes() == r_model_bytes(
        r("sporf(Matrix::Matrix(sx, sparse = TRUE), sy, n_estimators = 12, max_depth = 3, random_state = 5)"))
    # a model from its bytes
    back = r["sporf_load"](ro.vectors.ByteVector(py.to_bytes()))
    assert r_model_bytes(back) == sporf.load(r_model_bytes(rm)).to_bytes()


def test_one_class_fits_to_the_same_model_in_both_languages(r):
    X, _ = make_trunk(60, 4, random_state=0)
    y = np.zeros(60, dtype=np.int64)
    py = sporf.SPORFClassifier(n_estimators=4, random_state=5).fit(X, y)
    rm = r_fit(r, X, y, n_estimators=4, random_state=5)
    assert r_model_bytes(rm) == py.to_bytes()
    np.testing.assert_array_equal(r_proba(r, rm, X[:5]), py.predict_proba(X[:5]))


@pytest.mark.parametrize("kind", ["classification", "regression", "honest", "missing", "tune_oob"])
def test_multi_output_forest_is_the_same_in_both_languages(r, kind):
    # a 2-D y in Python, a data frame of factors or a matrix in R: the same bytes,
    # scores and predictions
    from test_multioutput import two_class_outputs, two_regression_outputs

    if kind == "regression" or kind == "tune_oob":
        X, Y = two_regression_outputs(300, 11)
    else:
        X, Y = two_class_outputs(300, 11)
    kw = dict(n_estimators=10, random_state=5, n_jobs=2, oob_score=True)
    if kind == "honest":
        kw.update(honest_fraction=0.4)
    if kind == "missing":
        X = X.copy()
        X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    if kind == "tune_oob":
        kw.update(tune_oob=True)
    regression = Y.dtype.kind == "f"
    py = (sporf.SPORFRegressor if regression else sporf.SPORFClassifier)(**kw).fit(X, Y)
    if regression:
        ry = r_matrix(Y)
    else:  # a data frame of factors, one per output
        ry = ro.r["data.frame"](**{"o%d" % j: ro.r["factor"](ro.StrVector(list(Y[:, j]))) for j in range(2)})
    args = {k: (ro.BoolVector([v]) if isinstance(v, bool) else ro.FloatVector([v])) for k, v in kw.items()}
    rm = r["sporf"](r_matrix(X), ry, **args)
    assert bytes(rm.rx2("model")) == py.to_bytes()
    assert rm.rx2("oob_score")[0] == pytest.approx(py.oob_score_, abs=1e-12)
    Xt = X[:40]
    if regression:
        got = np.array(r["predict"](rm, r_matrix(Xt)))
        np.testing.assert_array_equal(got, py.predict(Xt))
    else:
        probs = r["predict"](rm, r_matrix(Xt), type="prob")
        for j, want in enumerate(py.predict_proba(Xt)):
            np.testing.assert_array_equal(np.array(probs[j]), want)
        classes = r["predict"](rm, r_matrix(Xt))
        got = np.column_stack([np.array(ro.r["as.character"](classes[j])) for j in range(2)])
        np.testing.assert_array_equal(got, py.predict(Xt))
    # and R reads the Python model back with the outputs' classes
    back = r["sporf_load"](ro.r["as.raw"](ro.IntVector(list(py.to_bytes()))))
    assert int(back.rx2("n_outputs")[0]) == 2


def test_negative_n_jobs_count_the_same_cores_in_both_languages(r):
    # -1 is every core and -2 all but one, by the core's count in both languages
    # (read once a process: a one-row predict with n_jobs=-1 must not pay for it)
    from sporf import _params
    cores = os.cpu_count()
    for n_jobs, want in [(-1, cores), (-2, max(1, cores - 1)), (-(cores + 5), 1), (3, 3), (None, 1)]:
        assert _params.resolve_n_jobs(n_jobs) == want
        got = r("sporf:::.resolve_n_jobs")(r_value(n_jobs) if n_jobs is not None else ro.NULL)
        assert int(got[0]) == want
    assert _params.resolve_n_jobs(np.int64(-1)) == cores
    for bad in [0, 1.5, "2"]:
        with pytest.raises(ValueError, match="n_jobs"):
            _params.resolve_n_jobs(bad)


@pytest.mark.parametrize("params", [dict(class_weight={0: 2.0, 1: 1.0}), dict(importance="permutation")],
                         ids=["class weights", "permutation importance"])
def test_what_several_outputs_refuse_reads_the_same_in_both_languages(r, params):
    """The refusals of a fit on several outputs come from the spec, in one wording."""
    from rpy2.rinterface_lib.embedded import RRuntimeError

    X, y = make_trunk(60, 6, random_state=1)
    Y = np.column_stack([y, 1 - y])
    with pytest.raises(ValueError) as py_err:
        sporf.SPORFClassifier(n_estimators=2, **params).fit(X, Y)
    r_y = ro.r["data.frame"](a=ro.FactorVector(ro.IntVector(Y[:, 0])), b=ro.FactorVector(ro.IntVector(Y[:, 1])))
    with pytest.raises(RRuntimeError) as r_err:
        r["sporf"](r_matrix(X), r_y, n_estimators=2, **{k: r_value(v) for k, v in params.items()})
    r_message = str(r_err.value).strip().replace("Error: ", "", 1)
    assert str(py_err.value) == r_message
    assert "2 outputs" in r_message


def survival_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    t = rng.exponential(np.exp(-(X[:, 0] - 0.5 * X[:, 1])))
    c = rng.uniform(0, 3, n)
    return X, (t <= c).astype(int), np.minimum(t, c)


def r_surv(r, event, time):
    return r("survival::Surv")(ro.FloatVector(time), ro.IntVector([int(e) for e in event]))


SURVIVAL_CASES = [
    ("defaults", {}),
    ("axis-leaf5-oob", dict(projection="axis", min_samples_leaf=5, oob_score=True)),
    ("weighted-histogram", dict(sample_weight="linspace", max_bins=16, min_samples_leaf=3)),
    ("honest-permutation", dict(honest_fraction=0.5, min_samples_leaf=4, importance="permutation")),
]


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("name,params", SURVIVAL_CASES, ids=[c[0] for c in SURVIVAL_CASES])
def test_survival_same_model_and_curves_in_both_languages(r, name, params, n_jobs):
    X, event, time = survival_data(300, 3)
    params = dict(params)
    sw = weights_for(len(time)) if params.pop("sample_weight", None) == "linspace" else None
    kw = dict(n_estimators=15, random_state=21, n_jobs=n_jobs, **params)
    py = sporf.SPORFSurvival(**kw).fit(X, (event, time), sample_weight=sw)
    r_kw = {k: r_value(v) for k, v in kw.items()}
    if sw is not None:
        r_kw["sample_weight"] = ro.FloatVector(sw)
    rm = r["sporf"](r_matrix(X), r_surv(r, event, time), **r_kw)
    assert r_model_bytes(rm) == py.to_bytes()
    Xt, _, _ = survival_data(40, 4)
    np.testing.assert_array_equal(np.array(r["predict"](rm, r_matrix(Xt))), py.predict(Xt))
    times = ro.FloatVector([0.1, 0.5, 1.0, 2.0])
    for kind, method in [("survival", py.predict_survival_function), ("chf", py.predict_cumulative_hazard_function)]:
        got = np.array(r["predict"](rm, r_matrix(Xt), type=kind, times=times))
        np.testing.assert_array_equal(got, method(Xt, return_array=True, times=list(times)))
    np.testing.assert_array_equal(np.array(rm.rx2("unique_times")), py.unique_times_)
    if params.get("oob_score"):
        assert float(rm.rx2("oob_score")[0]) == py.oob_score_
        got = np.array(rm.rx2("oob_predictions"))  # NA where no tree left the row out
        np.testing.assert_array_equal(got[~np.isnan(got)], py.oob_prediction_[~np.isnan(got)])
        np.testing.assert_array_equal(np.array(rm.rx2("oob_error_curve")), py.oob_error_curve_)
    if params.get("importance") == "permutation":
        np.testing.assert_array_equal(np.array(rm.rx2("permutation_importance")), py.permutation_importances_)
    np.testing.assert_array_equal(np.array(r["restricted_mean"](rm, r_matrix(Xt), 1.5)),
                                  py.predict_restricted_mean(Xt, 1.5))
    # the event-time intervals: the same out-of-bag scores and weights, the same intervals, then
    # calibrated on held-out rows
    np.testing.assert_array_equal(np.array(rm.rx2("interval_scores")), py.interval_scores_)
    np.testing.assert_array_equal(np.array(rm.rx2("interval_weights")), py.interval_weights_)
    for coverage, calibrated in [(0.8, True), (0.9, False)]:
        got = np.array(r["predict"](rm, r_matrix(Xt), type="interval", coverage=coverage, calibrated=calibrated))
        np.testing.assert_array_equal(got, py.predict_interval(Xt, coverage, calibrated=calibrated))
    Xc, event_c, time_c = survival_data(80, 6)
    rm = r["calibrate_intervals"](rm, r_matrix(Xc), r_surv(r, event_c, time_c))
    py.calibrate_intervals(Xc, (event_c, time_c))
    np.testing.assert_array_equal(np.array(r["predict"](rm, r_matrix(Xt), coverage=0.8)),
                                  py.predict_interval(Xt, 0.8))


def test_survival_defaults_and_concordance_match(r):
    """R's sporf() on a Surv y takes SPORFSurvival's defaults (those that are
    expressions of y in R: checked on the fitted forest), and both languages'
    Harrell's C is the core's."""
    X, event, time = survival_data(120, 5)
    fitted = r["sporf"](r_matrix(X), r_surv(r, event, time), n_estimators=2, random_state=1).rx2("params")
    defaults = sporf.SPORFSurvival().get_params()
    assert fitted.rx2("min_events_split")[0] == defaults["min_events_split"] == 16
    for name in fitted.names:
        if name in ("random_state", "n_estimators") or name not in defaults:
            continue
        value = fitted.rx2(name)
        if defaults[name] is None:
            assert value is rpy2.rinterface.NULL, name
        else:
            assert value[0] == defaults[name], name
    risk = np.random.default_rng(0).normal(size=120)
    got = r["concordance_index"](r_surv(r, event, time), ro.FloatVector(risk))[0]
    assert got == sporf.concordance_index(event, time, risk)


def test_survival_model_from_r_loads_in_python(r, tmp_path):
    X, event, time = survival_data(200, 6)
    rm = r["sporf"](r_matrix(X), r_surv(r, event, time), n_estimators=10, random_state=3)
    path = tmp_path / "surv.sporf"
    r["sporf_save"](rm, str(path))
    py = sporf.load(path)
    assert isinstance(py, sporf.SPORFSurvival)
    np.testing.assert_array_equal(py.predict(X), np.array(r["predict"](rm, r_matrix(X))))


def test_morf_survival_same_model_in_both_languages(r):
    # morf() on a Surv y and MORFSurvival: the same patch survival forest
    # (and R's morf() takes MORFSurvival's defaults), read back by either side
    rng = np.random.default_rng(8)
    X = rng.normal(size=(250, 12))
    t = rng.exponential(np.exp(-X[:, 4:7].sum(axis=1)))
    c = rng.uniform(0, 3, 250)
    event, time = (t <= c).astype(int), np.minimum(t, c)
    kw = dict(n_estimators=30, max_patch_dims=3, random_state=5, oob_score=True)
    py = sporf.MORFSurvival(**kw).fit(X, (event, time))
    rm = r["morf"](r_matrix(X), r_surv(r, event, time), **{k: r_value(v) for k, v in kw.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    assert float(rm.rx2("oob_score")[0]) == py.oob_score_
    got = np.array(r["predict"](rm, r_matrix(X[:20]), type="survival", times=ro.FloatVector([0.2, 1.0])))
    np.testing.assert_array_equal(got, py.predict_survival_function(X[:20], return_array=True, times=[0.2, 1.0]))
    fitted = rm.rx2("params")
    defaults = sporf.MORFSurvival().get_params()
    for name in ("criterion", "min_samples_leaf", "max_bins", "honest_prior", "max_features", "patch_weights"):
        assert fitted.rx2(name)[0] == defaults[name], name
    assert isinstance(sporf.load(py.to_bytes()), sporf.MORFSurvival)


def test_categorical_survival_gives_the_same_forest(r):
    # a survival forest's categorical levels are ordered by the rows' null
    # martingale residuals, computed by each binding: the same order, the
    # same bytes, from a pandas category column and an R factor
    import pandas as pd

    rng = np.random.default_rng(12)
    n = 300
    level = rng.integers(0, 9, n)
    x = rng.normal(size=n)
    t = rng.exponential(np.exp(-(rng.normal(0, 1, 9)[level] + 0.5 * x)))
    c = rng.uniform(0, 3, n)
    event, time = (t <= c).astype(int), np.minimum(t, c)
    names = np.array(["g%d" % k for k in range(9)])
    kw = dict(n_estimators=10, random_state=4, oob_score=True)
    frame = pd.DataFrame({"grade": pd.Categorical(names[level], categories=names), "x": x})
    py = sporf.SPORFSurvival(**kw).fit(frame, (event, time))
    factor = ro.r["factor"](ro.StrVector(names[level].tolist()), levels=ro.StrVector(names.tolist()))
    df = ro.r["data.frame"](grade=factor, x=ro.FloatVector(x))
    rm = r["sporf"](df, r_surv(r, event, time), **{k: r_value(v) for k, v in kw.items()})
    assert r_model_bytes(rm) == py.to_bytes()
    assert float(rm.rx2("oob_score")[0]) == py.oob_score_
    np.testing.assert_array_equal(np.array(r["predict"](rm, df)), py.predict(frame))


def test_the_training_rows_fingerprint_is_the_same_in_both_languages(r):
    """oob=True checks newdata against the fit's fingerprint: one definition in
    the core, NaN and R's NA alike."""
    from sporf import _native

    X = np.random.default_rng(3).normal(size=(1500, 4))
    X[::7, 1] = np.nan
    r.assign("fp_x", r_matrix(X))
    assert r(".Call(sporf:::C_sporf_r_fingerprint, fp_x)")[0] == "%016x" % _native.fingerprint(X)
    assert _native.fingerprint(X.astype(np.float32)) == _native.fingerprint(X.astype(np.float32).astype(np.float64))
    assert _native.fingerprint(X[::-1].copy()) != _native.fingerprint(X)
