"""Geodesic precision and recall (URerF paper, section 3.5): how well a
learned similarity recovers neighbours on a latent manifold."""
import numpy as np
import scipy.sparse as sp

from ._params import _is_int

__all__ = ["geodesic_precision_recall"]


def _ranked(row_sim, cols, i, n, k):
    """The k most similar columns of row i other than i itself: by
    similarity, ties (and unlisted columns, similarity 0) by index."""
    keep = cols != i
    row_sim, cols = row_sim[keep], cols[keep]
    order = np.lexsort((cols, -row_sim))
    chosen = cols[order][:k]
    if len(chosen) < k:  # complete with unlisted columns in index order
        listed = np.zeros(n, dtype=bool)
        listed[cols] = True
        listed[i] = True
        chosen = np.concatenate([chosen, np.flatnonzero(~listed)[: k - len(chosen)]])
    return chosen


def geodesic_precision_recall(truth, similarity, k):
    """Precision and recall at k of the neighbours a similarity retrieves,
    against the true neighbours on the latent manifold, averaged over points.

    For point i, the retrieved points are the k most similar others under
    ``similarity`` (ties: smaller index first). The relevant points are the k
    nearest others by the true latent distance, or, when ``truth`` gives
    connected-component labels, every other point of i's component.
    precision = ``|relevant & retrieved| / k``; recall =
    ``|relevant & retrieved| / |relevant|``. With distances both are equal; chance is k / (n - 1).

    Parameters
    ----------
    truth : ndarray of shape (n, n) or (n,)
        True latent distances (symmetric, smaller is nearer), or component
        labels.
    similarity : ndarray or scipy sparse matrix of shape (n, n)
        Learned similarity, larger is more similar (e.g. ``URerF().fit(X)
        .proximity()``, or minus a distance matrix). Entries absent from a
        sparse matrix are 0.
    k : int
        Neighbours retrieved per point, 1 <= k < n.

    Returns
    -------
    precision, recall : float

    Examples
    --------
    >>> import numpy as np
    >>> from sporf.metrics import geodesic_precision_recall
    >>> t = np.linspace(0, 1, 30)
    >>> D = np.abs(t[:, None] - t[None, :])
    >>> geodesic_precision_recall(D, -D, k=4)
    (1.0, 1.0)
    """
    truth = np.asarray(truth)
    n = truth.shape[0]
    if truth.ndim not in (1, 2) or (truth.ndim == 2 and truth.shape != (n, n)):
        raise ValueError("truth must be an (n, n) distance matrix or n labels, got shape %r" % (truth.shape,))
    if similarity.shape != (n, n):
        raise ValueError("similarity must have shape (%d, %d) like truth, got %r" % (n, n, similarity.shape))
    if not _is_int(k) or not 1 <= k < n:
        raise ValueError("k must be an int in [1, n - 1] = [1, %d], got %r" % (n - 1, k))
    if truth.ndim == 2 and not np.all(np.isfinite(truth)):
        raise ValueError("truth contains NaN or infinity")
    sparse = sp.issparse(similarity)
    S = similarity.tocsr() if sparse else np.asarray(similarity, dtype=np.float64)
    if (S.data if sparse else S).size and not np.all(np.isfinite(S.data if sparse else S)):
        raise ValueError("similarity contains NaN or infinity")
    precision = recall = 0.0
    others = np.arange(n)
    for i in range(n):
        if sparse:
            lo, hi = S.indptr[i], S.indptr[i + 1]
            retrieved = _ranked(S.data[lo:hi], S.indices[lo:hi], i, n, k)
        else:
            retrieved = _ranked(S[i], others, i, n, k)
        if truth.ndim == 1:
            relevant = np.flatnonzero(truth == truth[i])
            relevant = relevant[relevant != i]
        else:
            relevant = _ranked(-truth[i].astype(np.float64), others, i, n, k)
        hits = np.intersect1d(relevant, retrieved).size
        precision += hits / k
        recall += hits / relevant.size if relevant.size else 0.0
    return precision / n, recall / n
