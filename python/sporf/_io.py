"""The native forest handle, its model bytes, and sporf.load()."""
import os

import numpy as np

from . import _labels
from ._core import check, new_error
from ._sporf_cffi import ffi, lib


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

    def params(self):
        p = ffi.new("sporf_params *")
        err = new_error()
        check(lib.sporf_forest_get_params(self.ptr, p, err), err)
        return p

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


def save_bytes(path, data):
    """Write atomically: a crash mid-write never leaves a truncated model."""
    path = os.fspath(path)
    tmp = path + ".tmp-%d" % os.getpid()
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def load(source):
    """Load a model saved by ``save()`` in Python or ``sporf_save()`` in R.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like or binary file object
        A file written by :meth:`SPORFClassifier.save` or R's ``sporf_save``:
        its path, its bytes (``to_bytes()``; ``bytes``, ``bytearray`` or
        ``memoryview``), or a file object opened in binary mode (read to
        its end, as ``pickle.load`` does).

    Returns
    -------
    estimator : SPORFClassifier, SPORFRegressor, MORFClassifier, MORFRegressor or URerF
        A fitted estimator of the kind that was saved (MORF for a patch
        forest, a regressor for a regression forest, URerF for an
        unsupervised forest, which does not keep its training rows in the
        file) with the stored
        parameters, ``n_features_in_``, ``classes_`` (classifiers) and (when
        stored) ``feature_names_in_``.
        Out-of-bag results are not part of the model file.

    Raises
    ------
    ValueError
        If the file is not a sporf model, or is truncated or corrupt.

    Examples
    --------
    >>> import sporf, tempfile, os
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(200, n_features=5, random_state=0)
    >>> clf = sporf.SPORFClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.sporf")
    >>> clf.save(path)
    >>> again = sporf.load(path)
    >>> bool((again.predict_proba(X) == clf.predict_proba(X)).all())
    True
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("load() needs a file opened in binary mode ('rb'); this one returned %s"
                            % type(data).__name__)
        data = bytes(data)
    elif isinstance(source, (str, os.PathLike)):
        with open(os.fspath(source), "rb") as fh:
            data = fh.read()
    else:
        raise TypeError("load() takes a path, the model's bytes or a binary file object; got %s"
                        % type(source).__name__)
    from ._forest import SPORFClassifier, SPORFRegressor
    from ._morf import MORFClassifier, MORFRegressor
    from ._urerf import URerF

    forest = NativeForest.from_bytes(data)
    patch = forest.params().projection == lib.SPORF_PROJ_PATCH
    task = forest.info().task
    if task == lib.SPORF_TASK_UNSUPERVISED:
        cls = URerF
    elif task == lib.SPORF_TASK_REGRESSION:
        cls = MORFRegressor if patch else SPORFRegressor
    else:
        cls = MORFClassifier if patch else SPORFClassifier
    return cls._from_native(forest)
