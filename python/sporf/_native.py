"""The one module that talks to the compiled core.

Everything above it (parameters, estimators, public functions) passes numpy
arrays and Python values in and gets numpy arrays and Python exceptions back:
here they become the C API's types (matrix views, pointers, the forest
handle) and its status codes become exceptions. Nothing here implements an
algorithm.
"""
import functools
import os
import sys
import time

import numpy as np

from . import _labels
from ._sporf_cffi import ffi, lib

# The core's constants the layers above name.
STR_CLASSES = lib.SPORF_STR_CLASSES
STR_FEATURE_NAMES = lib.SPORF_STR_FEATURE_NAMES
TASK_CLASSIFICATION = lib.SPORF_TASK_CLASSIFICATION
TASK_REGRESSION = lib.SPORF_TASK_REGRESSION
TASK_UNSUPERVISED = lib.SPORF_TASK_UNSUPERVISED
TASK_SURVIVAL = lib.SPORF_TASK_SURVIVAL
TASK_ISOLATION = lib.SPORF_TASK_ISOLATION
PROJ_PATCH = lib.SPORF_PROJ_PATCH
MAX_DIMS = lib.SPORF_MAX_DIMS
TUNE_DENSITY = lib.SPORF_TUNE_DENSITY
TUNE_STRUCTURE = lib.SPORF_TUNE_STRUCTURE
LEAF_CHOSEN = lib.SPORF_LEAF_CHOSEN
LEAF_PENDING_SUMS = lib.SPORF_LEAF_PENDING_SUMS
LEAF_PENDING = lib.SPORF_LEAF_PENDING
FORMS = {"sqrt": lib.SPORF_FORM_SQRT, "log2": lib.SPORF_FORM_LOG2, "count": lib.SPORF_FORM_COUNT,
         "fraction": lib.SPORF_FORM_FRACTION, "all": lib.SPORF_FORM_ALL, "auto": lib.SPORF_FORM_AUTO}

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
    """Training data in the layout the core fits on, with no float64 copy of
    float32 data. float64 goes as it is (the core copies a C-ordered array
    into columns itself); float32 stays float32, column-major (copied, in
    float32, only when it is not), which the core reads in place. Every
    float32 is exactly a float64, so the forest is the one the same values
    in float64 grow."""
    if X.dtype == np.float64:
        return X
    return np.asfortranarray(X, dtype=np.float32)


def matrix_view(X, floats=False):
    """A sporf_matrix over a 2-D float64 array, without copying C- or
    F-ordered arrays; with `floats`, a float32 array is viewed as floats
    (sporf_matrix.data32, which only the fits read) instead of converted.
    Returns (view, keepalive): keep the second alive while the first is in
    use."""
    if type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.size:
        # The common case -- a C-contiguous float64 matrix -- in few steps:
        # one-row prediction is dominated by the per-call cost.
        flags = X.flags
        if flags.c_contiguous and flags.aligned:
            n, p = X.shape
            buf = ffi.from_buffer("double[]", X)
            return ffi.new("sporf_matrix *", [buf, n, p, p, 1]), (X, buf)
    f32 = floats and isinstance(X, np.ndarray) and X.dtype == np.float32
    X = np.asarray(X, dtype=np.float32 if f32 else np.float64)
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
    if f32:
        buf = ffi.cast("const float *", X.ctypes.data)
        view.row_stride, view.col_stride = (X.shape[1], 1) if flags.c_contiguous else (1, X.shape[0])
        view.data32 = buf
        return view, (X, buf)
    if flags.c_contiguous and X.size:
        # The cheap way to the address (one-row prediction is dominated by
        # per-call overhead); the buffer protocol serves C-contiguous memory.
        buf = ffi.from_buffer("double[]", X)
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
    return ffi.from_buffer("double[]", a)


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


class NativeForest:
    """Owns one sporf_forest* (freed when this object is collected)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ffi.gc(ptr, lib.sporf_forest_free)

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        out = ffi.new("sporf_forest **")
        err = new_error()
        check(lib.sporf_forest_load(ffi.from_buffer(data), len(data), out, err), err)
        return cls(out[0])

    def to_bytes(self):
        size = ffi.new("int64_t *")
        err = new_error()
        check(lib.sporf_forest_save(self.ptr, ffi.NULL, 0, size, err), err)
        buf = bytearray(size[0])
        check(lib.sporf_forest_save(self.ptr, ffi.from_buffer(buf), len(buf), size, err), err)
        return bytes(buf)

    def info(self):
        info = ffi.new("sporf_forest_info *")
        err = new_error()
        check(lib.sporf_forest_get_info(self.ptr, info, err), err)
        return info

    def leaf_choice(self):
        """(chosen leaf size or 0, sizes tried, their out-of-bag scores) of a
        fit with min_samples_leaf="auto" (sporf_forest_leaf_choice)."""
        chosen, n_sizes = ffi.new("int64_t *"), ffi.new("int32_t *")
        sizes = np.empty(lib.SPORF_LEAF_SIZES, dtype=np.int64)
        scores = np.empty(lib.SPORF_LEAF_SIZES, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_leaf_choice(self.ptr, chosen, n_sizes, _int64s(sizes), _doubles(scores), err), err)
        return int(chosen[0]), sizes[:n_sizes[0]], scores[:n_sizes[0]]

    def kind_choice(self):
        """(kinds kept or -1, their choices' out-of-bag scores) of a fit with
        splitter="auto" (sporf_forest_kind_choice): 0 all the trees, 1 the
        best-cut trees, 2 the random-cut trees."""
        kept = ffi.new("int32_t *")
        scores = np.empty(lib.SPORF_KIND_CHOICES, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_kind_choice(self.ptr, kept, _doubles(scores), err), err)
        return int(kept[0]), scores

    def trees_to_add(self, tree_from, trees_grown):
        """(trees to grow, trees grown so far) for a warm start to
        trees_grown trees grown from tree_from (sporf_forest_trees_to_add):
        a forest that kept one kind of trees adds that kind's among them."""
        n_add, n_grown = ffi.new("int64_t *"), ffi.new("int64_t *")
        err = new_error()
        check(lib.sporf_forest_trees_to_add(self.ptr, tree_from, trees_grown, n_add, n_grown, err), err)
        return int(n_add[0]), int(n_grown[0])

    def leaf_state(self):
        """(state, words per row) of the forest's leaf choice
        (sporf_forest_leaf_state): LEAF_CHOSEN, LEAF_PENDING_SUMS (a shard
        holding its out-of-bag sums) or LEAF_PENDING (trees from samples)."""
        state, words = ffi.new("int32_t *"), ffi.new("int64_t *")
        err = new_error()
        check(lib.sporf_forest_leaf_state(self.ptr, state, words, err), err)
        return int(state[0]), int(words[0])

    def leaf_sums_rows(self, X, first_row, n_total, response_max, n_jobs):
        """(sums, counts) of the training rows first_row .. of X over the
        trees of a forest that has not chosen its leaf size
        (sporf_forest_leaf_sums_rows)."""
        _, words = self.leaf_state()
        view, keep = matrix_view(X)
        sums = np.empty((X.shape[0], words), dtype=np.int64)
        count = np.empty(X.shape[0], dtype=np.int64)
        err = new_error()
        rc = lib.sporf_forest_leaf_sums_rows(self.ptr, view, first_row, n_total, float(response_max), n_jobs,
                                             _int64s(sums), _int64s(count), err)
        del keep
        check(rc, err)
        return sums, count

    def choose_leaf_size(self, sums, count, n_jobs=1, **response):
        """Choose the leaf size from every training row's sums and
        response (sporf_forest_choose_leaf_size); prunes in place."""
        data, keep_data = fit_data(**response)
        sums = np.require(sums, dtype=np.int64, requirements=["C", "A"])
        count = np.require(count, dtype=np.int64, requirements=["C", "A"])
        err = new_error()
        rc = lib.sporf_forest_choose_leaf_size(self.ptr, data, count.shape[0], _int64s(sums), _int64s(count),
                                               n_jobs, err)
        del keep_data
        check(rc, err)

    def params(self):
        p = ffi.new("sporf_params *")
        err = new_error()
        check(lib.sporf_forest_get_params(self.ptr, p, err), err)
        return p

    def outputs(self):
        """The widths of the forest's outputs' blocks of leaf values: one
        entry per output (its classes; 1 for a regression output)."""
        n = ffi.new("int32_t *")
        err = new_error()
        check(lib.sporf_forest_get_outputs(self.ptr, n, ffi.NULL, err), err)
        widths = np.zeros(n[0], dtype=np.int32)
        check(lib.sporf_forest_get_outputs(self.ptr, n, ffi.from_buffer("int32_t[]", widths), err), err)
        return widths

    def class_weights(self):
        """The custom class weights the forest keeps (one per class), or None."""
        n = self.info().n_classes
        out = np.zeros(max(n, 1), dtype=np.float64)
        stored = ffi.new("int32_t *")
        err = new_error()
        check(lib.sporf_forest_get_class_weights(self.ptr, ffi.from_buffer("double[]", out), stored, err), err)
        return out[:n] if stored[0] else None

    def set_strings(self, which, values):
        kind, blob, count = _labels.encode(values)
        err = new_error()
        buf = ffi.from_buffer(blob) if blob else ffi.NULL
        check(lib.sporf_forest_set_strings(self.ptr, which, kind, buf, len(blob), count, err), err)

    def get_strings(self, which):
        length, count, kind = ffi.new("int64_t *"), ffi.new("int64_t *"), ffi.new("int32_t *")
        err = new_error()
        check(lib.sporf_forest_get_strings(self.ptr, which, ffi.NULL, 0, length, count, kind, err), err)
        buf = bytearray(max(length[0], 1))
        check(lib.sporf_forest_get_strings(self.ptr, which, ffi.from_buffer(buf), len(buf),
                                           length, count, kind, err), err)
        return _labels.decode(kind[0], bytes(buf[: length[0]]), count[0])

    def score_threshold(self):
        """An isolation forest's outlier threshold (an anomaly score)."""
        out = ffi.new("double *")
        err = new_error()
        check(lib.sporf_forest_get_score_threshold(self.ptr, out, err), err)
        return float(out[0])

    def set_score_threshold(self, value):
        err = new_error()
        check(lib.sporf_forest_set_score_threshold(self.ptr, float(value), err), err)

    def set_outlier_share(self, scores, share):
        """The threshold a share of the scores lies above
        (sporf_forest_set_outlier_share): R computes it alike."""
        scores = np.require(scores, dtype=np.float64, requirements=["C", "A"])
        err = new_error()
        check(lib.sporf_forest_set_outlier_share(self.ptr, ffi.from_buffer("double[]", scores), scores.shape[0],
                                                 float(share), err), err)

    def set_levels(self, n_levels, names):
        """Keep the categorical features' level names (n_levels: a count per
        feature, 0 for a numeric one; names: every categorical feature's
        names in position order, features in order)."""
        counts = np.require(n_levels, dtype=np.int32, requirements=["C", "A"])
        blob = b"".join(str(name).encode("utf-8") + b"\0" for name in names)
        err = new_error()
        check(lib.sporf_forest_set_levels(self.ptr, ffi.from_buffer("int32_t[]", counts), blob, len(blob), err),
              err)

    def get_levels(self):
        """(n_levels per feature, list of level-name lists by feature; None
        for a numeric feature), or None when no feature is categorical."""
        err = new_error()
        length = ffi.new("int64_t *")
        check(lib.sporf_forest_get_levels(self.ptr, ffi.NULL, ffi.NULL, 0, length, err), err)
        if length[0] == 0:
            return None
        counts = np.zeros(int(self.info().n_features), dtype=np.int32)
        buf = bytearray(length[0])
        check(lib.sporf_forest_get_levels(self.ptr, ffi.from_buffer("int32_t[]", counts), ffi.from_buffer(buf),
                                          len(buf), length, err), err)
        names = bytes(buf).split(b"\0")[:-1]
        out, at = [], 0
        for c in counts.tolist():
            out.append([n.decode("utf-8") for n in names[at:at + c]] if c > 0 else None)
            at += c
        return out

    # ---- prediction and what a fitted forest knows ----

    def predict_proba(self, X, n_threads, n_out):
        """Mean over trees of the leaf values each row of X reaches."""
        out = np.empty((X.shape[0], n_out))
        if type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.flags.c_contiguous \
                and X.flags.aligned and X.size:
            # The common case in few steps (a one-row call costs microseconds,
            # and each step here counts): the rows' address instead of a
            # sporf_matrix, and no error record. A failed call is made again
            # below with one, for its message (the same one: the core's checks
            # of X are deterministic; a call that failed for memory may
            # succeed the second time).
            if lib.sporf_forest_predict_proba_rows(self.ptr, ffi.from_buffer("double[]", X),
                                                   X.shape[0], X.shape[1], n_threads, ffi.from_buffer("double[]", out),
                                                   ffi.NULL) == lib.SPORF_OK:
                return out
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_predict_proba(self.ptr, view, n_threads, _doubles(out), ffi.NULL, ffi.NULL, err)
        del keep
        check(rc, err)
        return out

    def predict_votes(self, X, n_threads, n_classes):
        """Share of trees voting for each class."""
        out = np.empty((X.shape[0], n_classes), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_predict_votes(self.ptr, view, n_threads, _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def apply(self, X, n_threads):
        """Leaf node index of each row in each tree, (n, n_trees) int64."""
        out = np.empty((X.shape[0], self.info().n_trees), dtype=np.int64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_apply(self.ptr, view, n_threads, _int64s(out), ffi.NULL, ffi.NULL, err)
        del keep
        check(rc, err)
        return out

    def oob_predict(self, X, n_threads, n_out):
        """(values, counts): out-of-bag values of the training rows X from the
        trees' regenerated bootstrap draws, and how many trees left each out."""
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        count = np.zeros(X.shape[0], dtype=np.int64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_predict(self.ptr, view, n_threads, _doubles(out), _int64s(count), err)
        del keep
        check(rc, err)
        return out, count

    def predict_quantiles(self, X, probs, n_threads, oob=False):
        """Conditional quantiles (n, len(probs)) of a quantile forest for the
        rows of X; oob: X is the training data, each row over the trees it
        was out of bag for (NaN when none)."""
        probs = np.require(probs, dtype=np.float64, requirements=["C", "A"])
        out = np.empty((X.shape[0], probs.shape[0]), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        call = lib.sporf_forest_oob_quantiles if oob else lib.sporf_forest_predict_quantiles
        rc = call(self.ptr, view, _doubles(probs), probs.shape[0], n_threads, _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def interval_scores(self, X, y, n_threads, oob=False):
        """Conformity scores (n,) of the rows of X with responses y for
        calibrated intervals; oob: X, y are the training data, each row over
        the trees it was out of bag for (NaN when none)."""
        y = np.require(y, dtype=np.float64, requirements=["C", "A"])
        out = np.empty(X.shape[0], dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        call = lib.sporf_forest_oob_interval_scores if oob else lib.sporf_forest_interval_scores
        rc = call(self.ptr, view, _doubles(y), n_threads, _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def survival_interval_scores(self, X, times, events, n_threads, oob=False):
        """(scores, weights) of the rows of X with their times and event
        flags for calibrated survival intervals; oob: X is the training data,
        each row over the trees it was out of bag for."""
        times = np.require(times, dtype=np.float64, requirements=["C", "A"])
        events = np.require(events, dtype=np.int32, requirements=["C", "A"])
        scores = np.empty(X.shape[0], dtype=np.float64)
        weights = np.empty(X.shape[0], dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        call = lib.sporf_forest_oob_survival_interval_scores if oob else lib.sporf_forest_survival_interval_scores
        rc = call(self.ptr, view, _doubles(times), ffi.from_buffer("int32_t[]", events), n_threads, _doubles(scores),
                  _doubles(weights), err)
        del keep
        check(rc, err)
        return scores, weights

    def oob_survival_interval_scores_rows(self, X, times, events, first_row, n_threads):
        """The out-of-bag survival interval scores (not the weights) of X, the
        training rows first_row .. (a partition of data larger than memory)."""
        times = np.require(times, dtype=np.float64, requirements=["C", "A"])
        events = np.require(events, dtype=np.int32, requirements=["C", "A"])
        scores = np.empty(X.shape[0], dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_survival_interval_scores_rows(self.ptr, view, first_row, _doubles(times),
                                                                ffi.from_buffer("int32_t[]", events), n_threads,
                                                                _doubles(scores), err)
        del keep
        check(rc, err)
        return scores

    def predict_survival_interval(self, X, coverage, scores, weights, n_threads):
        """(n, 2) interval of the event time of each row of X at coverage,
        calibrated by scores and weights (None: uncalibrated)."""
        out = np.empty((X.shape[0], 2), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        if scores is None:
            rc = lib.sporf_forest_predict_survival_interval(self.ptr, view, coverage, ffi.NULL, ffi.NULL, 0, n_threads,
                                                            _doubles(out), err)
        else:
            scores = np.require(scores, dtype=np.float64, requirements=["C", "A"])
            weights = np.require(weights, dtype=np.float64, requirements=["C", "A"])
            rc = lib.sporf_forest_predict_survival_interval(self.ptr, view, coverage, _doubles(scores),
                                                            _doubles(weights), scores.shape[0], n_threads,
                                                            _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def oob_interval_scores_rows(self, X, y, first_row, n_threads):
        """interval_scores(oob=True) for X, the training rows first_row ..
        (a partition of data larger than memory), y their responses."""
        y = np.require(y, dtype=np.float64, requirements=["C", "A"])  # a slice unpickled on a worker: any address
        out = np.empty(X.shape[0], dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_interval_scores_rows(self.ptr, view, first_row, _doubles(y), n_threads,
                                                       _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def predict_interval(self, X, coverage, scores, n_threads):
        """(n, 2) interval of each row of X at coverage, calibrated by
        scores (None: uncalibrated)."""
        out = np.empty((X.shape[0], 2), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        if scores is None:
            rc = lib.sporf_forest_predict_interval(self.ptr, view, coverage, ffi.NULL, 0, n_threads,
                                                   _doubles(out), err)
        else:
            scores = np.require(scores, dtype=np.float64, requirements=["C", "A"])
            rc = lib.sporf_forest_predict_interval(self.ptr, view, coverage, _doubles(scores), scores.shape[0],
                                                   n_threads, _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def predict_survival(self, X, times, n_threads, what="survival", oob=False):
        """Survival S(t) (what "survival"), cumulative hazard H(t) ("chf") or
        the restricted mean to each time ("rmst") of a survival forest at
        times, (n, len(times)); oob: X is the training data, each row over
        the trees it was out of bag for (NaN when none)."""
        times = np.require(times, dtype=np.float64, requirements=["C", "A"])
        out = np.empty((X.shape[0], times.shape[0]), dtype=np.float64)
        view, keep = matrix_view(X)
        err = new_error()
        call = lib.sporf_forest_oob_survival if oob else lib.sporf_forest_predict_survival
        what = {"survival": lib.SPORF_SURVIVAL_FUNCTION, "chf": lib.SPORF_CUMULATIVE_HAZARD,
                "rmst": lib.SPORF_RESTRICTED_MEAN}[what]
        rc = call(self.ptr, view, _doubles(times), times.shape[0], what, n_threads, _doubles(out), err)
        del keep
        check(rc, err)
        return out

    def unique_times(self):
        """A survival forest's distinct training times, ascending, and
        whether a row had its event at each (bool)."""
        n = ffi.new("int64_t *")
        err = new_error()
        check(lib.sporf_forest_unique_times(self.ptr, ffi.NULL, ffi.NULL, 0, n, err), err)
        times = np.empty(n[0], dtype=np.float64)
        flags = np.empty(n[0], dtype=np.int32)
        check(lib.sporf_forest_unique_times(self.ptr, _doubles(times), ffi.from_buffer("int32_t[]", flags), n[0], n,
                                            err), err)
        return times, flags.astype(bool)

    def oob_predict_rows(self, X, first_row, n_total, n_threads, n_out):
        """oob_predict for X, the training rows first_row .. of n_total (a
        partition of data larger than memory)."""
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        count = np.zeros(X.shape[0], dtype=np.int64)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_predict_rows(self.ptr, view, first_row, n_total, n_threads, _doubles(out),
                                               _int64s(count), err)
        del keep
        check(rc, err)
        return out, count

    def oob_curve(self, X, codes=None, y=None):
        """(curve, by_class): out-of-bag error of the first 1, 2, ... trees on
        the training rows X with class codes (int32) or responses y (float64)
        -- a survival forest's with both, event flags and times (1 - Harrell's
        C) -- and with codes alone each class's error rate (n_trees x
        n_classes; else None)."""
        info = self.info()
        curve = np.empty(info.n_trees, dtype=np.float64)
        by_class = (np.empty((info.n_trees, info.n_classes), dtype=np.float64)
                    if codes is not None and y is None else None)
        view, keep = matrix_view(X)
        err = new_error()
        rc = lib.sporf_forest_oob_curve(self.ptr, view, ffi.from_buffer("int32_t[]", codes)
                                        if codes is not None else ffi.NULL, _maybe(double_ptr, y),
                                        _doubles(curve), _maybe(double_ptr, by_class), err)
        del keep
        check(rc, err)
        return curve, by_class

    def permutation_importance(self, X, n_threads, codes=None, y=None, progress=None):
        """(mean, std) per feature of the out-of-bag permutation importance on
        the training rows X with class codes (int32) or responses y (float64)."""
        p = X.shape[1]
        mean = np.empty(p, dtype=np.float64)
        std = np.empty(p, dtype=np.float64)
        view, keep = matrix_view(X)
        cb, user, keep_cb = progress_args(progress)
        err = new_error()
        rc = lib.sporf_forest_permutation_importance(
            self.ptr, view, ffi.from_buffer("int32_t[]", codes) if codes is not None else ffi.NULL,
            _maybe(double_ptr, y), n_threads, cb, user, _doubles(mean), _doubles(std), err)
        del keep, keep_cb
        check(rc, err)
        return mean, std

    def get_tree(self, t):
        """Tree t's node arrays (sporf_forest_get_tree) as a dict of numpy arrays."""
        n_nodes, n_proj = ffi.new("int32_t *"), ffi.new("int32_t *")
        err = new_error()
        null = [ffi.NULL] * 10
        check(lib.sporf_forest_get_tree(self.ptr, t, n_nodes, n_proj, *null, err), err)
        n, m, K = n_nodes[0], n_proj[0], self.info().n_classes
        out = {name: np.empty(n, dtype=np.int32) for name in ("left", "right", "proj_start", "proj_len", "missing")}
        out.update(threshold=np.empty(n), gain=np.empty(n), value=np.empty((n, K)),
                   proj_feature=np.empty(max(m, 1), dtype=np.int32), proj_weight=np.empty(max(m, 1)))
        i32 = lambda a: ffi.from_buffer("int32_t[]", a)
        check(lib.sporf_forest_get_tree(
            self.ptr, t, n_nodes, n_proj, i32(out["left"]), i32(out["right"]), i32(out["proj_start"]),
            i32(out["proj_len"]), i32(out["proj_feature"]), _doubles(out["proj_weight"]), _doubles(out["threshold"]),
            i32(out["missing"]), _doubles(out["gain"]), _doubles(out["value"]), err), err)
        out["proj_feature"], out["proj_weight"] = out["proj_feature"][:m], out["proj_weight"][:m]
        return out

    def feature_usage(self, n_features):
        out = np.empty(n_features, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_feature_usage(self.ptr, _doubles(out), err), err)
        return out

    def feature_importances(self, n_features):
        out = np.empty(n_features, dtype=np.float64)
        err = new_error()
        check(lib.sporf_forest_feature_importances(self.ptr, _doubles(out), err), err)
        return out

    def projection_importances(self):
        """(start, feature, weight, importance): projection i has the
        features feature[start[i]:start[i+1]] with those weights."""
        n, nnz = ffi.new("int64_t *"), ffi.new("int64_t *")
        err = new_error()
        check(lib.sporf_forest_projection_importances(self.ptr, n, nnz, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL,
                                                      err), err)
        start = np.empty(n[0] + 1, dtype=np.int64)
        feature = np.empty(max(nnz[0], 1), dtype=np.int32)
        weight = np.empty(max(nnz[0], 1), dtype=np.float64)
        importance = np.empty(max(n[0], 1), dtype=np.float64)
        check(lib.sporf_forest_projection_importances(
            self.ptr, n, nnz, _int64s(start), ffi.from_buffer("int32_t[]", feature), _doubles(weight),
            _doubles(importance), err), err)
        return start, feature, weight, importance[: n[0]]

    # ---- proximity ----

    def neighbors(self, reference, query, k, n_jobs, progress=None):
        """(similarity, index), each (n_query, k), most similar first; query
        None: the reference rows themselves."""
        n_query = reference.shape[0] if query is None else query.shape[0]
        index = np.empty((n_query, k), dtype=np.int64)
        sim = np.empty((n_query, k), dtype=np.float64)
        rview, rkeep = matrix_view(reference)
        qview, qkeep = matrix_view(query) if query is not None else (ffi.NULL, None)
        cb, user, keep_cb = progress_args(progress)
        err = new_error()
        rc = lib.sporf_forest_neighbors(self.ptr, rview, qview, k, n_jobs, _int64s(index), _doubles(sim),
                                        cb, user, err)
        del rkeep, qkeep, keep_cb
        check(rc, err)
        return sim, index

    def proximity_dense(self, reference, query, n_jobs):
        """The (n_query, n_reference) proximity matrix."""
        n_query = reference.shape[0] if query is None else query.shape[0]
        out = np.empty((n_query, reference.shape[0]), dtype=np.float64)
        rview, rkeep = matrix_view(reference)
        qview, qkeep = matrix_view(query) if query is not None else (ffi.NULL, None)
        err = new_error()
        rc = lib.sporf_forest_proximity_dense(self.ptr, rview, qview, n_jobs, _doubles(out), ffi.NULL, ffi.NULL,
                                              err)
        del rkeep, qkeep
        check(rc, err)
        return out


def save_bytes(path, data):
    """Write atomically: a crash mid-write never leaves a truncated model.
    An error names the path the caller gave, not the temporary file beside it."""
    path = os.fspath(path)
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise FileNotFoundError("cannot write %s: its folder %s does not exist" % (path, folder))
    tmp = path + ".tmp-%d" % os.getpid()
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise type(exc)(exc.errno, "cannot write %s: %s" % (path, exc.strerror)) from None


def merge(natives):
    """One NativeForest from a sequence of NativeForests (core checks)."""
    ptrs = ffi.new("sporf_forest *[]", [f.ptr for f in natives])
    out = ffi.new("sporf_forest **")
    err = new_error()
    check(lib.sporf_forest_merge(ptrs, len(natives), out, err), err)
    return NativeForest(out[0])


def _doubles(a):
    return ffi.from_buffer("double[]", a)


def _int64s(a):
    return ffi.from_buffer("int64_t[]", a)


def _maybe(ptr_of, a):
    return ptr_of(a) if a is not None else ffi.NULL


# ---- parameters ----

def tree_draws(params, n_total, tree):
    """(rows, counts): the distinct rows tree `tree` of params' trees draws
    from n_total rows, ascending, and how often (sporf_tree_draws)."""
    m = ffi.new("int64_t *")
    err = new_error()
    check(lib.sporf_tree_draws(params, n_total, tree, ffi.NULL, ffi.NULL, m, err), err)  # room for the draws
    rows = np.empty(m[0], dtype=np.int64)
    counts = np.empty(m[0], dtype=np.int32)
    check(lib.sporf_tree_draws(params, n_total, tree, _int64s(rows), ffi.from_buffer("int32_t[]", counts), m, err),
          err)
    return rows[:m[0]].copy(), counts[:m[0]].copy()


def fit_sample(params, X, rows, n_total, *, codes=None, n_classes=0, y=None, sample_weight=None,
               weight_per_class=None, impute=None, events=None, all_y=None, all_events=None,
               all_sample_weight=None):
    """Grow params' trees from X, the rows `rows` (ascending) of n_total
    training rows holding every row the trees draw (sporf_fit_data.rows).
    A quantile or survival forest also takes every row's response (all_y,
    all_events, all_sample_weight: n_total each)."""
    # contiguous and aligned: arrays unpickled on a worker may sit at any address
    rows = np.require(rows, dtype=np.int64, requirements=["C", "A"])
    impute = None if impute is None else np.require(impute, dtype=np.float64, requirements=["C", "A"])
    data, keep_data = fit_data(codes=codes, n_classes=n_classes, y=y, sample_weight=sample_weight,
                               weight_per_class=weight_per_class, events=events)
    data.rows = _int64s(rows)
    data.n_total = n_total
    data.impute = _maybe(_doubles, impute)
    all_y = None if all_y is None else np.require(all_y, dtype=np.float64, requirements=["C", "A"])
    all_events = None if all_events is None else np.require(all_events, dtype=np.int32, requirements=["C", "A"])
    all_sw = None if all_sample_weight is None else np.require(all_sample_weight, dtype=np.float64,
                                                               requirements=["C", "A"])
    data.all_values = _maybe(_doubles, all_y)
    if all_events is not None:
        data.all_events = ffi.from_buffer("int32_t[]", all_events)
    data.all_sample_weight = _maybe(_doubles, all_sw)
    view, keep = matrix_view(X)
    out = ffi.new("sporf_forest **")
    err = new_error()
    rc = lib.sporf_forest_fit(params, view, data, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, out, err)
    del keep, keep_data
    check(rc, err)
    return NativeForest(out[0])


def fingerprint(X):
    """The training rows' fingerprint (sporf_rows_fingerprint): R computes
    the same number for the same values (NA and NaN alike)."""
    view, keep = matrix_view(X, floats=True)
    out = ffi.new("uint64_t *")
    err = new_error()
    check(lib.sporf_rows_fingerprint(view, out, err), err)
    del keep
    return int(out[0])


def censoring_weights(times, events):
    """1 / G(T-) for each row with an event, 0 for censored rows
    (sporf_survival_censoring_weights)."""
    times = np.require(times, dtype=np.float64, requirements=["C", "A"])
    events = np.require(events, dtype=np.int32, requirements=["C", "A"])
    out = np.empty(times.shape[0], dtype=np.float64)
    err = new_error()
    check(lib.sporf_survival_censoring_weights(_doubles(times), ffi.from_buffer("int32_t[]", events), times.shape[0],
                                               _doubles(out), err), err)
    return out


def order_levels(codes, n_levels, *, codes_y=None, n_classes=0, y=None, sample_weight=None):
    """Positions of a categorical feature's levels (NaN for a level no row
    has), ordered by the response (sporf.h, sporf_order_levels)."""
    codes = np.require(codes, dtype=np.float64, requirements=["C", "A"])
    codes_y = None if codes_y is None else np.require(codes_y, dtype=np.int32, requirements=["C", "A"])
    y = None if y is None else np.require(y, dtype=np.float64, requirements=["C", "A"])
    sample_weight = None if sample_weight is None else np.require(sample_weight, dtype=np.float64, requirements=["C", "A"])
    out = np.empty(n_levels, dtype=np.float64)
    err = new_error()
    y_codes = ffi.NULL if codes_y is None else ffi.from_buffer("int32_t[]", codes_y)
    check(lib.sporf_order_levels(_doubles(codes), codes.shape[0], 1, n_levels, y_codes, n_classes,
                                 _maybe(_doubles, y), _maybe(_doubles, sample_weight), _doubles(out), err), err)
    return out


def new_params():
    """A sporf_params struct with the core's defaults (ffi-owned)."""
    p = ffi.new("sporf_params *")
    lib.sporf_params_init(p)
    return p


def check_params(p, n_features):
    """The core's check of p for data with n_features columns: ValueError
    with its message."""
    err = new_error()
    rc = lib.sporf_params_check(p, n_features, err)
    if rc != lib.SPORF_OK:
        raise ValueError(ffi.string(err.message).decode())


@functools.cache
def num_cores():
    """The cores the core counts for n_jobs < 0, asked once a process (the
    question costs 6 us, which one-row predictions would pay); R does the same."""
    return int(lib.sporf_num_cores())


def physical_memory():
    """The machine's memory in bytes, or 0 when unknown."""
    return int(lib.sporf_physical_memory())


# ---- fitting ----

def fit_data(*, codes=None, n_classes=0, y=None, sample_weight=None, weight_per_class=None, events=None):
    """The sporf_fit_data of a response -- class codes (int32, n_classes: a
    count, or one per output), numbers y (float64), times y with their event
    flags events (int32 0/1: a survival response), or none -- of one output
    (1-D) or several (2-D, row by row as the core reads them), and the arrays
    it points into (keep them alive while the core reads them)."""
    data = ffi.new("sporf_fit_data *")
    target = codes if codes is not None else y
    # contiguous and aligned: arrays unpickled on a worker may sit at any address
    target = None if target is None else np.require(target, dtype=np.int32 if codes is not None else np.float64,
                                                   requirements=["C", "A"])
    counts = np.require(np.atleast_1d(n_classes) if codes is not None else [], dtype=np.int32,
                        requirements=["C", "A"])
    weights = None if sample_weight is None else np.require(sample_weight, dtype=np.float64,
                                                            requirements=["C", "A"])
    per_class = None if weight_per_class is None else np.require(weight_per_class, dtype=np.float64,
                                                                 requirements=["C", "A"])
    data.response = lib.SPORF_RESPONSE_CLASSES if codes is not None else (
        lib.SPORF_RESPONSE_SURVIVAL if events is not None else
        lib.SPORF_RESPONSE_VALUES if y is not None else lib.SPORF_RESPONSE_NONE)
    flags = None if events is None else np.require(events, dtype=np.int32, requirements=["C", "A"])
    if flags is not None:
        data.events = ffi.from_buffer("int32_t[]", flags)
    data.n_outputs = target.shape[1] if target is not None and target.ndim == 2 else 1
    if codes is not None:
        data.codes = ffi.from_buffer("int32_t[]", target)
        data.n_classes = ffi.from_buffer("int32_t[]", counts)
    elif y is not None:
        data.values = _doubles(target)
    data.sample_weight = _maybe(_doubles, weights)
    data.class_weights = _maybe(_doubles, per_class)
    return data, (target, counts, weights, per_class, flags)


def fit(params, X, *, codes=None, n_classes=0, y=None, sample_weight=None, weight_per_class=None, events=None,
        oob_n_out=0, tune_grid=None, progress=None, shard=False):
    """Grow a forest on X (2-D float64, or float32 read as it is): a classifier on class codes (int32,
    n_classes), a regressor on y (float64), or an unsupervised forest
    (neither). Multi-output y: codes (n, n_outputs) with n_classes a list
    of each output's class count, or y (n, n_outputs). oob_n_out > 0 also
    fills the out-of-bag values; tune_grid (a TUNE_* constant) runs the
    out-of-bag tuning instead of one fit. shard: the fit grows a shard of
    a larger forest (first_tree given: sporf_fit_data.shard). Returns
    (NativeForest, oob values or None, oob counts or None, the tuning report
    or None)."""
    n = X.shape[0]
    if X.dtype == np.float32 and tune_grid is not None:
        X = np.asfortranarray(X, dtype=np.float64)  # the tuning's out-of-bag passes read float64
    # float32: the core grows the trees on it as it is and the caller computes
    # the out-of-bag values afterwards, which read float64
    oob_n_out = 0 if X.dtype == np.float32 else oob_n_out
    data, keep_data = fit_data(codes=codes, n_classes=max(n_classes, 1) if np.ndim(n_classes) == 0 else n_classes,
                               y=y, sample_weight=sample_weight, weight_per_class=weight_per_class, events=events)
    data.shard = 1 if shard else 0
    oob = np.zeros((n, oob_n_out), dtype=np.float64) if oob_n_out and tune_grid is None else None
    oob_count = np.zeros(n, dtype=np.int64) if oob is not None else None
    view, keep = matrix_view(X, floats=True)
    cb, user, keep_cb = progress_args(progress)
    out = ffi.new("sporf_forest **")
    err = new_error()
    tuning = ffi.new("sporf_tune_result *") if tune_grid is not None else None
    if tuning is not None:
        rc = lib.sporf_forest_tune_oob(params, tune_grid, view, data, tuning, cb, user, out, err)
    else:
        rc = lib.sporf_forest_fit(params, view, data, _maybe(_doubles, oob), _maybe(_int64s, oob_count), cb, user,
                                  out, err)
    del keep_data
    del keep, keep_cb
    check(rc, err)
    return NativeForest(out[0]), oob, oob_count, tuning


def concordance_index(time, event, risk):
    """Harrell's C of risk against right-censored (time, event) (sporf_concordance_index)."""
    time = np.require(time, dtype=np.float64, requirements=["C", "A"])
    event = np.require(event, dtype=np.int32, requirements=["C", "A"])
    risk = np.require(risk, dtype=np.float64, requirements=["C", "A"])
    out = ffi.new("double *")
    err = new_error()
    check(lib.sporf_concordance_index(_doubles(time), ffi.from_buffer("int32_t[]", event), _doubles(risk),
                                      time.shape[0], out, err), err)
    return float(out[0])
