"""The SPORF paper's simulated classification problems (Tomita et al., JMLR 2020, §4.2).

Each function returns ``(X, y)`` with X of shape (n_samples, n_features) and
integer labels y.
"""
import numpy as np
from sklearn.utils import check_random_state


def make_sparse_parity(n_samples, n_features=20, n_relevant=3, random_state=None):
    """Sparse parity: a multivariate noisy XOR.

    X ~ Uniform(-1, 1)^p; y is 1 when an odd number of the first
    ``n_relevant`` coordinates are positive, else 0. No single feature, nor
    any subset of fewer than ``n_relevant`` features, carries information.

    Examples
    --------
    >>> X, y = make_sparse_parity(4, random_state=0)
    >>> X.shape, sorted(set(y.tolist())) <= [0, 1]
    ((4, 20), True)
    """
    if n_relevant > n_features:
        raise ValueError("n_relevant (%d) cannot exceed n_features (%d)" % (n_relevant, n_features))
    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    y = (np.sum(X[:, :n_relevant] > 0, axis=1) % 2).astype(np.int64)
    return X, y


def make_orthant(n_samples, n_features=6, random_state=None):
    """Orthant: the label is the orthant of X ~ Uniform(-1, 1)^p (2^p classes).

    All optimal splits are axis-aligned; every feature is equally and
    strongly informative.

    Examples
    --------
    >>> X, y = make_orthant(5, n_features=3, random_state=0)
    >>> int(y.max()) < 8
    True
    """
    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    y = ((X > 0).astype(np.int64) << np.arange(n_features)).sum(axis=1)
    return X, y


def trunk_mean(n_features):
    """Class-1 mean of Trunk: (1, 1/sqrt(2), ..., 1/sqrt(p)); class 0 has the negative."""
    return 1.0 / np.sqrt(np.arange(1, n_features + 1))


def make_trunk(n_samples, n_features=10, random_state=None):
    """Trunk (G. V. Trunk, 1979): two balanced Gaussian classes, identity
    covariance, means +-(1, 1/sqrt(2), ..., 1/sqrt(p)). Every dimension is
    informative, each less than the one before; the Bayes boundary is the
    hyperplane through the origin orthogonal to the mean.

    Examples
    --------
    >>> X, y = make_trunk(6, n_features=4, random_state=0)
    >>> int(y.sum())
    3
    """
    rng = check_random_state(random_state)
    y = np.zeros(n_samples, dtype=np.int64)
    y[: n_samples // 2] = 1
    rng.shuffle(y)
    mu = trunk_mean(n_features)
    X = rng.standard_normal((n_samples, n_features)) + np.where(y[:, None] == 1, mu, -mu)
    return X, y
