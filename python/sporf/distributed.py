"""Growing one forest on a Dask cluster.

Trees are seeded by their index in the forest (tree t draws from the stream
(random_state, t)), so a forest splits into shards of consecutive trees that
any machine can grow (``first_tree``, ``n_estimators``), and the shards merge
into exactly the forest one machine would have grown. :func:`fit` does this
on a ``dask.distributed`` cluster: in-memory data go to the workers once,
shards are grown as Dask tasks (a worker runs as many at once as it has
threads), and the shards are merged on the client. Data larger than any
worker come as a Dask array or DataFrame: each tree is then grown from just
the rows it draws, gathered from the partitions.

Dask is optional: ``pip install sporf[dask]``.
"""
from concurrent.futures import CancelledError

import numpy as np
from sklearn.utils import check_array, check_consistent_length

from . import _dask, _native, _params
from ._native import NativeForest, Progress, merge
from ._exclusive import fitting
from ._forest import _BaseForest, _warn_missing_oob, chooses_leaf_size
from ._survival import _ForestSurvival, survival_target
from ._isolation import _IsolationForest
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
    """Runs on a worker: trees first .. first+count-1; returns the model
    bytes. With min_samples_leaf="auto" the shard leaves the choice to the
    merge: its bytes hold its trees' nodes and every row's out-of-bag sums."""
    est = cls(**dict(params, first_tree=first, n_estimators=count))
    if y is None and sample_weight is None:
        est.fit(X)
    elif y is None:  # an isolation forest's weights
        est.fit(X, sample_weight=sample_weight)
    else:
        est.fit(X, y, sample_weight=sample_weight)
    return est.to_bytes()


def _shard_ranges(first, n_trees, n_shards):
    """n_shards runs of consecutive tree indices covering first .. first+n_trees-1."""
    bounds = np.linspace(0, n_trees, n_shards + 1).round().astype(np.int64)
    return [(first + int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def fit(estimator, X, y=None, *, sample_weight=None, client=None, n_shards=None, progress=None):
    """Fit a sporf estimator on a Dask cluster; the forest is the one
    ``estimator.fit`` would grow on one machine, byte for byte. With
    ``min_samples_leaf="auto"`` (the default of SPORFClassifier and
    SPORFRegressor) the leaf size is chosen once, for the whole forest, from
    out-of-bag sums that add up: each shard's task returns its trees' sums
    for every row, or, from a Dask collection, each partition scores its rows
    against every tree, and the client chooses and prunes -- the choice a
    local fit makes.

    Parameters
    ----------
    estimator : SPORFClassifier, SPORFRegressor, SPORFSurvival, MORFClassifier, MORFRegressor or URerF
        Fitted in place, as ``estimator.fit(X, y)`` would be. Its
        ``n_estimators`` trees (from ``first_tree``) are split into shards.
        ``n_jobs`` is not used: each shard is one Dask task on one thread,
        and a worker grows as many shards at once as it has threads.
    X : array-like of shape (n_samples, n_features), or a Dask array or DataFrame
        Training data (images or grids for MORF, as ``fit`` takes them).
        An in-memory X is sent to every worker once. A Dask array or
        DataFrame stays where it is, partitioned in any way: each tree's
        sample (the ``max_samples`` rows it draws) is gathered from the
        partitions that hold it and grown on one worker, and the class
        labels, the checks and the missing values' means come from
        reductions over the partitions -- the forest is still the local
        fit's of the same rows, byte for byte. A sample too large for a
        worker is refused before any work, naming the sizes; out-of-bag
        results are computed partition by partition on the workers (the
        score and values; not the error curve ``oob_error_curve_``). A URerF
        keeps the Dask collection as its reference rows: its neighbour queries
        (kneighbors, transform, proximity) run partition by partition and
        merge into the in-memory answer. A quantile or survival forest's
        leaves rank their rows among every row's responses: the response
        and weights of every row are gathered to the client (a few bytes a
        row) and sent to each worker once, and a quantile forest's
        out-of-bag interval calibration (``interval_scores_``) is computed
        partition by partition. Tuning, permutation importance, categorical
        features, balanced class weights and multi-output y need every row
        in one place and are refused.
    y : array-like of shape (n_samples,), survival y, or None
        Labels or responses (a Dask array or Series with a partitioned X);
        for a survival forest a structured array of (event, time), a pair
        (event, time) of arrays or Dask arrays, or a Dask DataFrame of those
        two columns (by position); None for :class:`URerF`.
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
    ...     clf = sporf.distributed.fit(sporf.SPORFClassifier(n_estimators=40, min_samples_leaf=3,
    ...                                                       random_state=0), X, y, client=client)
    >>> local = sporf.SPORFClassifier(n_estimators=40, min_samples_leaf=3, random_state=0).fit(X, y)
    >>> clf.to_bytes() == local.to_bytes()
    True
    """

    distributed = _import_distributed()
    if not isinstance(estimator, _BaseForest):
        raise TypeError("sporf.distributed.fit takes a sporf estimator, got %s" % type(estimator).__name__)
    unsupervised = isinstance(estimator, (URerF, _IsolationForest))  # no response
    if isinstance(estimator, URerF) and (y is not None or sample_weight is not None):
        raise TypeError("URerF is unsupervised: pass X only (no y or sample_weight)")
    if unsupervised and y is not None:
        raise TypeError("%s has no response: pass X (and sample_weight) only" % type(estimator).__name__)
    if not unsupervised and y is None:
        raise ValueError("%s needs y" % type(estimator).__name__)
    if _dask.is_collection(X):
        if client is None:
            client = distributed.get_client()
        with fitting(estimator):
            return _fit_partitioned(client, estimator, X, y, sample_weight, progress)
    if getattr(estimator, "tune_oob", False):
        # each shard would tune on its own trees and choose differently
        raise ValueError("tune_oob is not available with sporf.distributed.fit: tune locally (on a sample if need "
                         "be), then fit the cluster forest with the estimator's best_params_")
    _check_data(estimator, X, y, sample_weight, unsupervised)
    n_trees, first = estimator.n_estimators, estimator.first_tree
    _refuse_shard(estimator)
    first = 0 if first is None else first
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


def _refuse_shard(estimator):
    """A cluster fit grows a whole forest: its merge chooses the leaf size,
    which a shard of a larger forest leaves to that forest's merge."""
    if estimator.first_tree is not None and chooses_leaf_size(estimator.get_params(deep=False)):
        raise ValueError('sporf.distributed.fit grows a whole forest, and chooses its leaf size "auto" for it; a '
                         "shard of a larger forest (first_tree=%r) leaves that to merge_forests: fit the whole "
                         "forest (first_tree=None), or the shard locally" % (estimator.first_tree,))


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
    # With min_samples_leaf="auto" each shard keeps its out-of-bag sums and
    # the merge adds them and chooses the leaf size for the whole forest.
    shards = _grow_shards(distributed, client, cls, params, dict(ranges), data, unsupervised, sample_weight,
                          n_trees, printer, progress, [0])
    if sorted(shards) != [a for a, _ in ranges]:  # never merge a partial forest
        raise RuntimeError("sporf.distributed.fit: shards are missing; no forest was returned")
    fitted = cls._from_native(merge([shards[a] for a, _ in ranges]))

    # The estimator takes the merged forest's fitted state, as fit would set it.
    for name in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]:
        delattr(estimator, name)
    for name, value in vars(fitted).items():
        if name == "_forest" or (name.endswith("_") and not name.startswith("__")):
            setattr(estimator, name, value)
    if isinstance(estimator, _IsolationForest):  # the outlier threshold of the whole forest's scores
        estimator._fit_threshold(lambda: -estimator.score_samples(X))
    elif unsupervised or getattr(estimator, "oob_score", False):
        Xv = estimator._check_X(X)
        if unsupervised:
            estimator._fit_X = np.ascontiguousarray(Xv)
        else:
            # the forest's values per row: every output's classes, or one per output
            n_out = int(np.sum(estimator.n_classes_)) if hasattr(estimator, "classes_") else estimator.n_outputs_
            estimator._set_oob(estimator._oob_from_forest(Xv, n_out),
                               y if isinstance(estimator, _ForestSurvival) else np.asarray(y))
    _set_interval_calibration(estimator, X, y)
    return estimator


def _set_interval_calibration(estimator, X, y):
    """The out-of-bag interval calibration a local fit sets (quantile and
    survival forests), computed on the client for the merged forest."""
    if isinstance(estimator, _ForestSurvival):
        estimator._survival_y = survival_target(y)
        try:
            estimator._set_interval_scores(estimator._check_X(X))
        finally:
            estimator.__dict__.pop("_survival_y", None)
    elif getattr(estimator, "quantiles", False):
        estimator._set_interval_scores(estimator._check_X(X), np.asarray(y, dtype=np.float64))


def _grow_shards(distributed, client, cls, params, pending, data, unsupervised, sample_weight, n_trees, printer,
                 progress, done):
    """The shards `pending` (first tree -> count) grown on the cluster: each
    one's native forest by its first tree; done[0] counts the trees grown so
    far."""
    shards = {}
    pending = dict(pending)
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
                done[0] += m
                printer.update(done[0], n_trees)
                if progress is not None:
                    progress(done[0], n_trees)
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
    return shards


# ---- X partitioned over the cluster (a Dask array or DataFrame) ----
#
# No worker and not the client ever holds all of X: each tree's sample (the
# rows it draws, sporf_tree_draws) is gathered from the partitions that hold
# it and grown on one worker (sporf_forest_fit with sporf_fit_data.rows), and what the fit
# needs from every row -- the class labels, the checks, the missing-value
# means -- comes from reductions over the partitions. The forest is the local
# fit's of the same rows, byte for byte, however X is partitioned.

def _as_partitioned(X, y, sample_weight):
    """(X as a Dask array of whole rows with known partition lengths, y and
    sample_weight partitioned as X, feature names or None)."""
    import dask.array as da

    names = None
    if not isinstance(X, da.Array):  # a Dask DataFrame
        names = [str(c) for c in X.columns]
        kinds = X.dtypes
        bad = [str(c) for c, k in zip(X.columns, kinds) if getattr(k, "kind", "O") not in "fiub"]
        if bad:
            raise ValueError("X has non-numeric columns (%s): a partitioned fit takes numeric features"
                             % ", ".join(bad))
    X = _dask.whole_rows(X)

    def like_rows(v, what):
        if v is None:
            return None
        if _dask.is_collection(v):
            v = v.to_dask_array(lengths=True) if not isinstance(v, da.Array) else v
            if any(np.isnan(c) for c in v.chunks[0]):
                v = v.compute_chunk_sizes()
        else:
            v = np.asarray(v)
        if v.ndim == 2 and what == "y":
            raise ValueError("a fit from a Dask collection takes one output: fit multi-output y with X in memory")
        if v.ndim != 1 or v.shape[0] != X.shape[0]:
            raise ValueError("%s must be 1-D with one value per row of X (%d), got shape %s"
                             % (what, X.shape[0], v.shape))
        return v.rechunk((X.chunks[0],)) if isinstance(v, da.Array) else da.from_array(v, chunks=(X.chunks[0],))

    return X, like_rows(y, "y"), like_rows(sample_weight, "sample_weight"), names


def _partition_facts(block, y, sw, index, first_row, classification):
    """Runs on a worker: one partition's checks and what the fit needs from
    it (which features miss a value, its labels)."""
    block = np.asarray(block, dtype=np.float64)
    where = np.argwhere(np.isinf(block))
    if len(where):
        raise ValueError("partition %d of X: infinity at row %d, column %d; missing values are NaN"
                         % (index, first_row + where[0][0], where[0][1]))
    labels = None
    if y is not None:
        y = np.asarray(y)
        if classification:
            labels = np.unique(y)
        else:
            y = y.astype(np.float64)
            if not np.all(np.isfinite(y)):
                raise ValueError("partition %d of y: NaN or infinity at row %d"
                                 % (index, first_row + int(np.flatnonzero(~np.isfinite(y))[0])))
    if sw is not None:
        sw = np.asarray(sw, dtype=np.float64)
        if not np.all(np.isfinite(sw) & (sw >= 0)):
            raise ValueError("partition %d of sample_weight: a weight that is not finite and non-negative at row %d"
                             % (index, first_row + int(np.flatnonzero(~(np.isfinite(sw) & (sw >= 0)))[0])))
    return bool(np.isnan(block).any()), labels


def _sum_present(block, carry):
    """Runs on a worker: each feature's running sum and count of present
    values, continued over this partition in row order -- the additions, in
    the order, of a local fit's means (so the means are the same doubles)."""
    block = np.asarray(block, dtype=np.float64)
    sums, counts = carry
    sums, counts = sums.copy(), counts.copy()
    for j in range(block.shape[1]):
        present = block[:, j][~np.isnan(block[:, j])]
        if present.size:
            sums[j] = np.cumsum(np.concatenate([[sums[j]], present]))[-1]
            counts[j] += present.size
    return sums, counts


def _take_many(block, y, sw, wanted):
    """Runs on a worker: for each tree of a batch, the rows of one partition
    it draws (local row numbers, perhaps none)."""
    block = np.asarray(block, dtype=np.float64)
    y = None if y is None else np.asarray(y)
    sw = None if sw is None else np.asarray(sw)
    return [(block[local], None if y is None else y[local], None if sw is None else sw[local]) for local in wanted]


def _grow_tree(cls, params, n_total, rows, pieces, classes, impute, every_row=None):
    """Runs on a worker: one tree from its gathered sample; its model bytes.
    every_row: a quantile or survival forest's response of every row
    (_every_row_response), which its leaves rank their rows among."""
    X = np.concatenate([p[0] for p in pieces])
    y = None if pieces[0][1] is None else np.concatenate([p[1] for p in pieces])
    sw = None if pieces[0][2] is None else np.concatenate([p[2] for p in pieces])
    est = cls(**params)
    native = est._native_params(X.shape[1])
    task = {}
    if every_row is not None:
        all_y, all_sw = every_row["y"], every_row["sample_weight"]
        task = dict(y=all_y[rows], all_y=all_y, all_sample_weight=all_sw)
        if every_row["events"] is not None:
            task.update(events=every_row["events"][rows], all_events=every_row["events"])
        sw = None if all_sw is None else all_sw[rows]
    elif classes is not None:
        task = dict(codes=np.searchsorted(classes, y).astype(np.int32), n_classes=len(classes),
                    weight_per_class=est._weight_per_class(classes))
    elif y is not None:
        task = dict(y=y.astype(np.float64))
    X = np.require(X, dtype=np.float64, requirements=["F", "A"])  # the core's column-major layout, aligned
    forest = _native.fit_sample(native, X, rows, n_total, sample_weight=sw, impute=impute, **task)
    return forest.to_bytes()


def _survival_response(client, y, n_total):
    """(event, time) of every row on the client, from y in memory or on the
    cluster: a structured array, a DataFrame of the two columns (by
    position) or a pair (event, time) -- 12 bytes a row, small beside X."""
    if isinstance(y, (tuple, list)) and len(y) == 2:
        y = tuple(client.compute(v, sync=True) if _dask.is_collection(v) else v for v in y)
    elif _dask.is_collection(y):
        y = client.compute(y, sync=True)
    if hasattr(y, "columns"):  # a DataFrame: its two columns by position
        if y.shape[1] != 2:
            raise ValueError("y as a DataFrame must have two columns (event, time), got %d" % y.shape[1])
        y = (y.iloc[:, 0].to_numpy(), y.iloc[:, 1].to_numpy())
    event, time = survival_target(y)
    if time.shape[0] != n_total:
        raise ValueError("y has %d rows but X has %d" % (time.shape[0], n_total))
    return event, time


def _every_row_response(client, estimator, y, sample_weight, n_total):
    """A quantile or survival forest's response of every row -- its leaves
    rank their rows among every row's responses, and a survival tree counts
    every row's event times -- on the client (a few bytes a row, small beside
    X), or None for other forests."""
    survival = isinstance(estimator, _ForestSurvival)
    if not survival and not getattr(estimator, "quantiles", False):
        return None
    sw = None if sample_weight is None else np.asarray(client.compute(sample_weight, sync=True), dtype=np.float64)
    if survival:
        event, time = _survival_response(client, y, n_total)
        return dict(y=time, events=event, sample_weight=sw)
    return dict(y=np.asarray(client.compute(y, sync=True), dtype=np.float64), events=None, sample_weight=sw)


def _sample_bytes(native, n_total, p):
    """The bytes of one tree's gathered sample (its distinct rows)."""
    return len(_native.tree_draws(native, n_total, 0)[0]) * p * 8 if n_total > 0 else 0


def _memory(client, per_worker=False):
    """The cluster's memory limit in bytes (the largest worker's with
    per_worker), or a large number when the workers have none."""
    limits = [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]
    if not limits or not all(limits):
        return 1 << 62
    return max(limits) if per_worker else sum(limits)


def _check_sample_fits(client, native, n_total, p):
    """Refuse, before any work, a tree sample larger than a worker can hold:
    the gathered rows and their column-major copy, with room to grow."""
    sample = _sample_bytes(native, n_total, p)
    need = 4 * sample  # the pieces, their concatenation, the copy, and the tree's buffers
    limit = _memory(client, per_worker=True)
    if need > limit:
        raise ValueError("a tree's sample of %d distinct rows x %d features needs about %.0f MB on a worker, which "
                         "has %.0f MB: lower max_samples (the rows each tree draws)"
                         % (sample // (8 * p), p, need / 1e6, limit / 1e6))


def _fit_partitioned(client, estimator, X, y, sample_weight, progress):
    import dask

    cls = type(estimator)
    name = cls.__name__
    unsupervised = isinstance(estimator, (URerF, _IsolationForest))  # no response
    if y is None and not unsupervised:
        raise ValueError("%s needs y" % name)
    if y is not None and unsupervised:
        raise TypeError("%s has no response: pass X only" % name)
    estimator._refuse_partitioned()
    survival = isinstance(estimator, _ForestSurvival)
    # a survival response (event, time) is gathered whole (_every_row_response), not partitioned
    X, y_parted, sample_weight, names = _as_partitioned(X, None if survival else y, sample_weight)
    y = y if survival else y_parted
    n_total, p = int(X.shape[0]), int(X.shape[1])
    if unsupervised and n_total < 2:
        raise ValueError("%s needs at least 2 rows, got %d" % (name, n_total))
    offsets = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
    x_parts = list(X.to_delayed().ravel())
    y_parts = list(y_parted.to_delayed().ravel()) if y_parted is not None else [None] * len(x_parts)
    sw_parts = list(sample_weight.to_delayed().ravel()) if sample_weight is not None else [None] * len(x_parts)
    classification = hasattr(cls, "predict_proba")

    # The parameters (one seed for every tree) and, before any work, whether
    # a tree's sample fits a worker.
    params = estimator.get_params(deep=False)
    params.update(random_state=_params.resolve_seed(estimator.random_state), n_jobs=1, verbose=0)
    if "warm_start" in params:
        params["warm_start"] = False
    native = cls(**params)._native_params(p)
    _check_sample_fits(client, native, n_total, p)

    # What the fit needs from every row, by reductions over the partitions.
    facts = client.compute([dask.delayed(_partition_facts)(xp, yp, swp, k, int(offsets[k]), classification)
                            for k, (xp, yp, swp) in enumerate(zip(x_parts, y_parts, sw_parts))], sync=True)
    classes = np.unique(np.concatenate([f[1] for f in facts])) if classification else None
    every_row = _every_row_response(client, estimator, y, sample_weight, n_total)
    impute = None
    if any(f[0] for f in facts):
        carry = (np.zeros(p), np.zeros(p, dtype=np.int64))
        for xp in x_parts:  # in row order: the local fit's additions
            carry = dask.delayed(_sum_present)(xp, carry)
        sums, counts = client.compute(carry, sync=True)
        impute = np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)

    _refuse_shard(estimator)
    n_trees = int(estimator.n_estimators)
    first = 0 if estimator.first_tree is None else int(estimator.first_tree)
    # sent to every worker once, for all the trees
    every_row_f = None if every_row is None else client.scatter([every_row], broadcast=True, hash=False)[0]
    try:
        trees = _grow_trees(client, cls, params, native, n_trees, first, n_total, p, offsets,
                            (x_parts, y_parts, sw_parts), classes, impute, every_row_f,
                            Progress(verbose=estimator.verbose, what="trees"), progress)
    finally:
        if every_row_f is not None:
            client.cancel([every_row_f])
    if sorted(trees) != list(range(n_trees)):  # never merge a partial forest
        raise RuntimeError("sporf.distributed.fit: trees are missing; no forest was returned")
    forest = merge([trees[t] for t in range(n_trees)])
    labels = None
    if forest.leaf_state()[0] == _native.LEAF_PENDING:
        # min_samples_leaf="auto": each partition's rows' out-of-bag sums over
        # every tree, on the workers; the client chooses from all of them
        labels = every_row or _labels_of_rows(client, y_parts, classification)
        _choose_leaf_size(client, forest, x_parts, offsets, n_total, labels, classes, sample_weight)
    if classes is not None:
        forest.set_strings(_native.STR_CLASSES, classes)
    if names is not None:
        forest.set_strings(_native.STR_FEATURE_NAMES, np.array(names, dtype=object))
    fitted = cls._from_native(forest)
    oob = scores = None
    model = dask.delayed(forest.to_bytes(), pure=True)  # sent once to the workers that need it
    if getattr(estimator, "oob_score", False):
        # each partition's out-of-bag values on the workers
        n_out = len(classes) if classification else 1
        oob = client.compute([dask.delayed(_partition_oob)(model, xp, int(offsets[k]), n_total, n_out)
                              for k, xp in enumerate(x_parts)], sync=True)
    if every_row is not None:
        # the out-of-bag interval calibration, partition by partition
        events = every_row["events"]
        scores = np.concatenate(client.compute(
            [dask.delayed(_partition_interval_scores)(model, xp, int(offsets[k]), every_row["y"][a:b],
                                                      None if events is None else events[a:b])
             for k, (xp, a, b) in enumerate(zip(x_parts, offsets[:-1], offsets[1:]))], sync=True))
    for attr in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]:
        delattr(estimator, attr)
    for attr, value in vars(fitted).items():
        if attr == "_forest" or (attr.endswith("_") and not attr.startswith("__")):
            setattr(estimator, attr, value)
    if isinstance(estimator, _IsolationForest):
        # the outlier threshold from every row's score, scored where the rows are
        estimator._fit_threshold(lambda: np.concatenate(client.compute(
            [dask.delayed(_partition_scores)(model, xp) for xp in x_parts], sync=True)))
    elif unsupervised:
        # the reference rows of neighbour queries stay where they are: the
        # queries run partition by partition (_proximity.partitioned_neighbors)
        estimator._fit_X = X
        estimator._n_features_out = n_total
    if oob is not None:
        values = np.concatenate([v for v, _ in oob])
        counts = np.concatenate([c for _, c in oob])
        _warn_missing_oob(counts)
        if survival:
            labels = (every_row["events"], every_row["y"])
        else:
            labels = (labels or _labels_of_rows(client, y_parts, classification))["y"]
        estimator._set_oob(values, labels)  # the score and values a local fit sets (not its error curve)
    if scores is not None and not np.isnan(scores).all():  # as _set_interval_scores sets them
        estimator.interval_scores_ = scores
        if survival:  # the censoring weights of every row
            weights = _native.censoring_weights(every_row["y"], every_row["events"])
            estimator.interval_weights_ = np.where(np.isnan(scores), 0.0, weights)
        estimator.interval_calibration_ = "out-of-bag"
    return estimator


def _partition_scores(model, block):
    """Runs on a worker: an isolation forest's anomaly scores of one partition's rows."""
    forest = NativeForest.from_bytes(model)
    block = np.require(block, dtype=np.float64, requirements=["C", "A"])  # unpickled: any address
    return forest.predict_proba(block, 1, 1)[:, 0]


def _labels_of_rows(client, y_parts, classification):
    """Every row's labels or responses, gathered to the client (a few bytes a
    row), in the form _every_row_response gives a quantile forest's."""
    y = np.concatenate(client.compute(y_parts, sync=True))
    return dict(y=y if classification else np.asarray(y, dtype=np.float64), events=None)


def _partition_leaf_sums(model, block, first_row, n_total, response_max):
    """Runs on a worker: the out-of-bag sums of one partition's rows over
    every tree of a forest that has not chosen its leaf size."""
    forest = NativeForest.from_bytes(model)
    block = np.require(block, dtype=np.float64, requirements=["C", "A"])  # unpickled: any address
    return forest.leaf_sums_rows(block, first_row, n_total, response_max, 1)


def _choose_leaf_size(client, forest, x_parts, offsets, n_total, labels, classes, sample_weight):
    """min_samples_leaf="auto" from partitions: every partition's rows' sums
    (computed where the rows are), concatenated in row order, choose the leaf
    size as a local fit's own sums would; the trees are pruned in place."""
    import dask

    y, events = labels["y"], labels["events"]
    response_max = float(np.max(np.abs(y))) if classes is None and events is None and len(y) else 0.0
    model = dask.delayed(forest.to_bytes(), pure=True)
    parts = client.compute([dask.delayed(_partition_leaf_sums)(model, xp, int(offsets[k]), n_total, response_max)
                            for k, xp in enumerate(x_parts)], sync=True)
    sums = np.concatenate([s for s, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    sw = None if sample_weight is None else np.asarray(client.compute(sample_weight, sync=True), dtype=np.float64)
    if classes is not None:
        response = dict(codes=np.searchsorted(classes, y).astype(np.int32), n_classes=len(classes))
    elif events is not None:
        response = dict(y=y, events=events)
    else:
        response = dict(y=y)
    forest.choose_leaf_size(sums, counts, sample_weight=sw, **response)


def _partition_interval_scores(model, block, first_row, y, events):
    """Runs on a worker: the out-of-bag interval scores of one partition's
    rows (y their responses, or times with their event flags), each over
    the trees it was out of bag for."""
    forest = NativeForest.from_bytes(model)
    block = np.require(block, dtype=np.float64, requirements=["C", "A"])  # unpickled: any address
    if events is None:
        return forest.oob_interval_scores_rows(block, y, first_row, 1)
    if not np.any(events):  # no event: no score (the core refuses a calibration set without one)
        return np.full(block.shape[0], np.nan)
    return forest.oob_survival_interval_scores_rows(block, y, events, first_row, 1)


def _grow_trees(client, cls, params, native, n_trees, first, n_total, p, offsets, parts, classes, impute, every_row,
                printer, progress):
    """Each tree grown on a worker from the rows it draws, gathered from the
    partitions (x, y and weight parts); the native trees by index."""
    import dask

    distributed = _import_distributed()
    x_parts, y_parts, sw_parts = parts
    trees, done = {}, 0
    # Trees in batches whose samples take at most a quarter of the cluster's
    # memory: each partition is read once per batch, for all its trees.
    batch = max(1, min(n_trees, _memory(client) // max(1, 4 * _sample_bytes(native, n_total, p))))
    for b0 in range(0, n_trees, batch):
        ts = list(range(b0, min(n_trees, b0 + batch)))
        rows = {t: _native.tree_draws(native, n_total, t)[0] for t in ts}
        bounds = {t: np.searchsorted(rows[t], offsets) for t in ts}  # each partition's slice of the rows
        taken = {}
        for k in range(len(x_parts)):
            wanted = [rows[t][bounds[t][k]:bounds[t][k + 1]] - offsets[k] for t in ts]
            if any(len(w) for w in wanted):
                taken[k] = dask.delayed(_take_many, nout=len(ts))(x_parts[k], y_parts[k], sw_parts[k], wanted)
        futures = {}
        for j, t in enumerate(ts):
            pieces = [taken[k][j] for k in sorted(taken) if bounds[t][k + 1] > bounds[t][k]]
            task = dask.delayed(_grow_tree)(cls, dict(params, first_tree=first + t, n_estimators=1), n_total,
                                             rows[t], pieces, classes, impute, every_row)
            futures[client.compute(task)] = t
        try:
            for future in distributed.as_completed(list(futures)):
                t = futures[future]
                try:
                    trees[t] = NativeForest.from_bytes(future.result())
                except (ValueError, TypeError, MemoryError):
                    raise
                except Exception as exc:
                    raise RuntimeError("sporf.distributed.fit: the cluster failed to grow tree %d (%s: %s); no "
                                       "forest was returned" % (first + t, type(exc).__name__, exc)) from exc
                done += 1
                printer.update(done, n_trees)
                if progress is not None:
                    progress(done, n_trees)
        finally:
            for future in futures:
                future.cancel()
    return trees


def _partition_oob(model, block, first_row, n_total, n_out):
    """Runs on a worker: the out-of-bag values and counts of one partition's
    rows, each over the trees it was out of bag for."""
    forest = NativeForest.from_bytes(model)
    block = np.require(block, dtype=np.float64, requirements=["C", "A"])  # unpickled: any address
    return forest.oob_predict_rows(block, first_row, n_total, 1, n_out)
