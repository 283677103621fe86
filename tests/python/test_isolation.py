"""Isolation forests (SPORFIsolation, MORFIsolation): the paper's scores and
correction, the projections, every path a forest of sporf has (missing
values, categorical and sparse X, float32, pickling, model files, shards,
warm start, threads), and bad input."""
import io
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

import sporf
from sporf import MORFIsolation, SPORFIsolation


def planted(n=400, p=6, k=12, seed=0):
    """n ordinary rows of N(0, I) and k anomalies 6 standard deviations out
    along a random direction (labels 1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + k, p))
    d = rng.normal(size=p)
    X[n:] += 6.0 * d / np.linalg.norm(d) + rng.normal(scale=0.3, size=(k, p))
    return X, np.r_[np.zeros(n), np.ones(k)]


def c_of(n):
    """The paper's c(n) with the exact harmonic number."""
    if n <= 1:
        return 0.0
    return 2.0 * np.sum(1.0 / np.arange(1, n)) - 2.0 * (n - 1) / n


@pytest.mark.parametrize("projection", ["sparse", "axis", "gaussian", "frc", "poisson"])
def test_planted_anomalies_score_highest(projection):
    X, y = planted()
    f = SPORFIsolation(n_estimators=100, projection=projection, random_state=0).fit(X)
    s = f.score_samples(X)
    assert roc_auc_score(y, -s) > 0.97, projection
    # scikit-learn's convention: the opposite of the paper's score, in [-1, 0)
    assert np.all((s < 0) & (s >= -1))


def test_two_rows_score_one_half_exactly():
    # psi = 2: the root splits them (depth 1, c(1) = 0) and c(2) = 1, so h / c(psi) = 1
    X = np.array([[0.0, 1.0], [1.0, 3.0]])
    f = SPORFIsolation(n_estimators=5, random_state=0).fit(X)
    assert np.array_equal(f.score_samples(X), [-0.5, -0.5])


def test_the_depth_limit_counts_c_of_the_rows_left_together():
    # 16 copies of one row and 16 of another, depth limit 1: every leaf holds
    # 16 equal rows, whose path length is 1 + c(16), over c(32)
    X = np.repeat([[0.0], [1.0]], 16, axis=0)
    f = SPORFIsolation(n_estimators=3, max_depth=1, random_state=0).fit(X)
    want = -2.0 ** (-(1.0 + c_of(16)) / c_of(32))
    np.testing.assert_allclose(f.score_samples(X), want, rtol=1e-12)


def test_max_samples_is_at_most_the_rows_and_sets_the_depth_limit():
    X, _ = planted(n=100)
    f = SPORFIsolation(n_estimators=4, random_state=0).fit(X)  # 256 > 112 rows: every row
    g = SPORFIsolation(n_estimators=4, max_samples=X.shape[0], random_state=0).fit(X)
    assert f.to_bytes() != g.to_bytes()  # the parameters as given are kept...
    np.testing.assert_array_equal(f.score_samples(X), g.score_samples(X))  # ...the trees are the same
    # trees grow until every row stands alone: 16 leaves of one row each
    h = SPORFIsolation(n_estimators=4, max_samples=16, random_state=0).fit(X)
    assert all(h.get_tree(t).children_left.shape[0] == 31 for t in range(4))
    # the paper's limit, ceil(log2(16)) = 4 cuts, when asked for
    four = SPORFIsolation(n_estimators=4, max_samples=16, max_depth=4, random_state=0).fit(X)
    assert not np.array_equal(h.score_samples(X), four.score_samples(X))


def test_constant_columns_give_every_row_the_same_score():
    X = np.ones((50, 3))
    f = SPORFIsolation(n_estimators=10, random_state=0).fit(X)
    s = f.score_samples(X)
    assert np.all(np.isfinite(s)) and np.all(s == s[0])
    assert s[0] == -0.5  # every tree a leaf of psi rows: c(psi) / c(psi) = 1
    assert np.all(f.predict(X) == 1)


def test_contamination_sets_the_offset_and_labels():
    X, y = planted()
    auto = SPORFIsolation(n_estimators=50, random_state=0).fit(X)
    assert auto.offset_ == -0.5
    f = SPORFIsolation(n_estimators=50, contamination=0.05, random_state=0).fit(X)
    s = f.score_samples(X)
    assert f.offset_ == pytest.approx(np.percentile(s, 5.0), rel=1e-12)
    labels = f.predict(X)
    assert set(np.unique(labels)) == {-1, 1}
    assert abs((labels == -1).mean() - 0.05) < 0.01
    np.testing.assert_array_equal(f.decision_function(X), s - f.offset_)
    np.testing.assert_array_equal(f.fit_predict(X), labels)
    for bad in (0.0, 0.6, -0.1, "high", True, None):
        with pytest.raises(ValueError, match="contamination"):
            SPORFIsolation(contamination=bad).fit(X)


def test_same_bytes_for_any_thread_count():
    X, _ = planted()
    a = SPORFIsolation(n_estimators=30, random_state=3, n_jobs=1).fit(X)
    b = SPORFIsolation(n_estimators=30, random_state=3, n_jobs=2).fit(X)
    assert a.to_bytes() == b.to_bytes()
    np.testing.assert_array_equal(a.score_samples(X), SPORFIsolation(n_estimators=30, random_state=3).fit(X)
                                  .score_samples(X))


def test_oblique_projections_do_not_follow_the_largest_units():
    # the anomalies differ in two features of unit spread; a third, ordinary
    # feature has units 1e6 times larger: unscaled +-1 sums would cut along it
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3))
    X[:, 2] *= 1e6
    X[:10, :2] = [4.0, -4.0]
    y = np.r_[np.ones(10), np.zeros(490)]
    f = SPORFIsolation(n_estimators=100, feature_combinations=3.0, random_state=0).fit(X)
    assert roc_auc_score(y, -f.score_samples(X)) > 0.95


def test_rows_with_missing_values_are_scored():
    X, y = planted()
    Xm = X.copy()
    Xm[::7, 1] = np.nan
    f = SPORFIsolation(n_estimators=60, random_state=0).fit(Xm)
    s = f.score_samples(Xm)
    assert np.all(np.isfinite(s))
    assert roc_auc_score(y, -s) > 0.95
    row = Xm[:1].copy()
    row[0, :] = np.nan  # every feature missing: scored too
    assert np.isfinite(f.score_samples(row)[0])


def test_sparse_float32_and_dataframe_input():
    X, _ = planted()
    X[np.abs(X) < 0.5] = 0.0
    f = SPORFIsolation(n_estimators=20, random_state=0).fit(X)
    g = SPORFIsolation(n_estimators=20, random_state=0).fit(sp.csr_matrix(X))
    assert f.to_bytes() == g.to_bytes()
    np.testing.assert_array_equal(f.score_samples(sp.csc_matrix(X)), f.score_samples(X))
    x32 = X.astype(np.float32)
    h = SPORFIsolation(n_estimators=20, random_state=0).fit(x32)
    k = SPORFIsolation(n_estimators=20, random_state=0).fit(x32.astype(np.float64))
    np.testing.assert_allclose(h.score_samples(x32), k.score_samples(x32), rtol=1e-6)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e", "f"])
    m = SPORFIsolation(n_estimators=20, random_state=0).fit(frame)
    assert list(m.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(m.score_samples(frame), f.score_samples(X))


def test_categorical_features_isolate_a_rare_level():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 400
    level = rng.choice(["a", "b", "c"], size=n)
    level[:8] = "rare"
    frame = pd.DataFrame({"x": rng.normal(size=n), "level": pd.Categorical(level)})
    f = SPORFIsolation(n_estimators=100, projection="axis", random_state=0).fit(frame)
    assert f.is_categorical_.tolist() == [False, True]
    s = f.score_samples(frame)
    assert roc_auc_score(np.r_[np.ones(8), np.zeros(n - 8)], -s) > 0.9
    unseen = frame.iloc[:1].copy()
    unseen["level"] = pd.Categorical(["never"])
    assert np.isfinite(f.score_samples(unseen)[0])  # an unseen level is a missing value


def test_pickle_and_model_file_keep_scores_and_offset():
    X, _ = planted()
    f = SPORFIsolation(n_estimators=20, contamination=0.1, random_state=0).fit(X)
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(g.score_samples(X), f.score_samples(X))
    buf = io.BytesIO(f.to_bytes())
    h = sporf.load(buf)
    assert type(h) is SPORFIsolation and h.offset_ == f.offset_
    np.testing.assert_array_equal(h.predict(X), f.predict(X))
    assert h.contamination == "auto"  # a runtime option: the file keeps its threshold, offset_
    m = MORFIsolation(n_estimators=5, random_state=0).fit(np.random.default_rng(0).normal(size=(30, 4, 4)))
    assert type(sporf.load(m.to_bytes())) is MORFIsolation


def test_a_corrupt_threshold_or_format_is_refused():
    X, _ = planted()
    data = bytearray(SPORFIsolation(n_estimators=3, random_state=0).fit(X).to_bytes())
    assert int.from_bytes(data[8:12], "little") == 15  # the format of isolation forests
    for version in (14, 13, 16):
        bad = bytearray(data)
        bad[8:12] = version.to_bytes(4, "little")
        with pytest.raises(ValueError):
            sporf.load(bytes(bad))


def test_shards_merge_into_one_fit_and_warm_start_adds_its_trees():
    X, _ = planted()
    whole = SPORFIsolation(n_estimators=30, random_state=5).fit(X)
    a = SPORFIsolation(n_estimators=10, random_state=5, first_tree=0).fit(X)
    b = SPORFIsolation(n_estimators=20, random_state=5, first_tree=10).fit(X)
    merged = sporf.merge_forests([a, b])
    assert merged.to_bytes() == whole.to_bytes()
    np.testing.assert_array_equal(merged.score_samples(X), whole.score_samples(X))
    warm = SPORFIsolation(n_estimators=10, random_state=5, warm_start=True).fit(X)
    warm.set_params(n_estimators=30).fit(X)
    assert warm.to_bytes() == whole.to_bytes()


def test_morf_isolation_finds_images_with_a_misplaced_patch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 12, 12)) * 0.2
    X[:, 2:5, :] += 1.0  # every image: a bright band at the top
    X[:6, 2:5, :] -= 1.0
    X[:6, 8:11, :] += 1.0  # six images: the band moved down
    y = np.r_[np.ones(6), np.zeros(194)]
    f = MORFIsolation(n_estimators=100, random_state=0).fit(X)
    assert f.data_dims_ == (12, 12)
    assert roc_auc_score(y, -f.score_samples(X)) > 0.95
    np.testing.assert_array_equal(f.score_samples(X.reshape(200, -1)), f.score_samples(X))


def test_bad_input_is_refused_with_a_clear_error():
    X, _ = planted()
    with pytest.raises(ValueError, match="minimum of 2"):
        SPORFIsolation().fit(X[:1])
    Xi = X.copy()
    Xi[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity|inf"):
        SPORFIsolation().fit(Xi)
    f = SPORFIsolation(n_estimators=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        f.score_samples(X[:, :4])
    with pytest.raises(ValueError, match="infinity|inf"):
        f.score_samples(Xi)
    with pytest.raises(ValueError, match="max_samples"):
        SPORFIsolation(max_samples=1).fit(X)
    with pytest.raises(TypeError, match="min_samples_leaf"):
        SPORFIsolation(min_samples_leaf=3)
