"""Class labels and feature names as stored in a model: NUL-separated UTF-8
strings plus a kind tag, so Python and R can each restore their own types.

kind 0: text, 1: integer, 2: floating point, 3: logical (stored FALSE/TRUE).
"""
import numpy as np

TEXT, INTEGER, FLOAT, LOGICAL = 0, 1, 2, 3


def encode(values):
    """(kind, blob, count) for a 1-D sequence of labels or names."""
    values = np.asarray(values)
    if values.dtype == bool:
        kind, strings = LOGICAL, ["TRUE" if v else "FALSE" for v in values]
    elif np.issubdtype(values.dtype, np.integer):
        kind, strings = INTEGER, [str(int(v)) for v in values]
    elif np.issubdtype(values.dtype, np.floating):
        kind, strings = FLOAT, [repr(float(v)) for v in values]
    else:
        kind, strings = TEXT, [str(v) for v in values]
    for s in strings:
        if "\0" in s:
            raise ValueError("labels and feature names must not contain NUL characters: %r" % s)
    blob = b"".join(s.encode("utf-8") + b"\0" for s in strings)
    return kind, blob, len(strings)


def decode(kind, blob, count):
    """The numpy array that `encode` was given (up to dtype width)."""
    if count == 0:
        return np.array([], dtype=object)
    strings = blob.decode("utf-8").split("\0")[:-1]
    if len(strings) != count:
        raise ValueError("model labels are corrupt: expected %d strings, found %d" % (count, len(strings)))
    if kind == INTEGER:
        return np.array([int(s) for s in strings], dtype=np.int64)
    if kind == FLOAT:
        return np.array([float(s) for s in strings], dtype=np.float64)
    if kind == LOGICAL:
        return np.array([s.upper() == "TRUE" for s in strings], dtype=bool)
    return np.array(strings, dtype=object)
