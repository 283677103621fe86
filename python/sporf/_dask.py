"""Prediction on Dask collections: a Dask array or DataFrame in, a lazy
Dask array out, one task per partition.

The estimator goes into the graph once, as one key every partition's task
depends on (so a cluster ships the model to each worker once, not once per
partition), and each task predicts its partition with the estimator's own
method on the NumPy array or pandas DataFrame the partition holds: the
answers are the ones the method gives that partition locally. A partition
that cannot be predicted (wrong width, infinity) raises, when computed, the
method's error with the partition's number.

Dask is optional: nothing here imports it until a Dask collection arrives.
"""
import numpy as np


def is_collection(X):
    """Is X a Dask array or DataFrame (without importing Dask)?"""
    return type(X).__module__.startswith(("dask.", "dask_expr"))


def _predict_partition(estimator, block, index, method, kwargs):
    try:
        out = getattr(estimator, method)(block, **kwargs)
        return out if hasattr(out, "tocsr") else np.asarray(out)  # scipy sparse blocks stay sparse
    except (ValueError, TypeError) as exc:
        raise type(exc)("partition %d of X: %s" % (index, exc)) from exc


def map_partitions(estimator, X, method, kwargs, trailing, dtype, meta=None):
    """The lazy result of estimator.<method>(partition, **kwargs) over X's
    row partitions: a Dask array of shape (n_rows,) + trailing (its blocks of
    meta's type when given, e.g. scipy sparse matrices)."""
    import dask
    import dask.array as da

    model = dask.delayed(estimator, pure=True, traverse=False)
    kwargs = dask.delayed(kwargs, pure=True, traverse=False)  # one key too: reference rows travel once
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError("a Dask array X must be 2-D (rows, features), got %d dimensions" % X.ndim)
        blocks = X.rechunk({1: -1}).to_delayed().ravel()  # whole rows: one block per row partition
        lengths = X.chunks[0]
    else:  # a Dask DataFrame: its partitions are pandas DataFrames (names, categories)
        blocks = X.to_delayed()
        lengths = [np.nan] * len(blocks)
    parts = [da.from_delayed(dask.delayed(_predict_partition, pure=True)(model, block, i, method, kwargs),
                             shape=(n,) + tuple(trailing), dtype=dtype, meta=meta)
             for i, (block, n) in enumerate(zip(blocks, lengths))]
    return da.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]


def whole_rows(X):
    """A Dask array or DataFrame as a 2-D Dask array of whole rows (one
    block per row partition) with known partition lengths."""
    import dask.array as da

    if not isinstance(X, da.Array):  # a DataFrame: its columns in order
        X = X.to_dask_array(lengths=True)
    if X.ndim != 2:
        raise ValueError("a Dask array X must be 2-D (rows, features), got %d dimensions" % X.ndim)
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return X.rechunk({1: -1})
