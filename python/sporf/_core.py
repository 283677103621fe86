"""Thin glue over the compiled core: errors, matrix views, progress callbacks.

Nothing here implements an algorithm; it converts Python objects into the C
API's types and C status codes into Python exceptions.
"""
import sys
import time

import numpy as np

from ._sporf_cffi import ffi, lib

_ERRORS = {
    lib.SPORF_E_ARG: ValueError,
    lib.SPORF_E_NOMEM: MemoryError,
    lib.SPORF_E_FORMAT: ValueError,
    lib.SPORF_E_THREAD: RuntimeError,
    lib.SPORF_E_INTERNAL: RuntimeError,
}


def new_error():
    return ffi.new("sporf_error *")


def check(rc, err):
    """Raise the Python exception that matches a core status code."""
    if rc == lib.SPORF_OK:
        return
    message = ffi.string(err.message).decode("utf-8", "replace") or "sporf core error %d" % rc
    if rc == lib.SPORF_E_INTERRUPTED:
        raise KeyboardInterrupt(message)
    raise _ERRORS.get(rc, RuntimeError)(message)


# Training data is taken as float64 or float32 (anything else converts to
# float64, the first); see fit_matrix.
FIT_DTYPES = (np.float64, np.float32)


def fit_matrix(X):
    """Training data in the layout the core fits on. float64 goes as it is
    (the core copies a C-ordered array into columns itself); float32 is
    converted once, straight into column-major float64, which the core reads
    in place -- instead of a float64 copy here and a column-major one there.
    Values are the same either way, so is the forest."""
    if X.dtype == np.float64:
        return X
    return np.asfortranarray(X, dtype=np.float64)


def matrix_view(X):
    """A sporf_matrix over a 2-D float64 array, without copying C- or
    F-ordered arrays. Returns (view, keepalive): keep the second alive while
    the first is in use."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("expected a 2-D array, got %d dimensions" % X.ndim)
    # The core reads doubles through aligned pointers: an array on a buffer
    # that is not 8-byte aligned (as deserialized data can be) is copied.
    flags = X.flags
    if not (flags.c_contiguous or flags.f_contiguous) or not flags.aligned:
        X = np.array(X, order="C")
        flags = X.flags
    view = ffi.new("sporf_matrix *")
    view.nrow, view.ncol = X.shape
    if flags.c_contiguous and X.size:
        # The cheap way to the address (one-row prediction is dominated by
        # per-call overhead); the buffer protocol serves C-contiguous memory.
        buf = ffi.from_buffer("double[]", X, require_writable=False)
        view.row_stride, view.col_stride = X.shape[1], 1
    else:
        # F-ordered (or empty): take the address directly (X is kept alive by
        # the caller through `keepalive`).
        buf = ffi.cast("const double *", X.ctypes.data)
        if flags.c_contiguous:
            view.row_stride, view.col_stride = X.shape[1], 1
        else:
            view.row_stride, view.col_stride = 1, X.shape[0]
    view.data = buf
    return view, (X, buf)


def double_ptr(a):
    """A const double* over a 1-D float64 array, copied first when it is not
    contiguous and aligned (the cdata keeps the array it points into alive)."""
    a = np.require(a, dtype=np.float64, requirements=["C", "A"])
    return ffi.from_buffer("double[]", a, require_writable=False)


class Progress:
    """State behind the progress callback: verbose output and Ctrl-C.

    The core calls back on the calling thread about every 100 ms. A pending
    SIGINT makes Python raise KeyboardInterrupt inside the callback; we turn
    it into a cancel request, the core stops its workers and returns
    SPORF_E_INTERRUPTED, and `check` raises KeyboardInterrupt to the user.
    """

    def __init__(self, verbose=0, what="trees", stream=None):
        self.verbose = verbose
        self.what = what
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.last_print = -1.0
        self.last_done = -1
        self.interrupted = False

    def update(self, done, total):
        # the core may report the last count twice (the work ends, then the
        # call): each count is printed once
        if self.verbose and done != self.last_done:
            now = time.perf_counter() - self.start
            if done == total or now - self.last_print >= 1.0:
                self.last_print = now
                self.last_done = done
                self.stream.write(
                    "sporf: %d/%d %s (%.1f s)\n" % (done, total, self.what, now)
                )
                self.stream.flush()
        return 0


@ffi.def_extern(onerror=lambda exc, val, tb: 1)
def _sporf_progress(user_data, done, total):
    state = ffi.from_handle(user_data)
    try:
        return state.update(done, total)
    except BaseException:  # KeyboardInterrupt from Ctrl-C, or a broken stream
        state.interrupted = True
        return 1


def progress_args(progress):
    """(callback, user_data, keepalive) for a C call; no callback when None.

    Callbacks can only run Python code in the main thread's signal sense, but
    they are safe from any thread: the core calls them on the calling thread.
    """
    if progress is None:
        return ffi.NULL, ffi.NULL, None
    handle = ffi.new_handle(progress)
    return lib._sporf_progress, handle, handle

