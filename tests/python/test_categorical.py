"""Categorical features: pandas category columns and categorical_features,
levels ordered by the response once per forest, matched by name at
prediction, refused with a reason when they cannot be read."""
import pickle

import numpy as np
import pandas as pd
import pytest

import sporf
from sporf import _native
from sporf import MORFClassifier, SPORFClassifier, SPORFRegressor, URerF

NAMES = np.array(["lv%02d" % k for k in range(30)])


def thirty_levels(n, seed, classification=False):
    """A 30-level unordered factor carrying the signal (level effects in an
    order unrelated to the codes) plus a weak numeric feature and noise."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 30, n)
    effect = np.random.default_rng(99).normal(0, 2, 30)
    x = rng.normal(size=(n, 3))
    score = effect[level] + 0.5 * x[:, 0]
    y = (score + rng.normal(size=n) > 0).astype(int) if classification else score + rng.normal(size=n)
    frame = pd.DataFrame({"f": pd.Categorical(NAMES[level], categories=NAMES), "a": x[:, 0], "b": x[:, 1],
                          "c": x[:, 2]})
    return frame, np.column_stack([level, x]).astype(float), y


@pytest.mark.parametrize("classification", [False, True])
def test_a_many_level_factor_beats_its_integer_codes(classification):
    frame, codes, y = thirty_levels(1500, 1, classification)
    frame_t, codes_t, y_t = thirty_levels(4000, 2, classification)
    est = SPORFClassifier if classification else SPORFRegressor
    as_levels = est(n_estimators=60, random_state=0).fit(frame, y)
    as_numbers = est(n_estimators=60, random_state=0).fit(codes, y)
    if classification:
        err_levels = np.mean(as_levels.predict(frame_t) != y_t)
        err_numbers = np.mean(as_numbers.predict(codes_t) != y_t)
    else:
        err_levels = np.mean((as_levels.predict(frame_t) - y_t) ** 2)
        err_numbers = np.mean((as_numbers.predict(codes_t) - y_t) ** 2)
    assert err_levels < err_numbers
    assert list(as_levels.is_categorical_) == [True, False, False, False]
    # the same levels as integer codes named in categorical_features: the same forest's predictions
    by_index = est(n_estimators=60, random_state=0, categorical_features=[0]).fit(codes, y)
    np.testing.assert_array_equal(by_index.predict(codes_t), as_levels.predict(frame_t))


def test_levels_are_matched_by_name_and_unseen_ones_are_missing():
    frame, _, y = thirty_levels(800, 3)
    model = SPORFRegressor(n_estimators=20, random_state=0).fit(frame, y)
    rows = frame.head(20).copy()
    expected = model.predict(rows)
    # the same levels with the categories in another order
    rows_shuffled = rows.copy()
    rows_shuffled["f"] = rows["f"].cat.reorder_categories(list(NAMES[::-1]))
    np.testing.assert_array_equal(model.predict(rows_shuffled), expected)
    # plain strings at prediction are matched by name too
    np.testing.assert_array_equal(model.predict(rows.assign(f=rows["f"].astype(str))), expected)
    # an unseen level and a missing one predict as a missing value does
    odd = rows.head(2).copy()
    odd["f"] = pd.Categorical(["never seen", None])
    missing = rows.head(2).copy()
    missing["f"] = pd.Categorical([None, None], categories=NAMES)
    np.testing.assert_array_equal(model.predict(odd), model.predict(missing))


def test_save_load_pickle_and_warm_start_keep_the_levels(tmp_path):
    frame, _, y = thirty_levels(600, 4)
    # best cuts: warm_start keeps the first fit's choice of trees, which 4 and 8 trees may make differently
    model = SPORFRegressor(n_estimators=8, splitter="best", random_state=3).fit(frame, y)
    model.save(tmp_path / "m.sporf")
    for again in (sporf.load(tmp_path / "m.sporf"), pickle.loads(pickle.dumps(model))):
        assert list(again.is_categorical_) == list(model.is_categorical_)
        np.testing.assert_array_equal(again.predict(frame), model.predict(frame))
        assert again.to_bytes() == model.to_bytes()
    warm = SPORFRegressor(n_estimators=4, splitter="best", random_state=3, warm_start=True).fit(frame, y)
    warm.set_params(n_estimators=8).fit(frame, y)
    assert warm.to_bytes() == model.to_bytes()
    # a refit on numbers forgets the levels
    model.fit(frame.assign(f=frame["f"].cat.codes.astype(float)), y)
    assert "is_categorical_" not in model.__dict__


def test_the_order_of_levels():
    codes = np.array([0, 0, 1, 1, 2, 2, 3, np.nan])
    # regression: by the mean response; a level no row has gets no position
    pos = _native.order_levels(codes, 5, y=np.array([5.0, 5.0, -1.0, -1.0, 2.0, 2.0, 0.0, 9.0]))
    np.testing.assert_array_equal(pos[:4], [3.0, 0.0, 2.0, 1.0])
    assert np.isnan(pos[4])
    # two classes: by the share of the second class; ties keep the codes' order
    pos = _native.order_levels(codes, 4, codes_y=np.array([1, 1, 0, 0, 1, 0, 0, 0]), n_classes=2)
    np.testing.assert_array_equal(pos, [3.0, 0.0, 2.0, 1.0])
    # weights count: level 0's mean is 3 unweighted, 1.8 with its first row weighing 4
    y = np.array([1.0, 5.0, 2.0, 2.0, 0, 0, 0, 0])
    np.testing.assert_array_equal(_native.order_levels(codes, 4, y=y), [3.0, 2.0, 0.0, 1.0])
    pos = _native.order_levels(codes, 4, y=y, sample_weight=np.array([4.0, 1, 1, 1, 1, 1, 1, 1]))
    np.testing.assert_array_equal(pos, [2.0, 3.0, 0.0, 1.0])
    # several classes: along the first principal component of the class
    # distributions, which here separates class 0 from class 2
    y3 = np.array([0, 0, 2, 2, 1, 1, 0, 0])
    pos = _native.order_levels(codes, 4, codes_y=y3, n_classes=3)
    assert {pos[0], pos[3]} == {0.0, 1.0} or {pos[0], pos[3]} == {2.0, 3.0}
    assert abs(pos[1] - pos[0]) >= 2 or abs(pos[1] - pos[3]) >= 2
    with pytest.raises(ValueError, match="level code"):
        _native.order_levels(np.array([0.0, 7.0]), 3, y=np.array([1.0, 2.0]))


def test_what_cannot_be_read_is_refused_with_a_reason():
    frame, codes, y = thirty_levels(200, 5)
    with pytest.raises(ValueError, match=r"column 'f' holds strings.*category"):
        SPORFRegressor(n_estimators=2).fit(frame.assign(f=frame["f"].astype(str).astype(object)), y)
    with pytest.raises(ValueError, match="not a column index"):
        SPORFRegressor(n_estimators=2, categorical_features=[7]).fit(codes, y)
    with pytest.raises(ValueError, match="not a column of X"):
        SPORFRegressor(n_estimators=2, categorical_features=["nope"]).fit(frame, y)
    with pytest.raises(ValueError, match="categorical features are for"):
        MORFClassifier(n_estimators=2).fit(frame, y > 0)
    with pytest.raises(ValueError, match="categorical features are for"):
        URerF(n_estimators=2).fit(frame)
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="dense"):
        SPORFRegressor(n_estimators=2, categorical_features=[0]).fit(sp.csr_matrix(codes), y)
    with pytest.raises(ValueError, match="finite"):
        bad = codes.copy()
        bad[0, 0] = np.inf
        SPORFRegressor(n_estimators=2, categorical_features=[0]).fit(bad, y)
