"""The committed golden files (tests/golden): models saved by R and by
Python, and by every older model format, load and predict as they did in
both languages, and the current files refit to the byte. Regenerate them
with `make golden` (tests/golden/README.md) only when the format changes."""
import numpy as np
import pytest

import sporf

from rbridge import GOLDEN, REPO, r, r_proba  # noqa: F401


def _golden(name, shape):
    return np.fromfile(GOLDEN / name, dtype="<f8").reshape(shape)


def test_golden_r_model_in_python():
    Xt = _golden("test_x.f64", (-1, 7))
    py = sporf.load(GOLDEN / "r_model.sporf")
    np.testing.assert_array_equal(py.predict_proba(Xt), _golden("r_proba.f64", (-1, 3)))
    assert list(py.classes_) == ["high", "low", "mid"]
    # Python refits the R golden model byte for byte.
    X = _golden("train_x.f64", (-1, 7))
    y = np.array((GOLDEN / "train_y.txt").read_text().split())
    refit = sporf.SPORFClassifier(n_estimators=12, max_features=4, projection="axis", max_depth=8,
                                  min_samples_leaf=2, axis_features=0, guided_features=0, max_bins=0,
                                  random_state=4242).fit(X, y)
    assert refit.to_bytes() == (GOLDEN / "r_model.sporf").read_bytes()


def test_golden_python_model_in_python():
    Xt = _golden("test_x.f64", (-1, 7))
    py = sporf.load(GOLDEN / "python_model.sporf")
    np.testing.assert_array_equal(py.predict_proba(Xt), _golden("python_proba.f64", (-1, 3)))
    X = _golden("train_x.f64", (-1, 7))
    y = np.array((GOLDEN / "train_y.txt").read_text().split())
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_golden", REPO / "tools" / "make_golden.py")
    mg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mg)
    refit = sporf.SPORFClassifier(**mg.PARAMS).fit(X, y)
    assert refit.to_bytes() == (GOLDEN / "python_model.sporf").read_bytes()


@pytest.mark.parametrize("version", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("lang", ["python", "r"])
def test_golden_older_format_models_still_load(lang, version, tmp_path):
    """Models saved by format 3 (before the compact trees of format 4),
    format 4 (before tree ranges), format 5 (sizes stored resolved, before
    the parameter spec), format 6 (before axis_features and guided_features)
    and format 7 (before missing values) load, predict exactly as before,
    and re-save as one current-format file: the current golden file's trees
    without its missing-value directions, which older formats did not store
    (such a model refuses rows with NaN: test_missing.py)."""
    Xt = _golden("test_x.f64", (-1, 7))
    old = sporf.load(GOLDEN / ("%s_model_v%d.sporf" % (lang, version)))
    np.testing.assert_array_equal(old.predict_proba(Xt), _golden("%s_proba.f64" % lang, (-1, 3)))
    converted = old.to_bytes()
    assert converted == sporf.load(GOLDEN / ("%s_model_v7.sporf" % lang)).to_bytes()
    assert len(converted) == len((GOLDEN / ("%s_model.sporf" % lang)).read_bytes())
    (tmp_path / "converted.sporf").write_bytes(converted)
    assert sporf.load(tmp_path / "converted.sporf").to_bytes() == converted


@pytest.mark.parametrize("version", [8, 9])
@pytest.mark.parametrize("lang", ["python", "r"])
def test_golden_format_8_and_9_models_resave_as_the_current_files(lang, version):
    """Format 8 (before max_bins of format 9) and format 9 (before quantiles
    of format 10) load, predict as before and re-save as the current golden
    file to the byte: the golden models search exactly (max_bins=0), which is
    what a format 8 file's missing max_bins reads as, and keep no quantiles,
    what a missing quantiles reads as."""
    Xt = _golden("test_x.f64", (-1, 7))
    old = sporf.load(GOLDEN / ("%s_model_v%d.sporf" % (lang, version)))
    np.testing.assert_array_equal(old.predict_proba(Xt), _golden("%s_proba.f64" % lang, (-1, 3)))
    assert old.get_params()["max_bins"] == 0
    assert old.to_bytes() == (GOLDEN / ("%s_model.sporf" % lang)).read_bytes()


def _make_golden_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_golden", REPO / "tools" / "make_golden.py")
    mg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mg)
    return mg


def test_golden_quantile_model_predicts_and_refits_to_the_byte():
    mg = _make_golden_module()
    Xt = _golden("test_x.f64", (-1, 7))
    expected = _golden("python_quantiles.f64", (-1, len(mg.QUANTILES)))
    py = sporf.load(GOLDEN / "python_quantile_model.sporf")
    np.testing.assert_array_equal(py.predict(Xt, quantiles=mg.QUANTILES), expected)
    X = _golden("train_x.f64", (-1, 7))
    refit = sporf.SPORFRegressor(**mg.QUANTILE_PARAMS).fit(X, mg.quantile_response(X),
                                                           sample_weight=mg.quantile_weights(X))
    assert refit.to_bytes() == (GOLDEN / "python_quantile_model.sporf").read_bytes()


def test_golden_survival_model_predicts_and_refits_to_the_byte():
    mg = _make_golden_module()
    Xt = _golden("test_x.f64", (-1, 7))
    expected = _golden("python_survival.f64", (-1, 1 + len(mg.SURVIVAL_TIMES)))
    py = sporf.load(GOLDEN / "python_survival_model.sporf")
    assert isinstance(py, sporf.SPORFSurvival)
    np.testing.assert_array_equal(py.predict(Xt), expected[:, 0])
    np.testing.assert_array_equal(py.predict_survival_function(Xt, return_array=True, times=mg.SURVIVAL_TIMES),
                                  expected[:, 1:])
    X = _golden("train_x.f64", (-1, 7))
    refit = sporf.SPORFSurvival(**mg.SURVIVAL_PARAMS).fit(X, mg.survival_response(X))
    assert refit.to_bytes() == (GOLDEN / "python_survival_model.sporf").read_bytes()


def test_golden_format_12_survival_model_still_loads_and_predicts(tmp_path):
    """A survival forest of format 12 (before min_events_split): it loads,
    predicts what it predicted, reads min_events_split as 0 (the rule it grew
    without) and re-saves in the current format, reloading to the same
    predictions."""
    mg = _make_golden_module()
    Xt = _golden("test_x.f64", (-1, 7))
    expected = _golden("python_survival_v12.f64", (-1, 1 + len(mg.SURVIVAL_TIMES)))
    old = sporf.load(GOLDEN / "python_survival_model_v12.sporf")
    assert isinstance(old, sporf.SPORFSurvival) and old.min_events_split == 0
    np.testing.assert_array_equal(old.predict(Xt), expected[:, 0])
    np.testing.assert_array_equal(old.predict_survival_function(Xt, return_array=True, times=mg.SURVIVAL_TIMES),
                                  expected[:, 1:])
    assert (GOLDEN / "python_survival_model_v12.sporf").read_bytes()[8] == 12
    old.save(tmp_path / "resaved.sporf")
    assert (tmp_path / "resaved.sporf").read_bytes()[8] == 13
    np.testing.assert_array_equal(sporf.load(tmp_path / "resaved.sporf").predict(Xt), expected[:, 0])


def test_golden_categorical_model_predicts_and_refits_to_the_byte():
    mg = _make_golden_module()
    frame_t = mg.categorical_frame(_golden("test_x.f64", (-1, 7)))
    py = sporf.load(GOLDEN / "python_categorical_model.sporf")
    np.testing.assert_array_equal(py.predict_proba(frame_t), _golden("python_categorical_proba.f64", (-1, 3)))
    assert list(py.is_categorical_) == [True] + [False] * 6
    X = _golden("train_x.f64", (-1, 7))
    y = np.array((GOLDEN / "train_y.txt").read_text().split())
    refit = sporf.SPORFClassifier(**mg.CATEGORICAL_PARAMS).fit(mg.categorical_frame(X), y)
    assert refit.to_bytes() == (GOLDEN / "python_categorical_model.sporf").read_bytes()


def test_golden_python_model_in_r(r):
    Xt = _golden("test_x.f64", (-1, 7))
    rm = r["sporf_load"](str(GOLDEN / "python_model.sporf"))
    np.testing.assert_array_equal(r_proba(r, rm, Xt), _golden("python_proba.f64", (-1, 3)))


def test_golden_isolation_model_scores_and_refits_to_the_byte():
    """An isolation forest of format 15 (path-length leaves, the outlier
    threshold) scores its stored scores and refits to its bytes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_golden", REPO / "tools" / "make_golden.py")
    mg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mg)
    X, Xt = _golden("train_x.f64", (-1, 7)), _golden("test_x.f64", (-1, 7))
    py = sporf.load(GOLDEN / "python_isolation_model.sporf")
    assert type(py) is sporf.SPORFIsolation and py.offset_ < -0.5
    np.testing.assert_array_equal(-py.score_samples(mg.isolation_rows(Xt)), _golden("python_isolation_scores.f64", (-1,)))
    refit = sporf.SPORFIsolation(**mg.ISOLATION_PARAMS).fit(mg.isolation_rows(X))
    assert refit.to_bytes() == (GOLDEN / "python_isolation_model.sporf").read_bytes()
