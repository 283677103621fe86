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


def merge_native(natives):
    """One NativeForest from a sequence of NativeForests (core checks)."""
    ptrs = ffi.new("sporf_forest *[]", [f.ptr for f in natives])
    out = ffi.new("sporf_forest **")
    err = new_error()
    check(lib.sporf_forest_merge(ptrs, len(natives), out, err), err)
    return NativeForest(out[0])
