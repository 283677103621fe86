"""Emit the C source of the cffi extension (API mode, out-of-line).

Run by meson at build time: ``python _build_ffi.py sporf.h out.c``. The
declarations are read from the marked block of the public header, so the
header stays the single source of truth for both bindings.
"""
import sys

import cffi

BEGIN, END = "/* SPORF_CDEF_BEGIN */", "/* SPORF_CDEF_END */"


def cdef_from_header(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def main(header, output):
    ffi = cffi.FFI()
    ffi.cdef(cdef_from_header(header))
    # The progress/cancel callback is implemented in Python (sporf/_native.py).
    ffi.cdef('extern "Python" int _sporf_progress(void *, int64_t, int64_t);')
    ffi.set_source("sporf._sporf_cffi", '#include "sporf.h"')
    ffi.emit_c_code(output)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
