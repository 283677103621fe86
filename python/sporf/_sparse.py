"""scipy sparse X: densified a block at a time for the core, which reads
dense rows and columns. Implicit zeros are zeros; an explicitly stored NaN is
a missing value, as in a dense array."""
import numpy as np
import scipy.sparse as sp

# Elements densified at once (32 MB of doubles): the temporary a block costs.
BLOCK_ELEMENTS = 4 << 20


def issparse(X):
    return sp.issparse(X)


def dense_columns(X):
    """X (n x p, sparse) as a Fortran-ordered dense array, filled a block of
    columns at a time: the only full copy is the one the core reads in place
    (fit.c takes column-major data without copying it again)."""
    X = X.tocsc()
    n, p = X.shape
    out = np.empty((n, p), dtype=np.float64, order="F")
    step = max(1, BLOCK_ELEMENTS // max(n, 1))
    for j in range(0, p, step):
        out[:, j:j + step] = X[:, j:j + step].toarray()
    return out


def row_blocks(X):
    """(start, dense block) over X's rows, a block of rows at a time, for
    prediction: each row's answer does not depend on the others."""
    X = X.tocsr()
    n, p = X.shape
    step = max(1, BLOCK_ELEMENTS // max(p, 1))
    for i in range(0, n, step):
        yield i, np.ascontiguousarray(X[i:i + step].toarray(), dtype=np.float64)
