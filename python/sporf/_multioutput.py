"""Multi-output y as scikit-learn's forests take it: a 2-D y, one column per
output. The core grows one tree for all outputs and keeps each output's
class distribution or mean side by side in a leaf (K values in all); this
module turns y into what the core takes and the K columns back into one
result per output. No C calls: the estimators pass the arrays through.
"""
import re
import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning


_TIME = re.compile(r"time|days|months|years|futime|stop", re.I)
_EVENT = re.compile(r"status|event|dead|death|died|censor|fail|delta", re.I)


def refuse_survival_pair(y):
    """A DataFrame y of two columns that read as a survival time and its event
    flag (0/1 or 1/2) by their names: what survival users give before they
    reach for SPORFSurvival, which a two-output regression would fit without
    a word. Refused with the form to use (R refuses the same pair)."""
    columns = getattr(y, "columns", None)
    if columns is None or len(columns) != 2:
        return
    names = [str(c) for c in columns]
    time = [bool(_TIME.search(n)) for n in names]
    event = [bool(_EVENT.search(n)) for n in names]
    e = 1 if time[0] and event[1] else 0 if time[1] and event[0] else None
    if e is None:
        return
    flag = np.asarray(y.iloc[:, e])
    if flag.dtype.kind not in "biuf":
        return
    codes = set(np.unique(flag[~np.isnan(flag.astype(float))]).tolist())
    if not (codes <= {0, 1} or codes <= {1, 2}):
        return
    t = names[1 - e]
    raise ValueError("y's columns %s and %s read as a survival time and its event flag: for a survival forest use "
                     "SPORFSurvival().fit(X, (y[%r] %s, y[%r]))%s (as a two-output regression, name the columns "
                     "otherwise)" % (t, names[e], names[e], "== 2" if codes <= {1, 2} and 2 in codes else "== 1", t,
                                     " (status 1/2: 2 is the event)" if codes <= {1, 2} and 2 in codes else ""))


def as_outputs(y, what):
    """y as 1-D for one output, or 2-D (n, n_outputs) for several. A column
    vector is one output, with scikit-learn's warning."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape of y to "
                      "(n_samples,), for example using ravel().", DataConversionWarning, stacklevel=4)
        return y[:, 0]
    if y.ndim > 2 or (y.ndim == 2 and y.shape[1] == 0):
        raise ValueError("%s: y must be 1-D, or 2-D with one column per output; got shape %r" % (what, y.shape))
    return y


def class_codes(y):
    """(classes, int32 codes) of a 1-D y of labels: np.unique(y,
    return_inverse=True), the classes sorted. Integer labels of a range
    not much wider than y are counted instead of sorted: on 10,000,000 rows
    0.1 s instead of 1 s."""
    if y.dtype.kind in "iu" and y.size:
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 4 * y.size + 1024 and np.iinfo(np.intp).min <= lo and hi <= np.iinfo(np.intp).max:
            shifted = y if lo == 0 and y.dtype == np.intp else y.astype(np.intp) - lo
            present = np.flatnonzero(np.bincount(shifted, minlength=hi - lo + 1))
            position = np.empty(hi - lo + 1, dtype=np.int32)
            position[present] = np.arange(present.size, dtype=np.int32)
            return (present + lo).astype(y.dtype), position.take(shifted)
    classes, codes = np.unique(y, return_inverse=True)
    return classes, np.ascontiguousarray(codes.reshape(-1), dtype=np.int32)


def encode_classes(y):
    """(classes per output, int32 codes (n, n_outputs), classes per output
    counted) for a 2-D y of labels."""
    classes, codes = [], np.empty(y.shape, dtype=np.int32)
    for j in range(y.shape[1]):
        c, codes[:, j] = class_codes(y[:, j])
        classes.append(c)
    return classes, codes, [len(c) for c in classes]


def _bounds(widths):
    bounds = np.concatenate([[0], np.cumsum(widths)]).astype(int)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def split(values, widths):
    """The (n, K) leaf values as one (n, width) block per output."""
    return [values[:, a:b] for a, b in _bounds(widths)]


def split_classes(labels, widths):
    """The forest's stored class labels (all outputs' in order) by output."""
    labels = np.asarray(labels)
    return [labels[a:b] for a, b in _bounds(widths)]


def predicted_labels(probas, classes):
    """Each output's most probable class, as an (n, n_outputs) array."""
    return np.column_stack([c.take(np.argmax(p, axis=1), axis=0) for p, c in zip(probas, classes)])


def refuse(estimator, what):
    """What a multi-output forest does not do, refused by name."""
    raise ValueError("%s: %s is for single-output y (this forest was fitted on %d outputs)"
                     % (type(estimator).__name__, what, estimator.n_outputs_))
