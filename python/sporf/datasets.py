"""Simulated problems of the source papers: SPORF (Tomita et al., JMLR 2020, §4.2),
MORF, and the URerF manifolds.

The classification problems return ``(X, y)`` with X of shape (n_samples,
n_features) and integer labels y; make_manifold returns the data with its true
latent distances.
"""
import numbers

import numpy as np
from sklearn.utils import check_random_state


def _check_n(n_samples):
    if not isinstance(n_samples, numbers.Integral) or isinstance(n_samples, bool) or n_samples < 1:
        raise ValueError("n_samples must be an int >= 1, got %r" % (n_samples,))


def make_sparse_parity(n_samples, n_features=20, n_relevant=3, random_state=None):
    """Sparse parity: a multivariate noisy XOR.

    X ~ Uniform(-1, 1)^p; y is 1 when an odd number of the first
    ``n_relevant`` coordinates are positive, else 0. No single feature, nor
    any subset of fewer than ``n_relevant`` features, carries information.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_features : int, default=20
        Number of features p.
    n_relevant : int, default=3
        Number of features whose signs set the label.
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_sparse_parity()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), dtype int64
        0 or 1.

    Examples
    --------
    >>> X, y = make_sparse_parity(4, random_state=0)
    >>> X.shape, sorted(set(y.tolist())) <= [0, 1]
    ((4, 20), True)
    """
    _check_n(n_samples)
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

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_features : int, default=6
        Number of features p.
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_orthant()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), dtype int64
        The orthant, 0 .. 2**p - 1.

    Examples
    --------
    >>> X, y = make_orthant(5, n_features=3, random_state=0)
    >>> int(y.max()) < 8
    True
    """
    _check_n(n_samples)
    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    y = ((X > 0).astype(np.int64) << np.arange(n_features)).sum(axis=1)
    return X, y


def trunk_mean(n_features):
    """Class-1 mean of Trunk: (1, 1/sqrt(2), ..., 1/sqrt(p)); class 0 has the negative.

    Parameters
    ----------
    n_features : int
        Number of features p.

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    >>> trunk_mean(4).round(3).tolist()
    [1.0, 0.707, 0.577, 0.5]
    """
    return 1.0 / np.sqrt(np.arange(1, n_features + 1))


def make_trunk(n_samples, n_features=10, random_state=None):
    """Trunk (G. V. Trunk, 1979): two balanced Gaussian classes, identity
    covariance, means +-(1, 1/sqrt(2), ..., 1/sqrt(p)). Every dimension is
    informative, each less than the one before; the Bayes boundary is the
    hyperplane through the origin orthogonal to the mean.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_features : int, default=10
        Number of features p.
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_trunk()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), dtype int64
        0 or 1, balanced.

    Examples
    --------
    >>> X, y = make_trunk(6, n_features=4, random_state=0)
    >>> int(y.sum())
    3
    """
    _check_n(n_samples)
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

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_features : int, default=100
        Cells on the circle (at least 14).
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_circle_segments()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), dtype int64
        0 (two runs of 5) or 1 (runs of 4 and 6).

    Examples
    --------
    >>> X, y = make_circle_segments(4, random_state=0)
    >>> X.shape, X.sum(axis=1).tolist()
    ((4, 100), [10.0, 10.0, 10.0, 10.0])
    """
    _check_n(n_samples)
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

    Parameters
    ----------
    n_samples : int
        Number of samples.
    size : int, default=28
        Image side.
    mean_bars : float, default=10
        Mean number of bars per image.
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_bars()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, size, size)
    y : ndarray of shape (n_samples,), dtype int64
        0 (horizontal bars) or 1 (vertical).

    Examples
    --------
    >>> X, y = make_bars(3, random_state=0)
    >>> X.shape
    (3, 28, 28)
    """
    _check_n(n_samples)
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

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_steps : int, default=100
        Length of each series.
    onset : int, default=20
        Step at which class 1's impulse starts.
    decay : float, default=10.0
        Time constant of the impulse's exponential decay.
    random_state : int, RandomState instance or None, default=None
        Seed of numpy's generator. (R's ``make_impulse()`` draws from the same
        distribution with R's generator.)

    Returns
    -------
    X : ndarray of shape (n_samples, n_steps)
    y : ndarray of shape (n_samples,), dtype int64
        0 (noise) or 1 (noise plus the impulse).

    Examples
    --------
    >>> X, y = make_impulse(5, random_state=0)
    >>> X.shape
    (5, 100)
    """
    _check_n(n_samples)
    rng = check_random_state(random_state)
    y = rng.randint(0, 2, size=n_samples).astype(np.int64)
    t = np.arange(n_steps)
    signal = np.where(t >= onset, np.exp(-(t - onset) / decay), 0.0)
    X = rng.standard_normal((n_samples, n_steps)) + y[:, None] * signal[None, :]
    return X, y


def make_manifold(kind, n_samples=1000, n_noise=0, noise_scale=1.0, random_state=None):
    """The URerF paper's four manifolds (appendix B): 3 signal dimensions
    plus ``n_noise`` dimensions of Gaussian noise.

    - "linear": (4t, 6t, 9t), t on an even grid in (0, 1); geodesic distance
      is the distance along the line.
    - "helix": (t cos t, t sin t, t), t on an even grid in (2 pi, 9 pi);
      geodesic distance is the arc length between the points.
    - "sphere": radius 9, (u, v) on an even grid in (0, 2 pi) x (0, pi);
      geodesic distance is the great-circle distance.
    - "gmm": a mixture of N((-3,-3,-3), I), N(0, I) and N((3,3,3), I) with
      weights 0.3, 0.3, 0.4; the components are the connected parts.

    Parameters
    ----------
    kind : {"linear", "helix", "sphere", "gmm"}
    n_samples : int, default=1000
    n_noise : int, default=0
        Noise dimensions appended after the 3 signal dimensions, each
        N(0, noise_scale^2).
    noise_scale : float, default=1.0
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray of shape (n_samples, 3 + n_noise)
    geodesic : ndarray of shape (n_samples, n_samples)
        True latent distances (for "gmm": Euclidean distances in the signal
        dimensions, which lie within the components).
    labels : ndarray of shape (n_samples,)
        Connected component of each point (all 0 except for "gmm").

    Examples
    --------
    >>> X, D, labels = make_manifold("helix", 100, n_noise=2, random_state=0)
    >>> X.shape, D.shape, bool(np.allclose(D, D.T))
    ((100, 5), (100, 100), True)
    """
    _check_n(n_samples)
    rs = check_random_state(random_state)
    n = int(n_samples)
    labels = np.zeros(n, dtype=np.int64)
    if kind == "linear":
        t = (np.arange(n) + 0.5) / n
        S = np.column_stack([4 * t, 6 * t, 9 * t])
        arc = t * np.sqrt(16 + 36 + 81)
        D = np.abs(arc[:, None] - arc[None, :])
    elif kind == "helix":
        t = 2 * np.pi + 7 * np.pi * (np.arange(n) + 0.5) / n
        S = np.column_stack([t * np.cos(t), t * np.sin(t), t])
        # |dp/dt| = sqrt(t^2 + 2), so the arc length from 0 is
        # t/2 sqrt(t^2 + 2) + log(t + sqrt(t^2 + 2)).
        r = np.sqrt(t ** 2 + 2)
        arc = t / 2 * r + np.log(t + r)
        D = np.abs(arc[:, None] - arc[None, :])
    elif kind == "sphere":
        n_u = int(np.ceil(np.sqrt(2 * n)))
        n_v = int(np.ceil(n / n_u))
        u = 2 * np.pi * (np.arange(n_u) + 0.5) / n_u
        v = np.pi * (np.arange(n_v) + 0.5) / n_v
        uu, vv = (g.ravel()[:n] for g in np.meshgrid(u, v))
        S = 9.0 * np.column_stack([np.cos(uu) * np.sin(vv), np.sin(uu) * np.sin(vv), np.cos(vv)])
        cos = np.clip(S @ S.T / 81.0, -1.0, 1.0)
        D = 9.0 * np.arccos(cos)
    elif kind == "gmm":
        labels = rs.choice(3, size=n, p=[0.3, 0.3, 0.4])
        centres = np.array([[-3.0] * 3, [0.0] * 3, [3.0] * 3])
        S = centres[labels] + rs.normal(size=(n, 3))
        D = np.sqrt(np.maximum(((S[:, None, :] - S[None, :, :]) ** 2).sum(-1), 0.0))
    else:
        raise ValueError("kind must be 'linear', 'helix', 'sphere' or 'gmm', got %r" % (kind,))
    np.fill_diagonal(D, 0.0)
    X = np.hstack([S, noise_scale * rs.normal(size=(n, int(n_noise)))])
    return X, D, labels
