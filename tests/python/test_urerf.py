"""URerF: Fast-BIC and two-means splits, proximities, neighbours, the
geodesic metric, and bad input."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import sporf
from sporf import URerF, _proximity
from sporf.datasets import make_manifold, make_trunk
from sporf.metrics import geodesic_precision_recall


def root_left_set(X, **kw):
    """Rows sent left by the root of a single axis-aligned stump on all rows."""
    f = URerF(n_estimators=1, max_depth=1, bootstrap=False, projection="axis", max_features=1,
              min_samples_split=2, random_state=0, **kw).fit(X)
    leaves = f.apply(X)[:, 0]
    return leaves == 1  # the left child is node 1 (depth-first)


def direct_fastbic_cut(z):
    """Index of the first right-hand value of the cut with the lowest BIC,
    computed from the definition (MLE per side; better of equal and unequal
    variances; BIC = -2 log L + (parameters) log n)."""
    z = np.sort(z)
    n = len(z)
    best, best_i = np.inf, None
    for i in range(1, n):
        a, b = z[:i], z[i:]
        va, vb = a.var(), b.var()
        mix = -2 * (i * np.log(i / n) + (n - i) * np.log((n - i) / n))
        pooled = (a.size * va + b.size * vb) / n
        same = mix + n * np.log(2 * np.pi * pooled) + n + 4 * np.log(n)
        diff = np.inf
        if va > 0 and vb > 0:
            diff = mix + i * np.log(2 * np.pi * va) + (n - i) * np.log(2 * np.pi * vb) + n + 5 * np.log(n)
        bic = min(same, diff)
        if bic < best:
            best, best_i = bic, i
    return z, best_i


def test_fastbic_cuts_between_two_separated_clusters():
    rng = np.random.default_rng(0)
    z = np.concatenate([rng.normal(0, 1, 60), rng.normal(20, 3, 40)])
    for criterion in ("fastbic", "twomeans"):
        left = root_left_set(z[:, None], criterion=criterion)
        assert set(np.flatnonzero(left)) in (set(range(60)), set(range(60, 100))), criterion


@pytest.mark.parametrize("seed", range(8))
def test_fastbic_matches_the_direct_bic_computation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 60))
    z = rng.gamma(2.0, 1.0, n) if seed % 2 else rng.normal(0, 1, n) * rng.choice([1, 5], n)
    left = root_left_set(z[:, None])
    zs, i = direct_fastbic_cut(z)
    assert left.sum() == i
    assert set(z[left]) == set(zs[:i])


def test_neighbours_beat_euclidean_under_noise():
    """The URerF paper's point, small: with noise dimensions the forest's
    neighbours follow the line where Euclidean ones do not (measured: 0.42
    against 0.15)."""
    X, D, _ = make_manifold("linear", 400, n_noise=40, random_state=1)
    k = 20
    S = URerF(n_estimators=60, random_state=0, n_jobs=2).fit(X).proximity(n_neighbors=k)
    E = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    forest = geodesic_precision_recall(D, S, k)[0]
    euclid = geodesic_precision_recall(D, -E, k)[0]
    chance = k / (len(X) - 1)
    assert forest > 2 * euclid and forest > 3 * chance, (forest, euclid)


def test_mixture_components_are_recovered():
    X, _, labels = make_manifold("gmm", 300, n_noise=20, random_state=2)
    S = URerF(n_estimators=50, random_state=0).fit(X).proximity(n_neighbors=15)
    precision, recall = geodesic_precision_recall(labels, S, 15)
    assert precision > 0.9 and 0 < recall < precision


def test_determinism_and_threads():
    X, _, _ = make_manifold("sphere", 300, n_noise=5, random_state=0)
    a = URerF(n_estimators=20, random_state=7, n_jobs=1).fit(X)
    b = URerF(n_estimators=20, random_state=7, n_jobs=2).fit(X)
    assert a.to_bytes() == b.to_bytes()
    sa, ia = a.kneighbors(n_neighbors=8)
    sb, ib = b.kneighbors(n_neighbors=8)
    assert np.array_equal(ia, ib) and np.array_equal(sa, sb)


def test_sparse_and_dense_proximity_agree():
    X, _, _ = make_manifold("linear", 200, n_noise=3, random_state=0)
    f = URerF(n_estimators=30, n_neighbors=7, random_state=0).fit(X)
    dense = f.proximity(dense=True)
    assert np.allclose(dense, dense.T) and np.all(np.diag(dense) == 1.0)
    S = f.proximity()
    assert sp.issparse(S) and S.shape == (200, 200)
    rows, cols = S.nonzero()
    assert np.array_equal(np.asarray(S[rows, cols]).ravel(), dense[rows, cols])
    sim, idx = f.kneighbors()
    assert idx.shape == (200, 7) and not np.any(idx == np.arange(200)[:, None])
    assert np.all(np.diff(sim, axis=1) <= 0)
    # the 7th neighbour is at least as similar as any other row
    other = dense.copy()
    np.fill_diagonal(other, -1)
    np.put_along_axis(other, idx, -1, axis=1)
    assert np.all(other.max(axis=1) <= sim[:, -1])


def test_transform_compares_new_rows_with_the_training_rows():
    X, _, _ = make_manifold("helix", 150, random_state=0)
    f = URerF(n_estimators=20, n_neighbors=5, random_state=0).fit(X)
    T = f.transform(X[:10])
    assert T.shape == (10, 150)
    assert np.all(T.toarray()[np.arange(10), np.arange(10)] == 1.0)  # a training row finds itself
    assert (f.fit_transform(X) != f.transform(X)).nnz == 0


def test_save_load_keeps_the_forest_but_not_the_rows(tmp_path):
    X, _, _ = make_manifold("gmm", 120, random_state=0)
    f = URerF(n_estimators=10, n_neighbors=4, random_state=0).fit(X)
    f.save(tmp_path / "u.sporf")
    g = sporf.load(tmp_path / "u.sporf")
    assert isinstance(g, URerF) and g.to_bytes() == f.to_bytes() and g.criterion == "fastbic"
    with pytest.raises(ValueError, match="training rows"):
        g.kneighbors()
    assert (g.proximity(reference=X, n_neighbors=4) != f.proximity()).nnz == 0
    h = pickle.loads(pickle.dumps(f))
    assert np.array_equal(h.kneighbors()[1], f.kneighbors()[1])


def test_patch_projection_and_twomeans():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 36))
    X[:60, 10:14] += 4.0  # a blob on part of a 6 x 6 grid
    f = URerF(n_estimators=20, projection="patch", data_dims=(6, 6), criterion="twomeans", random_state=0).fit(X)
    _, idx = f.kneighbors(n_neighbors=5)
    assert np.mean((idx < 60) == (np.arange(120) < 60)[:, None]) > 0.9
    assert f.get_params()["data_dims"] == (6, 6)


def test_supervised_forests_have_proximity_too():
    X, y = make_trunk(150, n_features=6, random_state=0)
    clf = sporf.SPORFClassifier(n_estimators=20, random_state=0).fit(X, y)
    S = clf.proximity(X, n_neighbors=5)
    assert S.shape == (150, 150) and S[3, 3] == 1.0
    assert clf.proximity(X[:4], reference=X, dense=True).shape == (4, 150)
    with pytest.raises(ValueError, match="does not keep its training rows"):
        clf.proximity()


def test_metric_reference_values():
    t = np.arange(40, dtype=float)
    D = np.abs(t[:, None] - t[None, :])
    assert geodesic_precision_recall(D, -D, 6) == (1.0, 1.0)
    rng = np.random.default_rng(0)
    p, r = geodesic_precision_recall(D, rng.random((40, 40)), 6)
    assert p == r and p < 0.5
    labels = np.repeat([0, 1], 20)
    same = (labels[:, None] == labels[None, :]).astype(float)
    p, r = geodesic_precision_recall(labels, sp.csr_matrix(same), 5)
    assert p == 1.0 and r == pytest.approx(5 / 19)


@pytest.mark.parametrize("call, match", [
    (lambda f, X: f.kneighbors(n_neighbors=len(X)), "n_neighbors"),
    (lambda f, X: f.kneighbors(n_neighbors=0), "n_neighbors"),
    (lambda f, X: f.kneighbors(X[:2], n_neighbors=len(X) + 1), "n_neighbors"),
    (lambda f, X: f.transform(np.full((2, X.shape[1]), np.inf)), r"infinity \(row 0, column 0\)"),
    (lambda f, X: f.transform(X[:, :2]), "features"),
])
def test_bad_queries(call, match):
    X, _, _ = make_manifold("linear", 50, random_state=0)
    f = URerF(n_estimators=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match=match):
        call(f, X)


def test_dense_proximity_that_would_not_fit_is_refused(monkeypatch):
    X, _, _ = make_manifold("linear", 50, random_state=0)
    f = URerF(n_estimators=5, random_state=0).fit(X)
    monkeypatch.setattr(_proximity, "_DENSE_SHARE", 1e-12)
    with pytest.raises(MemoryError, match="dense=False"):
        f.proximity(dense=True)


@pytest.mark.parametrize("params, match", [
    (dict(criterion="gini"), "criterion"),
    (dict(n_neighbors=0), "n_neighbors"),
    (dict(min_samples_split="cube"), "min_samples_split"),
    (dict(data_dims=(2, 5)), "apply to projection \"patch\" only"),
    (dict(projection="patch", data_dims=(3, 3)), "data_dims"),
])
def test_bad_parameters(params, match):
    X, _, _ = make_manifold("linear", 50, n_noise=7, random_state=0)
    with pytest.raises(ValueError, match=match):
        URerF(n_estimators=5, **params).fit(X)


def test_bad_data():
    with pytest.raises(ValueError, match=r"infinity \(row 0, column 1\)"):
        URerF().fit(np.array([[0.0, np.inf], [1.0, 2.0], [3.0, 4.0]]))
    # NaN is a missing value
    URerF(n_estimators=2).fit(np.array([[0.0, np.nan], [1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(ValueError):
        URerF().fit(np.zeros((1, 3)))
    with pytest.raises(TypeError):
        URerF(honest_fraction=0.5)
    with pytest.raises(ValueError, match="geodesic|shape"):
        geodesic_precision_recall(np.zeros((5, 4)), np.zeros((5, 5)), 2)
    with pytest.raises(ValueError, match="k must be"):
        geodesic_precision_recall(np.zeros((5, 5)), np.zeros((5, 5)), 5)


def test_guided_projections_grow_whole_trees():
    # an unsupervised cut is exact (never placed between histogram bins), so
    # guided projections split nodes as the single features do
    rng = np.random.RandomState(5)
    X = rng.standard_normal((90, 16))
    plain = sporf.URerF(n_estimators=3, random_state=7).fit(X)
    guided = sporf.URerF(n_estimators=3, random_state=7, guided_features=2).fit(X)
    assert guided._forest.info().n_nodes >= 0.7 * plain._forest.info().n_nodes


def test_proximity_on_fewer_rows_than_neighbours_keeps_the_rows_there_are():
    # the graph holds every other row (so it equals the dense matrix);
    # kneighbors' fixed width still refuses
    X = np.random.default_rng(0).normal(size=(60, 4))
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, X[:, 0] > 0)
    S = clf.proximity(X[:5])
    assert S.shape == (5, 5) and np.allclose(S.toarray(), clf.proximity(X[:5], dense=True))
    S = clf.proximity(X[:5], reference=X[:3], n_neighbors=10)
    assert np.allclose(S.toarray(), clf.proximity(X[:5], reference=X[:3], dense=True))
    f = sporf.URerF(n_estimators=5, n_neighbors=10, random_state=0).fit(X[:6])
    assert np.allclose(f.proximity().toarray(), f.proximity(dense=True))
    with pytest.raises(ValueError, match="n_neighbors = 10, but there are only 5 reference rows"):
        f.kneighbors()


def test_sparse_transform_and_its_dense_recipe():
    # transform is sparse; scikit-learn's pandas output refuses sparse
    # matrices, and the docstring's recipe densifies in a Pipeline
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X = np.random.default_rng(0).normal(size=(120, 5))
    forest = URerF(n_estimators=10, n_neighbors=7, random_state=0).fit(X)
    S = forest.transform(X[:4])
    assert sp.issparse(S) and S.getnnz(axis=1).tolist() == [7, 7, 7, 7]
    assert "set_output" in URerF.transform.__doc__ and "toarray" in URerF.transform.__doc__
    with pytest.raises(ValueError, match="sparse"):
        URerF(n_estimators=5, random_state=0).set_output(transform="pandas").fit(X).transform(X[:2])
    pipe = make_pipeline(URerF(n_estimators=10, n_neighbors=7, random_state=0),
                         FunctionTransformer(lambda S: S.toarray(), accept_sparse=True))
    np.testing.assert_array_equal(pipe.fit(X).transform(X[:4]), S.toarray())
