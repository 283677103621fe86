"""Forest proximity through the core: each row's most similar reference rows
(a sparse matrix), or the dense matrix when asked and when it fits in memory.
S(i, j) is the fraction of trees that put rows i and j in the same leaf."""
import numpy as np
import scipy.sparse as sp

from ._native import Progress, physical_memory
from ._params import _is_int

# A dense result may take at most this share of the machine's memory.
_DENSE_SHARE = 0.5


def check_n_neighbors(k, n_reference, self_excluded):
    """k as an int in [1, n_reference] (n_reference - 1 when a row may not be
    its own neighbour)."""
    top = n_reference - 1 if self_excluded else n_reference
    if not _is_int(k) or k < 1:
        raise ValueError("n_neighbors must be an int >= 1, got %r" % (k,))
    if k > top:
        raise ValueError("n_neighbors=%d, but there are only %d reference rows%s" % (
            k, top, " other than the row itself" if self_excluded else ""))
    return int(k)


def neighbors(forest, reference, query, k, n_jobs, verbose=0):
    """(similarity, index), each (n_query, k), most similar first. query None:
    the reference rows themselves, a row never being its own neighbour."""
    k = check_n_neighbors(k, reference.shape[0], query is None)
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
