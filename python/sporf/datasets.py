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


# ---- the MORF papers' simulations (Li et al., 2021; Madhyastha et al., 2020) ----

def make_circle_segments(n_samples, n_features=100, random_state=None):
    """Two segments of ones on a discretized circle of ``n_features`` cells.

    Class 0 has two segments of length 5; class 1 one of length 4 and one of
    length 6. Segments sit at uniformly random positions, may wrap around the
    circle, and neither overlap nor touch. The total mass is 10 in both
    classes, so only the segments' structure on the circle separates them.

    Examples
    --------
    >>> X, y = make_circle_segments(4, random_state=0)
    >>> X.shape, X.sum(axis=1).tolist()
    ((4, 100), [10.0, 10.0, 10.0, 10.0])
    """
    if n_features < 14:
        raise ValueError("n_features must be >= 14 to hold two separated segments")
    rng = check_random_state(random_state)
    y = rng.randint(0, 2, size=n_samples).astype(np.int64)
    X = np.zeros((n_samples, n_features))
    for i in range(n_samples):
        lengths = (5, 5) if y[i] == 0 else tuple(rng.permutation([4, 6]))
        a = rng.randint(n_features)
        # The second segment starts at least one empty cell after the first
        # ends and ends at least one empty cell before the first starts.
        gap_room = n_features - lengths[0] - lengths[1] - 2
        b = (a + lengths[0] + 1 + rng.randint(gap_room + 1)) % n_features
        X[i, (a + np.arange(lengths[0])) % n_features] = 1.0
        X[i, (b + np.arange(lengths[1])) % n_features] = 1.0
    return X, y


def make_bars(n_samples, size=28, mean_bars=10, random_state=None):
    """Binary ``size`` x ``size`` images of randomly sized and spaced
    horizontal (class 0) or vertical (class 1) bars. An image has
    k ~ Poisson(``mean_bars``) bars (at least one); each bar has a thickness
    uniform in {1, 2, 3}, a length uniform in {3, ..., size} and a uniformly
    random position inside the image. Returns X of shape (n_samples, size, size).

    Class 1 is class 0 rotated by 90 degrees: every pixel has the same
    distribution in both, so a classifier must learn the bars' structure.

    Examples
    --------
    >>> X, y = make_bars(3, random_state=0)
    >>> X.shape
    (3, 28, 28)
    """
    rng = check_random_state(random_state)
    y = rng.randint(0, 2, size=n_samples).astype(np.int64)
    X = np.zeros((n_samples, size, size))
    for i in range(n_samples):
        for _ in range(max(1, rng.poisson(mean_bars))):
            thick = rng.randint(1, 4)
            length = rng.randint(3, size + 1)
            r = rng.randint(0, size - thick + 1)
            c = rng.randint(0, size - length + 1)
            X[i, r:r + thick, c:c + length] = 1.0
        if y[i] == 1:
            X[i] = X[i].T
    return X, y


def make_impulse(n_samples, n_steps=100, onset=20, decay=10.0, random_state=None):
    """White noise (class 0) against white noise plus an exponentially
    decaying unit step (class 1): x_t = u(t - onset) exp(-(t - onset) / decay)
    + e_t, e_t ~ N(0, 1), t = 0 .. n_steps - 1.

    Examples
    --------
    >>> X, y = make_impulse(5, random_state=0)
    >>> X.shape
    (5, 100)
    """
    rng = check_random_state(random_state)
    y = rng.randint(0, 2, size=n_samples).astype(np.int64)
    t = np.arange(n_steps)
    signal = np.where(t >= onset, np.exp(-(t - onset) / decay), 0.0)
    X = rng.standard_normal((n_samples, n_steps)) + y[:, None] * signal[None, :]
    return X, y
