"""One fit at a time per estimator.

Prediction on a fitted estimator is safe from any number of threads (the core
is read-only there, and the forest a call started with stays alive until the
call returns). A second ``fit`` of the same estimator while one runs in
another thread would race on the fitted attributes, so it is refused with a
clear error instead; fits of different estimators run concurrently.
"""
import functools
import threading

_LOCK = threading.Lock()
_FITTING = set()


def exclusive_fit(fit):
    """Decorator for fit methods (and sporf.distributed.fit's first argument)."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        with fitting(self):
            return fit(self, *args, **kwargs)

    return wrapper


class fitting:
    """Context manager: mark `est` as being fitted, or raise if it already is."""

    def __init__(self, est):
        self.key = id(est)
        self.name = type(est).__name__

    def __enter__(self):
        with _LOCK:
            if self.key in _FITTING:
                raise RuntimeError(
                    "%s.fit is already running on this estimator in another thread; wait for it to finish, "
                    "or fit a clone (sklearn.base.clone) to grow two forests at once" % self.name)
            _FITTING.add(self.key)
        return self

    def __exit__(self, *exc):
        with _LOCK:
            _FITTING.discard(self.key)
        return False
