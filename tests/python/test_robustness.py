"""Concurrency and resource limits: many threads predicting with one model
agree with sequential calls; a second fit of an estimator that is fitting is
refused; running out of memory is a MemoryError that leaves the process
healthy; requests that cannot fit in memory are refused at once."""
import os
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import sporf
from sporf.datasets import make_manifold, make_trunk


@pytest.fixture(scope="module")
def data():
    return make_trunk(2000, n_features=10, random_state=0)


def test_many_threads_predicting_agree_with_sequential_calls(data):
    X, y = data
    clf = sporf.SPORFClassifier(n_estimators=30, random_state=0, n_jobs=2).fit(X, y)
    slices = [slice(i * 50, i * 50 + 400) for i in range(32)]
    want = [clf.predict_proba(X[s]) for s in slices]
    leaves = [clf.apply(X[s]) for s in slices]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda s: clf.predict_proba(X[s]), slices))
        got_leaves = list(pool.map(lambda s: clf.apply(X[s]), slices))
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(leaves, got_leaves):
        np.testing.assert_array_equal(a, b)


def test_many_threads_querying_one_urerf_agree():
    X, _, _ = make_manifold("helix", 400, random_state=0)
    forest = sporf.URerF(n_estimators=20, random_state=0).fit(X)
    want = forest.kneighbors(X[:100], n_neighbors=5)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: forest.kneighbors(X[:100], n_neighbors=5), range(12)))
    for sim, idx in results:
        np.testing.assert_array_equal(sim, want[0])
        np.testing.assert_array_equal(idx, want[1])


def test_a_second_fit_while_fitting_is_refused_and_predictions_go_on(data):
    X, y = data
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=1).fit(X, y)
    before = clf.predict_proba(X[:200])
    clf.set_params(n_estimators=400, random_state=2)
    started, errors, during = threading.Event(), [], []

    def long_fit():
        started.set()
        clf.fit(X, y)

    t = threading.Thread(target=long_fit)
    t.start()
    started.wait()
    # While it runs: another fit is refused; predictions use the forest fitted
    # before (or, once the fit is done, the new one) and never crash.
    for _ in range(200):
        try:
            clf.fit(X, y)
        except RuntimeError as exc:
            errors.append(str(exc))
            break
    while t.is_alive():
        during.append(clf.predict_proba(X[:200]))
    t.join()
    assert errors and "already running" in errors[0]
    assert all(np.array_equal(p, before) or p.shape == before.shape for p in during)
    again = sporf.SPORFClassifier(n_estimators=400, random_state=2).fit(X, y)
    assert clf.to_bytes() == again.to_bytes()  # the first fit completed untouched
    clf.fit(X[:300], y[:300])  # and the estimator can be fitted again afterwards


def test_fits_of_different_estimators_run_concurrently(data):
    X, y = data
    ests = [sporf.SPORFClassifier(n_estimators=20, random_state=s) for s in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        fitted = list(pool.map(lambda e: e.fit(X, y), ests))
    for s, est in enumerate(fitted):
        assert est.to_bytes() == sporf.SPORFClassifier(n_estimators=20, random_state=s).fit(X, y).to_bytes()


@pytest.mark.parametrize("cls", [sporf.SPORFClassifier, sporf.SPORFRegressor, sporf.URerF])
def test_a_forest_that_cannot_fit_in_memory_is_refused_at_once(data, cls):
    X, y = data
    est = cls(n_estimators=10 ** 8)
    with pytest.raises(MemoryError, match="more than this machine's"):
        est.fit(X) if cls is sporf.URerF else est.fit(X, y if cls is sporf.SPORFClassifier else X[:, 0])
    # A shallow forest of as many trees would fit the same rule's estimate only if small enough:
    with pytest.raises(MemoryError, match="max_depth"):
        cls(n_estimators=10 ** 8, max_depth=20).fit(X) if cls is sporf.URerF else \
            cls(n_estimators=10 ** 8, max_depth=20).fit(X, y if cls is sporf.SPORFClassifier else X[:, 0])


def _run_limited(code, limit_mb):
    """Run code in a fresh interpreter whose address space is capped at limit_mb."""
    prog = textwrap.dedent("""
        import resource, sys
        import numpy as np
        import sporf
        from sporf.datasets import make_trunk
        X, y = make_trunk(20000, n_features=20, random_state=0)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = %d * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    """ % limit_mb) + textwrap.dedent(code)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("LD_PRELOAD", None)  # a sanitizer runtime reserves far more address space than any cap
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics are Linux's")
@pytest.mark.skipif(bool(os.environ.get("LD_PRELOAD")), reason="under a preloaded sanitizer runtime")
def test_out_of_memory_is_a_memory_error_and_the_process_goes_on():
    """Under a cap on the address space, a fit that needs more fails with
    MemoryError (the core's allocation failure, not a crash); the process
    then fits and predicts normally."""
    done = _run_limited("""
        import resource
        used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + 48 * 1024 * 1024, resource.getrlimit(resource.RLIMIT_AS)[1]))
        try:
            sporf.SPORFClassifier(n_estimators=3000, n_jobs=1, random_state=0).fit(X, y)
        except MemoryError as exc:
            print("MemoryError:", exc)
        else:
            sys.exit("the fit did not run out of memory")
        small = sporf.SPORFClassifier(n_estimators=5, n_jobs=1, random_state=0).fit(X[:2000], y[:2000])
        print("after:", small.score(X[:2000], y[:2000]) > 0.9)
    """, limit_mb=4096)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "MemoryError: out of memory" in done.stdout
    assert "after: True" in done.stdout


def test_unaligned_arrays_are_read_safely(data):
    """numpy arrays on buffers that are not 8-byte aligned (as deserialized
    data can be) give the same forest and predictions as aligned ones."""
    X, y = data

    def unaligned(a):
        raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
        view = raw[1:].view(a.dtype).reshape(a.shape)
        view[...] = a
        assert not view.flags.aligned
        return view

    Xu, yu, wu = unaligned(X), unaligned(X[:, 0].copy()), unaligned(np.linspace(0.5, 1.5, len(y)))
    clf = sporf.SPORFClassifier(n_estimators=5, random_state=0)
    assert clf.fit(Xu, y, sample_weight=wu).to_bytes() == \
        sporf.SPORFClassifier(n_estimators=5, random_state=0).fit(X, y, sample_weight=np.array(wu)).to_bytes()
    np.testing.assert_array_equal(clf.predict_proba(Xu), clf.predict_proba(X))
    reg = sporf.SPORFRegressor(n_estimators=5, random_state=0)
    assert reg.fit(X, yu).to_bytes() == sporf.SPORFRegressor(n_estimators=5, random_state=0).fit(
        X, np.array(yu)).to_bytes()


def test_save_errors_name_the_callers_path(tmp_path):
    X = np.random.default_rng(0).random((40, 3))
    clf = sporf.SPORFClassifier(n_estimators=2, random_state=0).fit(X, X[:, 0] > 0.5)
    target = tmp_path / "no-such-folder" / "m.sporf"
    with pytest.raises(FileNotFoundError, match="no-such-folder/m.sporf: its folder .* does not exist") as info:
        clf.save(target)
    assert ".tmp-" not in str(info.value)
