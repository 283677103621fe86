"""Prediction on Dask collections: a Dask array or DataFrame gives a lazy
Dask array, one task per row partition, with the answers of local
prediction; the model enters the graph once; a bad partition is named."""
import numpy as np
import pytest

import sporf
from sporf.datasets import make_trunk

da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def trunk():
    X, y = make_trunk(600, n_features=6, random_state=0)
    return X, y, sporf.SPORFClassifier(n_estimators=15, random_state=0).fit(X, y)


def test_dask_arrays_predict_lazily_as_numpy_does(trunk):
    X, y, clf = trunk
    # uneven row chunks, and columns in two chunks (rows are made whole)
    dX = da.from_array(X, chunks=((100, 250, 7, 243), (4, 2)))
    lazy = clf.predict_proba(dX)
    assert isinstance(lazy, da.Array) and lazy.shape == (600, 2)
    np.testing.assert_array_equal(lazy.compute(), clf.predict_proba(X))
    np.testing.assert_array_equal(clf.predict(dX).compute(), clf.predict(X))
    np.testing.assert_array_equal(clf.apply(dX).compute(), clf.apply(X))
    # the model is one key of the graph, however many partitions
    graph = dict(lazy.__dask_graph__())
    assert sum(str(k).startswith("SPORFClassifier") for k in graph) == 1


def test_quantiles_and_regression_on_dask(trunk):
    X, _, _ = trunk
    reg = sporf.SPORFRegressor(n_estimators=10, quantiles=True, random_state=0).fit(X, X[:, 0])
    dX = da.from_array(X, chunks=(128, 6))
    np.testing.assert_array_equal(reg.predict(dX).compute(), reg.predict(X))
    q = reg.predict(dX, quantiles=[0.1, 0.9])
    assert q.shape == (600, 2)
    np.testing.assert_array_equal(q.compute(), reg.predict(X, quantiles=[0.1, 0.9]))
    iv = reg.predict_interval(dX, coverage=0.8)  # calibrated intervals, lazily too
    assert iv.shape == (X.shape[0], 2)
    np.testing.assert_array_equal(iv.compute(), reg.predict_interval(X, coverage=0.8))
    with pytest.raises(ValueError, match="oob=True"):
        reg.predict(dX, quantiles=[0.5], oob=True)


def test_survival_intervals_on_dask(trunk):
    X, y, _ = trunk
    surv = np.array(list(zip(y == 1, 1.0 + np.abs(X[:, 0]))), dtype=[("event", "?"), ("time", "<f8")])
    est = sporf.SPORFSurvival(n_estimators=10, random_state=0).fit(X, surv)
    dX = da.from_array(X, chunks=(128, 6))
    iv = est.predict_interval(dX, coverage=0.8)
    assert isinstance(iv, da.Array) and iv.shape == (600, 2)
    np.testing.assert_array_equal(iv.compute(), est.predict_interval(X, coverage=0.8))


def test_dask_dataframes_keep_names_and_categories(trunk):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y, _ = trunk
    df = pd.DataFrame(X, columns=list("abcdef"))
    df["g"] = pd.Categorical(np.where(X[:, 0] > 0, "p", "q"))
    clf = sporf.SPORFClassifier(n_estimators=10, random_state=0).fit(df, y)
    ddf = dd.from_pandas(df[list("gfedcba")], npartitions=3)  # columns matched by name
    np.testing.assert_array_equal(clf.predict_proba(ddf).compute(), clf.predict_proba(df))


def test_a_bad_partition_is_named(trunk):
    X, _, clf = trunk
    bad = X.copy()
    bad[300, 2] = np.inf
    with pytest.raises(ValueError, match=r"partition 2 of X: .*infinity \(row 26, column 2\)"):
        clf.predict(da.from_array(bad, chunks=(137, 6))).compute()
    with pytest.raises(ValueError, match="2-D"):
        clf.predict(da.from_array(X[:, 0], chunks=100))


def test_on_a_cluster(trunk):
    distributed = pytest.importorskip("distributed")
    X, _, clf = trunk
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as c, \
            distributed.Client(c) as client:
        got = client.compute(clf.predict_proba(da.from_array(X, chunks=(150, 6)))).result()
    np.testing.assert_array_equal(got, clf.predict_proba(X))


def test_proximity_of_a_dask_collection_to_rows_in_memory(trunk):
    X, _, clf = trunk
    dX = da.from_array(X[:200], chunks=70)
    reference = X[200:500]
    dense = clf.proximity(dX, reference, dense=True)
    assert isinstance(dense, da.Array) and dense.shape == (200, 300)
    np.testing.assert_array_equal(dense.compute(), clf.proximity(X[:200], reference, dense=True))
    sparse = clf.proximity(dX, reference, n_neighbors=5).compute()
    expected = clf.proximity(X[:200], reference, n_neighbors=5)
    assert (sparse != expected).nnz == 0 and sparse.shape == expected.shape
    with pytest.raises(ValueError, match="reference"):
        clf.proximity(dX)
    # URerF compares with its training rows
    urf = sporf.URerF(n_estimators=10, random_state=0).fit(X[:300])
    np.testing.assert_array_equal(urf.proximity(dX, dense=True).compute(), urf.proximity(X[:200], dense=True))
