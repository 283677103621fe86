"""Growing one forest on a Dask cluster.

Trees are seeded by their index in the forest (tree t draws from the stream
(random_state, t)), so a forest splits into shards of consecutive trees that
any machine can grow (``first_tree``, ``n_estimators``), and the shards merge
into exactly the forest one machine would have grown. :func:`fit` does this
on a ``dask.distributed`` cluster: the data go to the workers once, shards
are grown as Dask tasks (a worker runs as many at once as it has threads),
and the shards are merged on the client.

Dask is optional: ``pip install sporf[dask]``.
"""
from concurrent.futures import CancelledError

import numpy as np
from sklearn.utils import check_array, check_consistent_length

from . import _params
from ._native import NativeForest, Progress, merge
from ._exclusive import fitting
from ._forest import _BaseForest
from ._urerf import URerF

__all__ = ["fit"]


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - exercised only without Dask
        raise ImportError("sporf.distributed needs Dask's distributed scheduler: "
                          "pip install 'sporf[dask]' (or dask[distributed])") from exc
    return distributed


def _grow_shard(cls, params, first, count, X, y, sample_weight):
    """Runs on a worker: trees first .. first+count-1; returns the model bytes."""
    est = cls(**dict(params, first_tree=first, n_estimators=count))
    if y is None:
        est.fit(X)
    else:
        est.fit(X, y, sample_weight=sample_weight)
    return est.to_bytes()


def _shard_ranges(first, n_trees, n_shards):
    """n_shards runs of consecutive tree indices covering first .. first+n_trees-1."""
    bounds = np.linspace(0, n_trees, n_shards + 1).round().astype(np.int64)
    return [(first + int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def fit(estimator, X, y=None, *, sample_weight=None, client=None, n_shards=None, progress=None):
    """Fit a sporf estimator on a Dask cluster; the forest is the one
    ``estimator.fit`` would grow on one machine, byte for byte.

    Parameters
    ----------
    estimator : SPORFClassifier, SPORFRegressor, MORFClassifier, MORFRegressor or URerF
        Fitted in place, as ``estimator.fit(X, y)`` would be. Its
        ``n_estimators`` trees (from ``first_tree``) are split into shards.
        ``n_jobs`` is not used: each shard is one Dask task on one thread,
        and a worker grows as many shards at once as it has threads.
    X : array-like of shape (n_samples, n_features)
        Training data (images or grids for MORF, as ``fit`` takes them).
        Sent to every worker once.
    y : array-like of shape (n_samples,) or None
        Labels or responses; None for :class:`URerF`.
    sample_weight : array-like of shape (n_samples,) or None
        As in ``fit`` (not for URerF).
    client : distributed.Client or None
        The cluster; None uses the current default client.
    n_shards : int or None
        Number of shards; default four per worker thread (at most one per
        tree), so the cluster stays balanced and progress moves steadily.
        The forest does not depend on it.
    progress : callable or None
        Called as ``progress(trees_done, n_estimators)`` on the client each
        time a shard finishes. With ``estimator.verbose > 0`` progress is
        also printed to stderr.

    Returns
    -------
    estimator
        The fitted estimator. With ``oob_score=True`` the out-of-bag results
        are computed on the client for the whole forest, from the trees'
        regenerated bootstrap draws: they equal a single machine's.

    Raises
    ------
    RuntimeError
        If the cluster loses the work of a shard for good (Dask retries a
        task whose worker died, up to ``distributed.scheduler.allowed-failures``
        times): no partial forest is ever returned.
    ValueError, TypeError
        Bad parameters or data, as ``fit`` raises them.

    Examples
    --------
    A cluster in this process (threads); a real one is ``Client("host:8786")``.

    >>> from distributed import Client, LocalCluster
    >>> import sporf, sporf.distributed
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(400, n_features=6, random_state=0)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                   dashboard_address=":0") as cluster, Client(cluster) as client:
    ...     clf = sporf.distributed.fit(sporf.SPORFClassifier(n_estimators=40, random_state=0),
    ...                                 X, y, client=client)
    >>> clf.to_bytes() == sporf.SPORFClassifier(n_estimators=40, random_state=0).fit(X, y).to_bytes()
    True
    """

    distributed = _import_distributed()
    if not isinstance(estimator, _BaseForest):
        raise TypeError("sporf.distributed.fit takes a sporf estimator, got %s" % type(estimator).__name__)
    unsupervised = isinstance(estimator, URerF)
    if unsupervised and (y is not None or sample_weight is not None):
        raise TypeError("URerF is unsupervised: pass X only (no y or sample_weight)")
    if not unsupervised and y is None:
        raise ValueError("%s needs y" % type(estimator).__name__)
    if getattr(estimator, "tune_oob", False):
        # each shard would tune on its own trees and choose differently
        raise ValueError("tune_oob is not available with sporf.distributed.fit: tune locally (on a sample if need "
                         "be), then fit the cluster forest with the estimator's best_params_")
    _check_data(estimator, X, y, sample_weight, unsupervised)
    n_trees, first = estimator.n_estimators, estimator.first_tree
    if not _params._is_int(n_trees) or n_trees < 1:
        raise _params.bad("n_estimators", _params.PARAMS["n_estimators"]["expect"], n_trees)
    if not _params._is_int(first) or first < 0:
        raise _params.bad("first_tree", _params.PARAMS["first_tree"]["expect"], first)
    if client is None:
        client = distributed.get_client()
    # client.nthreads() asks the scheduler; scheduler_info() returns a cache
    # that the client's periodic refresh can replace by one without workers.
    threads = sum(client.nthreads().values())
    if threads < 1:
        raise RuntimeError("the Dask cluster has no workers")
    if n_shards is None:
        n_shards = 4 * threads
    if not _params._is_int(n_shards) or n_shards < 1:
        raise ValueError("n_shards must be an int >= 1, got %r" % (n_shards,))
    ranges = _shard_ranges(int(first), int(n_trees), min(int(n_shards), int(n_trees)))

    # One seed for every shard: a random_state that is not an int is drawn
    # from here, once, as a local fit would.
    params = estimator.get_params(deep=False)
    params.update(random_state=_params.resolve_seed(estimator.random_state), n_jobs=1, verbose=0)
    if "oob_score" in params:
        params["oob_score"] = False  # computed below, for the whole forest
    with fitting(estimator):
        return _fit_on_cluster(distributed, client, estimator, params, ranges, X, y, sample_weight, unsupervised,
                               n_trees, progress)


def _check_data(estimator, X, y, sample_weight, unsupervised):
    """Refuse bad data on the client, before anything reaches the cluster:
    otherwise every worker raises, and prints its traceback, for an error
    the caller could have had at once. The shards' own fit checks the rest."""
    Xf = check_array(estimator._flatten_input(X, fitting=True), dtype=np.float64, ensure_all_finite=False,
                     ensure_min_samples=2 if unsupervised else 1, input_name="X", accept_sparse=("csr", "csc"))
    if hasattr(Xf, "tocoo"):  # sparse: only the stored values can be infinite
        coo = Xf.tocoo()
        bad = np.flatnonzero(np.isinf(coo.data))
        inf = np.column_stack([coo.row[bad], coo.col[bad]])
        inf = inf[np.lexsort((inf[:, 1], inf[:, 0]))] if len(inf) else inf
    else:
        inf = np.argwhere(np.isinf(Xf))
    if len(inf):
        raise ValueError("X contains infinity (row %d, column %d); missing values are NaN" % tuple(inf[0]))
    check_consistent_length(*[a for a in (Xf, y, sample_weight) if a is not None])


def _fit_on_cluster(distributed, client, estimator, params, ranges, X, y, sample_weight, unsupervised, n_trees,
                    progress):
    cls = type(estimator)
    data = [X] + ([] if unsupervised else [y]) + ([sample_weight] if sample_weight is not None else [])
    printer = Progress(verbose=estimator.verbose, what="trees")
    shards, done = {}, 0
    pending = dict(ranges)  # first tree -> count, the shards still to grow
    rescatters = 3
    while pending:
        # Scattered data cannot be recomputed: when the workers holding it
        # die, Dask forgets the shards that need it (CancelledError). Then
        # scatter again and grow the missing shards, a few times at most.
        scattered = client.scatter(data, broadcast=True, hash=False)  # keys of our own, released below
        X_f = scattered[0]
        y_f = None if unsupervised else scattered[1]
        sw_f = scattered[2] if sample_weight is not None else None
        futures = {client.submit(_grow_shard, cls, params, a, m, X_f, y_f, sw_f, pure=False): (a, m)
                   for a, m in pending.items()}
        lost = None
        try:
            for future in distributed.as_completed(list(futures)):
                a, m = futures[future]
                try:
                    shards[a] = NativeForest.from_bytes(future.result())
                except (ValueError, TypeError, MemoryError):
                    raise  # the estimator's own complaint about parameters or data
                except CancelledError as exc:
                    # Keep collecting: a shard that failed for another reason
                    # (a worker died under it too often) still ends the fit.
                    lost = exc, a, m
                    continue
                except Exception as exc:
                    raise RuntimeError("sporf.distributed.fit: the cluster failed to grow trees %d-%d (%s: %s); "
                                       "no forest was returned" % (a, a + m - 1, type(exc).__name__, exc)) from exc
                del pending[a]
                done += m
                printer.update(done, n_trees)
                if progress is not None:
                    progress(done, n_trees)
        finally:
            for future in futures:
                future.cancel()
            client.cancel(scattered)
        if lost is not None and pending:
            exc, a, m = lost
            if rescatters == 0:
                raise RuntimeError("sporf.distributed.fit: the cluster lost the data of trees %d-%d (%s: %s); "
                                   "no forest was returned" % (a, a + m - 1, type(exc).__name__, exc)) from exc
            rescatters -= 1
    if sorted(shards) != [a for a, _ in ranges]:  # never merge a partial forest
        raise RuntimeError("sporf.distributed.fit: shards are missing; no forest was returned")
    fitted = cls._from_native(merge([shards[a] for a, _ in ranges]))

    # The estimator takes the merged forest's fitted state, as fit would set it.
    for name in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]:
        delattr(estimator, name)
    for name, value in vars(fitted).items():
        if name == "_forest" or (name.endswith("_") and not name.startswith("__")):
            setattr(estimator, name, value)
    if unsupervised or getattr(estimator, "oob_score", False):
        Xv = estimator._check_X(X)
        if unsupervised:
            estimator._fit_X = np.ascontiguousarray(Xv)
        else:
            n_out = estimator.n_classes_ if hasattr(estimator, "classes_") else 1
            estimator._set_oob(estimator._oob_from_forest(Xv, n_out), np.asarray(y))
    return estimator
