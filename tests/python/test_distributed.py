"""sporf.distributed.fit on a LocalCluster of 2 worker processes: the forest
is the single-machine fit byte for byte for every estimator kind (out-of-bag
results included), a worker killed mid-fit never yields a partial forest.
sporf's forests take a fixed leaf size here; the default "auto" (chosen once
for the whole forest from the shards' out-of-bag sums) has its own tests at
the end."""
import os
import signal
import time

import numpy as np
import pytest
from sklearn.base import clone

import sporf
from sporf.datasets import make_impulse, make_trunk

if os.environ.get("CI"):
    import distributed  # CI installs Dask: a missing one must fail, not skip
else:
    distributed = pytest.importorskip("distributed")
import sporf.distributed as sd  # noqa: E402


def _cluster(**config):
    import dask

    with dask.config.set(config):
        return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                        dashboard_address=":0", silence_logs=50)


@pytest.fixture(scope="module", autouse=True)
def _python_subprocesses_need_their_own_libraries(clean_subprocess_env):
    yield


@pytest.fixture(scope="module")
def client():
    cluster = _cluster()
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _local(est, X, y):
    est = clone(est)
    return est.fit(X) if y is None else est.fit(X, y)


def _cases():
    X, y = make_trunk(400, n_features=8, random_state=0)
    Xi, yi = make_impulse(150, n_steps=30, random_state=1)
    return [
        (sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=20, oob_score=True, random_state=3), X, y),
        (sporf.SPORFRegressor(min_samples_leaf=3, n_estimators=20, oob_score=True, max_samples=0.8, random_state=3), X,
         X[:, 0] + X[:, 1] ** 2),
        (sporf.MORFClassifier(n_estimators=12, max_patch_dims=6, random_state=3), Xi, yi),
        (sporf.MORFRegressor(n_estimators=12, max_patch_dims=6, random_state=3), Xi, yi.astype(float)),
        (sporf.URerF(n_estimators=12, random_state=3), X, None),
        (sporf.SPORFIsolation(n_estimators=12, contamination=0.1, random_state=3), X, None),
        (sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=14, projection="axis", honest_fraction=0.3, random_state=9,
                               first_tree=100), X, y),
        (sporf.SPORFSurvival(n_estimators=16, oob_score=True, random_state=3), X,
         np.array(list(zip(y == 1, 1.0 + np.abs(X[:, 0]))), dtype=[("event", "?"), ("time", "<f8")])),
        (sporf.SPORFRegressor(min_samples_leaf=3, n_estimators=12, quantiles=True, random_state=4), X,
         X[:, 0] + X[:, 1] ** 2),
    ]


@pytest.mark.parametrize("est, X, y", _cases(), ids=lambda v: type(v).__name__ if hasattr(v, "fit") else "")
def test_dask_fit_is_the_single_machine_fit(client, est, X, y):
    local = _local(est, X, y)
    seen = []
    got = sd.fit(est, X, y, client=client, progress=lambda done, total: seen.append((done, total)))
    assert got is est
    assert est.to_bytes() == local.to_bytes()
    assert seen[-1] == (est.n_estimators, est.n_estimators) and len(seen) > 1
    if getattr(est, "oob_score", False):
        name = "oob_decision_function_" if hasattr(est, "classes_") else "oob_prediction_"  # survival: the risks
        np.testing.assert_array_equal(getattr(est, name), getattr(local, name))
        assert est.oob_score_ == local.oob_score_
    for name in ("interval_scores_", "interval_weights_", "interval_calibration_"):  # quantiles, survival
        assert hasattr(est, name) == hasattr(local, name)
        if hasattr(local, name):
            np.testing.assert_array_equal(getattr(est, name), getattr(local, name))
    if isinstance(est, sporf.SPORFIsolation):  # the whole forest's outlier threshold
        assert est.offset_ == local.offset_
        np.testing.assert_array_equal(est.decision_function(X[:50]), local.decision_function(X[:50]))
    elif y is None:
        np.testing.assert_array_equal(est.kneighbors(n_neighbors=4)[1], local.kneighbors(n_neighbors=4)[1])
    else:
        np.testing.assert_array_equal(est.predict(X[:50]), local.predict(X[:50]))


def test_random_state_none_draws_one_seed_for_all_shards(client):
    X, y = make_trunk(200, n_features=6, random_state=0)
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=8)
    sd.fit(est, X, y, client=client, n_shards=4)
    seed = est._forest.params().random_state
    again = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=8, random_state=int(seed)).fit(X, y)
    assert est.to_bytes() == again.to_bytes()


def test_sample_weight_and_bad_input(client):
    X, y = make_trunk(200, n_features=6, random_state=0)
    w = np.linspace(0.1, 2.0, len(y))
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=6, random_state=1)
    sd.fit(est, X, y, sample_weight=w, client=client)
    assert est.to_bytes() == sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=6, random_state=1).fit(
        X, y, sample_weight=w).to_bytes()
    with pytest.raises(ValueError, match="max_depth"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4, max_depth=-2), X, y, client=client)
    with pytest.raises(ValueError, match="tune_oob is not available with sporf.distributed.fit"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4, tune_oob=True), X, y, client=client)
    # missing values shard like the rest; infinity is refused
    Xn = X.copy()
    Xn[3, 2] = np.nan
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4, random_state=2)
    sd.fit(est, Xn, y, client=client)
    assert est.to_bytes() == sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4, random_state=2).fit(Xn, y).to_bytes()
    with pytest.raises(ValueError, match="infinity"):
        Xn[3, 2] = np.inf
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4), Xn, y, client=client)
    with pytest.raises(ValueError, match="needs y"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3), X, client=client)
    with pytest.raises(TypeError, match="unsupervised"):
        sd.fit(sporf.URerF(), X, y, client=client)
    with pytest.raises(TypeError, match="sporf estimator"):
        sd.fit(object(), X, y, client=client)
    with pytest.raises(ValueError, match="n_shards"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=4), X, y, client=client, n_shards=0)


def _worker_pids(client):
    return set(client.run(os.getpid).values())


def _kill_workers_on_first_shard(client, which):
    """A progress callback that kills worker processes once the first shard is
    in (the others are running or queued then)."""
    state = {"killed": set()}

    def progress(done, total):
        if not state["killed"]:
            pids = sorted(_worker_pids(client))
            for pid in pids[:which]:
                os.kill(pid, signal.SIGKILL)
            state["killed"] = set(pids[:which])

    return progress, state


def test_a_worker_lost_mid_fit_is_retried_and_the_forest_is_whole():
    X, y = make_trunk(3000, n_features=10, random_state=0)
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=32, random_state=4)
    local = _local(est, X, y)
    with _cluster() as cluster, distributed.Client(cluster) as c:
        progress, state = _kill_workers_on_first_shard(c, which=1)
        sd.fit(est, X, y, client=c, n_shards=16, progress=progress)
        assert state["killed"] and not (state["killed"] & _worker_pids(c))  # a worker did die
    assert est.to_bytes() == local.to_bytes()


def test_work_lost_for_good_fails_clearly():
    X, y = make_trunk(3000, n_features=10, random_state=0)
    est = sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=32, random_state=4)
    with _cluster(**{"distributed.scheduler.allowed-failures": 0}) as cluster, distributed.Client(cluster) as c:
        progress, _ = _kill_workers_on_first_shard(c, which=2)
        with pytest.raises(RuntimeError, match="no forest was returned"):
            sd.fit(est, X, y, client=c, n_shards=16, progress=progress)
    assert not hasattr(est, "_forest")  # nothing partial was attached


@pytest.mark.parametrize("regression", [False, True])
def test_multi_output_y_fits_on_the_cluster_as_locally(client, regression):
    X, y = make_trunk(300, n_features=6, random_state=2)
    Y = np.column_stack([X[:, 0] + X[:, 1], 3 * X[:, 2]]) if regression else np.column_stack([y, X[:, 3] > 0])
    est = (sporf.SPORFRegressor if regression else sporf.SPORFClassifier)(n_estimators=9, random_state=3,
                                                                           oob_score=True)
    local = clone(est).fit(X, Y)
    fitted = sd.fit(clone(est), X, Y, client=client)
    assert fitted.to_bytes() == local.to_bytes() and fitted.n_outputs_ == 2
    assert fitted.oob_score_ == local.oob_score_


def test_multi_output_y_from_partitions_is_refused(client):
    da = pytest.importorskip("dask.array")
    X, y = make_trunk(200, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="one output"):
        sd.fit(sporf.SPORFClassifier(min_samples_leaf=3, n_estimators=2), da.from_array(X, chunks=100),
               da.from_array(np.column_stack([y, y]), chunks=(100, 2)), client=client)


def _where_shards_disagree():
    """2,000 rows, y = sign(x0 x1), 40 trees of seed 5: the whole forest
    chooses leaves of one row, and its first 5 or 10 trees on their own
    would choose other sizes (checked below, so the tests can fail)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("splitter", ["best", "auto"])
@pytest.mark.parametrize("noisy", [False, True], ids=["clean", "noisy"])
def test_a_leaf_size_chosen_out_of_bag_is_the_local_fit_s(client, noisy, splitter):
    # min_samples_leaf="auto": every shard task returns its trees' out-of-bag
    # sums for every row, the merge adds them and chooses for the whole
    # forest: the local fit's bytes, whatever the shards would choose alone
    X, y = _where_shards_disagree()
    if noisy:  # labels flipped at random: larger leaves win
        y = np.where(np.random.default_rng(1).random(len(y)) < 0.3, 1 - y, y)
    kw = dict(n_estimators=40, oob_score=True, random_state=5, splitter=splitter)
    local = sporf.SPORFClassifier(**kw).fit(X, y)
    if splitter == "auto":  # and the kinds of trees kept, chosen from every task's sums
        est = sd.fit(sporf.SPORFClassifier(**kw), X, y, client=client, n_shards=3)
        assert est.to_bytes() == local.to_bytes() and est.splitter_ == local.splitter_
        assert est.splitter_scores_ == local.splitter_scores_ and est.oob_score_ == local.oob_score_
        return
    if noisy:
        assert local.min_samples_leaf_ > 1
    else:  # a shard of 5 or 10 trees alone would choose otherwise
        assert {sporf.SPORFClassifier(n_estimators=m, random_state=5).fit(X, y).min_samples_leaf_
                for m in (5, 10)} - {local.min_samples_leaf_}
    for n_shards in (2, 8):
        est = sd.fit(sporf.SPORFClassifier(**kw), X, y, client=client, n_shards=n_shards)
        assert est.to_bytes() == local.to_bytes()
        assert est.min_samples_leaf_ == local.min_samples_leaf_ and est.leaf_scores_ == local.leaf_scores_
        assert est.oob_score_ == local.oob_score_


def test_the_readme_cluster_example_runs(client):
    # README, "Training across machines": sporf.distributed.fit(clf, X, y, client=client) == clf.fit(X, y)
    X, y = _where_shards_disagree()
    clf = sporf.SPORFClassifier(n_estimators=40, oob_score=True, random_state=0)
    sd.fit(clf, X, y, client=client)
    assert clf.to_bytes() == sporf.SPORFClassifier(n_estimators=40, oob_score=True, random_state=0).fit(X, y).to_bytes()


def test_a_cluster_fit_of_a_shard_that_would_choose_is_refused(client):
    X, y = _where_shards_disagree()
    with pytest.raises(ValueError, match="grows a whole forest"):
        sd.fit(sporf.SPORFClassifier(n_estimators=4, first_tree=8, random_state=0), X, y, client=client)
