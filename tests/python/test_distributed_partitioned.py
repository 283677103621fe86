"""sporf.distributed.fit on X partitioned over the cluster (a Dask array or
DataFrame): each tree grows from the rows it draws, gathered from the
partitions, and the forest is the local fit of the same rows byte for byte,
however X is partitioned; bad partitions are named and leave the estimator
unfitted. sporf's forests take a fixed leaf size here; "auto" (each
partition's rows' out-of-bag sums, the choice on the client) has its own
tests."""
import os

import numpy as np
import pytest

import sporf
from sporf.datasets import make_trunk

if os.environ.get("CI"):
    import distributed  # CI installs Dask: a missing one must fail, not skip
else:
    distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

import sporf.distributed as sd  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _python_subprocesses_need_their_own_libraries(clean_subprocess_env):
    yield


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    X, y = make_trunk(1200, n_features=8, random_state=0)
    X[::13, 2] = np.nan  # missing values: the means come from every partition
    return X, y


CHUNKINGS = [(1200, 8), (400, 8), ((150, 700, 1, 349), (5, 3))]


@pytest.mark.parametrize("chunks", CHUNKINGS, ids=["one", "three", "uneven"])
@pytest.mark.parametrize("kind", ["classifier", "regressor", "morf", "subsample", "mixed"])
def test_the_forest_is_the_local_fit_whatever_the_partitions(client, data, chunks, kind):
    X, y = data
    if kind == "mixed":  # bootstrap draws for the even trees, subsamples for the odd ones
        est, target = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=6, max_samples=0.4, splitter="mixed",
                                            random_state=5), y
    elif kind == "classifier":
        est, target = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=6, max_samples=0.4, random_state=5), y
    elif kind == "subsample":  # rows drawn without replacement: the same rows gathered
        est, target = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=6, bootstrap=False, max_samples=0.4, splitter="random",
                                            random_state=5), y
    elif kind == "regressor":
        est, target = sporf.SPORFRegressor(min_samples_leaf=3, n_estimators=6, max_samples=0.4, random_state=5), np.nan_to_num(X[:, 2])
    else:
        est, target = sporf.MORFClassifier(n_estimators=6, data_dims=(2, 4), max_samples=0.4, random_state=5), y
    local = sporf.load(est.fit(X, target).to_bytes())
    est_d = type(est)(**est.get_params())
    assert sd.fit(est_d, da.from_array(X, chunks=chunks), target, client=client) is est_d
    assert est_d.to_bytes() == local.to_bytes()
    np.testing.assert_array_equal(est_d.predict(X), local.predict(X))


def test_a_dataframe_weights_and_class_weights(client, data):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = data
    labels = np.where(y == 1, "yes", "no")
    w = 0.5 + (np.arange(len(y)) % 3)
    frame = pd.DataFrame(X, columns=["c%d" % j for j in range(X.shape[1])])
    kw = dict(n_estimators=5, max_samples=500, class_weight={"yes": 2.0, "no": 1.0}, random_state=2,
              min_samples_leaf=3)
    local = sporf.SPORFClassifier(**kw).fit(frame, labels, sample_weight=w)
    est = sd.fit(sporf.SPORFClassifier(**kw), dd.from_pandas(frame, npartitions=4), labels, sample_weight=w,
                 client=client)
    assert est.to_bytes() == local.to_bytes()
    assert list(est.feature_names_in_) == list(frame.columns) and list(est.classes_) == ["no", "yes"]


def test_bad_partitions_are_named_and_leave_the_estimator_unfitted(client, data):
    X, y = data
    bad = X.copy()
    bad[700, 4] = np.inf
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=3, random_state=0)
    with pytest.raises(ValueError, match=r"partition 1 of X: infinity at row 700, column 4"):
        sd.fit(est, da.from_array(bad, chunks=(600, 8)), y, client=client)
    assert not hasattr(est, "_forest")
    yr = X[:, 0].copy()
    yr[1000] = np.nan
    with pytest.raises(ValueError, match=r"partition 2 of y: NaN or infinity at row 1000"):
        sd.fit(sporf.SPORFRegressor(min_samples_leaf=3, n_estimators=3, random_state=0), da.from_array(np.nan_to_num(X), chunks=400), yr,
               client=client)
    with pytest.raises(ValueError, match="one value per row"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=2), da.from_array(X, chunks=400), y[:-1], client=client)
    for kw, match in [(dict(tune_oob=True), "tune_oob"), (dict(bootstrap=False), "bootstrap=True, or max_samples"),
                      (dict(class_weight="balanced"), "balanced")]:
        with pytest.raises(ValueError, match=match):
            sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=2, **kw), da.from_array(X, chunks=400), y, client=client)
    with pytest.raises(TypeError, match="URerF is unsupervised"):
        sd.fit(sporf.URerF(n_estimators=2), da.from_array(X, chunks=400), y, client=client)
    surv = sporf.SPORFSurvival(n_estimators=2)
    with pytest.raises(ValueError, match=r"time\[5\] = -1.0: survival times must be finite numbers >= 0"):
        sd.fit(surv, da.from_array(X, chunks=400), (y, np.where(np.arange(len(y)) == 5, -1.0, 1.0)), client=client)
    with pytest.raises(ValueError, match="y has 1199 rows but X has 1200"):
        sd.fit(surv, da.from_array(X, chunks=400), (y[1:], 1.0 + np.abs(X[1:, 0])), client=client)
    assert not hasattr(surv, "_forest")
    urf = sporf.URerF(n_estimators=2, bootstrap=False)
    with pytest.raises(ValueError, match="bootstrap=True"):
        sd.fit(urf, da.from_array(X, chunks=400), client=client)
    assert not hasattr(urf, "_forest")


@pytest.mark.parametrize("chunks", CHUNKINGS + ["dataframe"], ids=["one", "three", "uneven", "dataframe"])
def test_urerf_from_partitions_is_the_local_forest_and_its_neighbours(client, data, chunks):
    # the trees are the local fit's; the training rows stay on the cluster, and
    # neighbour queries against them, partition by partition, give the
    # in-memory answers to the bit
    X, _ = data
    Xq = np.random.default_rng(3).normal(0, 1, (60, 8))
    kw = dict(n_estimators=6, max_samples=0.5, n_neighbors=6, random_state=4)
    local = sporf.URerF(**kw).fit(X)
    if chunks == "dataframe":
        pd = pytest.importorskip("pandas")
        dd = pytest.importorskip("dask.dataframe")
        dX = dd.from_pandas(pd.DataFrame(X, columns=["c%d" % j for j in range(8)]), npartitions=3)
        local = sporf.URerF(**kw).fit(pd.DataFrame(X, columns=["c%d" % j for j in range(8)]))
    else:
        dX = da.from_array(X, chunks=chunks)
    est = sd.fit(sporf.URerF(**kw), dX, client=client)
    assert est.to_bytes() == local.to_bytes()
    for args in [dict(), dict(X=Xq), dict(n_neighbors=40)]:
        got, want = est.kneighbors(**args), local.kneighbors(**args)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert (est.transform(Xq) != local.transform(Xq)).nnz == 0
    assert (est.proximity(da.from_array(Xq, chunks=25)) != local.proximity(Xq)).nnz == 0
    with pytest.raises(ValueError, match="dense proximity matrix would gather"):
        est.proximity(dense=True)


@pytest.mark.parametrize("chunks", CHUNKINGS, ids=["one", "three", "uneven"])
def test_an_isolation_forest_from_partitions_is_the_local_fit_and_scores_lazily(client, data, chunks):
    X = data[0]
    sw = np.random.default_rng(2).uniform(0.5, 2.0, X.shape[0])
    kw = dict(n_estimators=10, max_samples=200, contamination=0.05, random_state=4)
    local = sporf.SPORFIsolation(**kw).fit(X, sample_weight=sw)
    est = sd.fit(sporf.SPORFIsolation(**kw), da.from_array(X, chunks=chunks),
                 sample_weight=da.from_array(sw, chunks=(chunks[0],)), client=client)
    assert est.to_bytes() == local.to_bytes() and est.offset_ == local.offset_
    lazy = est.score_samples(da.from_array(X, chunks=chunks))
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), local.score_samples(X))
    np.testing.assert_array_equal(est.predict(da.from_array(X, chunks=chunks)).compute(), local.predict(X))
    with pytest.raises(TypeError, match="no response"):
        sd.fit(sporf.SPORFIsolation(n_estimators=2), da.from_array(X, chunks=chunks), data[1], client=client)


def test_a_sample_too_large_for_a_worker_is_refused_before_any_work(data):
    X, y = data
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  memory_limit="1MB", silence_logs=50) as cluster, distributed.Client(cluster) as c:
        est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=2, random_state=0)
        with pytest.raises(ValueError, match=r"max_samples"):
            sd.fit(est, da.from_array(np.tile(X, (20, 1)), chunks=4000), np.tile(y, 20), client=c)
        assert not hasattr(est, "_forest")


def test_trees_in_batches_give_the_same_forest(client, data, monkeypatch):
    # a cluster with little memory grows the trees a few at a time (each
    # partition read once per batch): the forest does not change
    X, y = data
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=5, max_samples=0.4, random_state=8)
    local = sporf.load(est.fit(X, y).to_bytes())
    sample = sd._sample_bytes(est._native_params(X.shape[1]), X.shape[0], X.shape[1])
    real = sd._memory
    monkeypatch.setattr(sd, "_memory", lambda c, per_worker=False: real(c, True) if per_worker else 8 * sample)
    again = sd.fit(sporf.SPORFClassifier(**est.get_params()), da.from_array(X, chunks=300), y, client=client)
    assert again.to_bytes() == local.to_bytes()


def test_a_worker_lost_mid_fit_is_survived(data):
    # a worker process killed once the first tree is in: Dask recomputes what
    # it held (the partitions are recomputable), and the forest is whole
    import signal

    X, y = data
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=12, max_samples=0.3, random_state=6)
    local = sporf.load(est.fit(X, y).to_bytes())
    killed = set()

    def progress(done, total):
        if not killed:
            pid = sorted(client.run(os.getpid).values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.add(pid)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        again = sd.fit(sporf.SPORFClassifier(**est.get_params()), da.from_array(X, chunks=200), y, client=client,
                       progress=progress)
        assert killed and not (killed & set(client.run(os.getpid).values()))  # a worker did die
    assert again.to_bytes() == local.to_bytes()


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_out_of_bag_results_are_computed_on_the_workers(client, data, kind):
    X, y = data
    if kind == "classifier":
        est, target = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=20, max_samples=0.5, oob_score=True, random_state=1), y
    else:
        est, target = sporf.SPORFRegressor(min_samples_leaf=3, n_estimators=20, max_samples=0.5, oob_score=True, random_state=1), \
            np.nan_to_num(X[:, 0])
    local = type(est)(**est.get_params()).fit(X, target)
    got = sd.fit(est, da.from_array(X, chunks=(350, 8)), target, client=client)
    assert got.to_bytes() == local.to_bytes()
    assert got.oob_score_ == local.oob_score_
    field = "oob_decision_function_" if kind == "classifier" else "oob_prediction_"
    np.testing.assert_array_equal(getattr(got, field), getattr(local, field))


@pytest.mark.parametrize("kind", ["classifier", "regressor", "mixed", "auto"])
def test_a_leaf_size_chosen_out_of_bag_from_partitions_is_the_local_fit_s(client, data, kind):
    # each partition scores its rows against every tree (its rows' out-of-bag
    # sums at every size) and the client chooses: the local fit's forest
    X, y = data
    target = y if kind != "regressor" else np.nan_to_num(X[:, 0]) + np.random.default_rng(0).normal(size=len(y))
    cls = sporf.SPORFRegressor if kind == "regressor" else sporf.SPORFClassifier
    kw = dict(n_estimators=12, max_samples=0.5, bootstrap=False, oob_score=True, random_state=5)
    if kind in ("mixed", "auto"):  # two kinds of trees: the bootstrap's and random cuts on subsamples
        kw.update(splitter=kind, bootstrap=True)  # ("auto": and the kinds kept chosen with the size)
    local = cls(**kw).fit(X, target)
    for chunks in ((400, 8), ((150, 700, 1, 349), (5, 3))):
        est = sd.fit(cls(**kw), da.from_array(X, chunks=chunks), da.from_array(target, chunks=chunks[0]),
                     client=client)
        assert est.to_bytes() == local.to_bytes()
        assert est.min_samples_leaf_ == local.min_samples_leaf_ and est.leaf_scores_ == local.leaf_scores_
        assert est.oob_score_ == local.oob_score_
    # a Dask DataFrame and Series, partitioned unevenly
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame(X, columns=["f%d" % j for j in range(X.shape[1])]), npartitions=3)
    est = sd.fit(cls(**kw), frame, dd.from_pandas(pd.Series(target), npartitions=3), client=client)
    named = cls(**kw).fit(pd.DataFrame(X, columns=["f%d" % j for j in range(X.shape[1])]), target)
    assert est.to_bytes() == named.to_bytes() and est.min_samples_leaf_ == local.min_samples_leaf_


def _survival_data(X):
    rng = np.random.default_rng(3)
    time = np.round(np.exp(np.nan_to_num(X[:, 0]) + rng.normal(size=len(X))), 1)  # ties, as real times have
    event = rng.random(len(X)) < 0.6
    y = np.zeros(len(X), dtype=[("event", "?"), ("time", "f8")])
    y["event"], y["time"] = event, time
    return y


@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("given", ["structured", "dask pair", "dataframe"])
def test_a_survival_forest_from_partitions_is_the_local_fit(client, data, given, weights):
    # its leaves rank their rows among every row's times and its node risks
    # count every row's event times: those come from the whole response,
    # gathered to the client (small beside X), and the trees are the local fit's
    X, _ = data
    y = _survival_data(X)
    w = 0.5 + (np.arange(len(X)) % 4) if weights else None
    kw = dict(n_estimators=6, max_samples=0.5, oob_score=True, random_state=4)
    local = sporf.SPORFSurvival(**kw).fit(X, y, sample_weight=w)
    if given == "structured":
        target = y
    elif given == "dask pair":
        target = (da.from_array(y["event"], chunks=500), da.from_array(y["time"], chunks=300))
    else:
        pd = pytest.importorskip("pandas")
        dd = pytest.importorskip("dask.dataframe")
        target = dd.from_pandas(pd.DataFrame({"status": y["event"].astype(int), "years": y["time"]}), npartitions=3)
    est = sd.fit(sporf.SPORFSurvival(**kw), da.from_array(X, chunks=((150, 700, 1, 349), (5, 3))), target,
                 sample_weight=None if w is None else da.from_array(w, chunks=400), client=client)
    assert est.to_bytes() == local.to_bytes()
    assert est.oob_score_ == local.oob_score_
    np.testing.assert_array_equal(est.oob_prediction_, local.oob_prediction_)
    np.testing.assert_array_equal(est.unique_times_, local.unique_times_)
    # the interval calibration: scores partition by partition, weights from every row
    np.testing.assert_array_equal(est.interval_scores_, local.interval_scores_)
    np.testing.assert_array_equal(est.interval_weights_, local.interval_weights_)
    np.testing.assert_array_equal(est.predict_interval(X[:50], 0.8), local.predict_interval(X[:50], 0.8))
    np.testing.assert_array_equal(est.predict_survival_function(X[:50], return_array=True),
                                  local.predict_survival_function(X[:50], return_array=True))


def test_a_quantile_forest_from_partitions_is_the_local_fit_with_its_calibration(client, data):
    # the leaves rank their rows among every row's responses; the out-of-bag
    # interval calibration is computed partition by partition on the workers
    X, _ = data
    target = np.round(np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2]), 2)
    kw = dict(n_estimators=8, max_samples=0.5, quantiles=True, oob_score=True, random_state=6)
    est = sd.fit(sporf.SPORFRegressor(**kw), da.from_array(X, chunks=(350, 8)), da.from_array(target, chunks=350),
                 client=client)
    local = sporf.SPORFRegressor(**kw).fit(X, target)  # min_samples_leaf "auto", chosen from the partitions' sums
    assert est.to_bytes() == local.to_bytes() and est.min_samples_leaf_ == local.min_samples_leaf_
    np.testing.assert_array_equal(est.interval_scores_, local.interval_scores_)
    assert est.interval_calibration_ == "out-of-bag"
    np.testing.assert_array_equal(est.predict_interval(X[:40], coverage=0.8),
                                  local.predict_interval(X[:40], coverage=0.8))
    np.testing.assert_array_equal(est.predict(X[:40], quantiles=[0.1, 0.5]),
                                  local.predict(X[:40], quantiles=[0.1, 0.5]))
