"""Forest proximity through the core: each row's most similar reference rows
(a sparse matrix), or the dense matrix when asked and when it fits in memory.
S(i, j) is the fraction of trees that put rows i and j in the same leaf."""
import numpy as np
import scipy.sparse as sp

from ._native import NativeForest, Progress, physical_memory
from . import _params
from ._params import _is_int

# A dense result may take at most this share of the machine's memory.
_DENSE_SHARE = 0.5


def check_n_neighbors(k, n_reference, self_excluded, fewer_ok=False):
    """k as an int in [1, n_reference] (n_reference - 1 when a row may not be
    its own neighbour); fewer_ok: more than there are gives the rows there
    are (the proximity graph), else is refused (kneighbors' fixed width)."""
    top = n_reference - 1 if self_excluded else n_reference
    if not _is_int(k) or k < 1:
        raise _params.bad("n_neighbors", _params.PARAMS["n_neighbors"]["expect"], k)
    if fewer_ok and 1 <= top < k:
        return int(top)
    if k > top:
        raise ValueError("n_neighbors = %d, but there are only %d reference rows%s" % (
            k, top, " other than the row itself" if self_excluded else ""))
    return int(k)


def neighbors(forest, reference, query, k, n_jobs, verbose=0, fewer_ok=False):
    """(similarity, index), each (n_query, k), most similar first. query None:
    the reference rows themselves, a row never being its own neighbour.
    fewer_ok: k above the rows there are gives them all (check_n_neighbors)."""
    k = check_n_neighbors(k, reference.shape[0], query is None, fewer_ok)
    return forest.neighbors(reference, query, k, n_jobs, Progress(verbose=verbose, what="row blocks"))


def dense(forest, reference, query, n_jobs):
    """The (n_query, n_reference) proximity matrix; refuses sizes that would
    take more than half of the machine's memory."""
    n_query = reference.shape[0] if query is None else query.shape[0]
    need = 8.0 * n_query * reference.shape[0]
    have = physical_memory()
    if have > 0 and need > _DENSE_SHARE * have:
        raise MemoryError(
            "a dense %d x %d proximity matrix needs %.1f GB, more than half of this machine's %.1f GB; "
            "use the sparse neighbour graph (dense=False) instead"
            % (n_query, reference.shape[0], need / 1e9, have / 1e9))
    return forest.proximity_dense(reference, query, n_jobs)


def sparse_graph(sim, index, n_reference, diagonal):
    """CSR matrix whose row i holds sim[i] at columns index[i]; `diagonal`
    also stores S(i, i) = 1 (the training proximity, where no row is listed
    as its own neighbour)."""
    n, k = index.shape
    if diagonal:
        index = np.hstack([np.arange(n, dtype=np.int64)[:, None], index])
        sim = np.hstack([np.ones((n, 1)), sim])
        k += 1
    order = np.argsort(index, axis=1, kind="stable")
    cols = np.take_along_axis(index, order, axis=1)
    vals = np.take_along_axis(sim, order, axis=1)
    indptr = np.arange(0, n * k + 1, k, dtype=np.int64)
    graph = sp.csr_matrix((vals.ravel(), cols.ravel(), indptr), shape=(n, n_reference))
    graph.eliminate_zeros()  # rows completed with unrelated (similarity 0) rows
    return graph


# ---- reference rows partitioned over a Dask cluster ----
#
# A forest fitted from a Dask collection (URerF, sporf.distributed.fit) keeps
# its training rows where they are. A neighbour query then runs one task per
# (query block, reference partition): each finds its queries' k most similar
# rows of that partition with the core's own search, and the candidates of all
# partitions are merged by similarity, ties to the smaller global index. The
# core breaks ties and completes short lists with unrelated rows the same way,
# in index order, so the result is the in-memory search's, to the bit.


def _partition_neighbors(model, reference, first, query, self_block, k):
    """Runs on a worker: (similarity, global index) of each query row's k
    most similar rows of one reference partition (starting at row `first`);
    self_block: the queries are this partition's own rows."""
    forest = NativeForest.from_bytes(model)
    reference = np.require(reference, dtype=np.float64, requirements=["C", "A"])  # unpickled: any address
    n_ref = reference.shape[0]
    n_query = n_ref if self_block else query.shape[0]
    k_here = min(k, n_ref - 1 if self_block else n_ref)
    if k_here < 1:
        return np.zeros((n_query, 0)), np.zeros((n_query, 0), dtype=np.int64)
    query = None if self_block else np.require(query, dtype=np.float64, requirements=["C", "A"])
    sim, index = forest.neighbors(reference, query, k_here, 1)
    return sim, index + first


def _merge_candidates(parts, k):
    """The k best of every partition's candidates, most similar first, ties
    to the smaller index."""
    sim = np.hstack([s for s, _ in parts])
    index = np.hstack([i for _, i in parts])
    order = np.lexsort((index, -sim), axis=-1) if sim.size else np.zeros(sim.shape, dtype=np.int64)
    order = order[:, :k]
    return np.take_along_axis(sim, order, axis=1), np.take_along_axis(index, order, axis=1)


def partitioned_neighbors(forest, reference, query, k):
    """(similarity, index), each (n_query, k), of a Dask array `reference`
    (whole rows, known partition lengths) -- the same arrays `neighbors`
    gives with the reference in memory. query: an array in memory, a Dask
    array, or None for the reference rows themselves (none its own
    neighbour). Computed on the current Dask scheduler; the result is in
    memory (n_query x k)."""
    import dask

    n_ref = int(reference.shape[0])
    k = check_n_neighbors(k, n_ref, query is None)
    model = dask.delayed(forest.to_bytes(), pure=True)
    offsets = np.concatenate([[0], np.cumsum(reference.chunks[0])]).astype(np.int64)
    refs = list(reference.to_delayed().ravel())
    if query is None:  # the reference's own partitions
        queries = refs
    elif hasattr(query, "to_delayed"):
        queries = list(query.to_delayed().ravel())
    else:
        queries = [dask.delayed(np.asarray(query), pure=True)]
    merged = []
    for qi, q in enumerate(queries):
        parts = [dask.delayed(_partition_neighbors, pure=True)(model, r, int(offsets[ri]), q,
                                                               query is None and qi == ri, k)
                 for ri, r in enumerate(refs)]
        merged.append(dask.delayed(_merge_candidates, pure=True)(parts, k))
    blocks = dask.compute(*merged)
    return np.vstack([s for s, _ in blocks]), np.vstack([i for _, i in blocks])
