"""Generators used only by the benchmarks, written to match a paper's own
experiment code where sporf.datasets chose a different reading of its text."""
import numpy as np
from sklearn.utils import check_random_state


def full_row_bars(n_samples, size=28, mean_bars=10, random_state=None):
    """The MORF authors' horizontal/vertical bars: k ~ Poisson(mean_bars) whole
    rows set to 1 (row indices drawn with replacement); class 1 is the
    transpose. Returns X of shape (n_samples, size, size) and y."""
    rng = check_random_state(random_state)
    y = rng.randint(0, 2, size=n_samples)
    X = np.zeros((n_samples, size, size))
    for i in range(n_samples):
        X[i, rng.randint(0, size, rng.poisson(mean_bars)), :] = 1.0
        if y[i] == 1:
            X[i] = X[i].T
    return X, y
