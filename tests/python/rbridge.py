"""R driven in-process through rpy2, for the tests that compare the two
languages: the `r` fixture (the R package found in SPORF_R_LIB, the
Makefile's project-local library) and conversions of Python values to R's.
These tests are never skipped: a machine without R or rpy2 fails them
(``make test`` installs both)."""
import os
import pathlib

import numpy as np
import pytest

import rpy2.rinterface  # noqa: E402  (a missing rpy2 must fail, not skip)
import rpy2.robjects as ro  # noqa: E402
from rpy2.robjects.packages import importr  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden"
REPO = HERE.parent.parent


@pytest.fixture(scope="module")
def r():
    lib = os.environ.get("SPORF_R_LIB", str(REPO / ".rlib"))
    ro.r(".libPaths")(ro.StrVector([lib] + list(ro.r(".libPaths()"))))
    importr("sporf")
    return ro.r


def r_matrix(X):
    X = np.asarray(X, dtype=np.float64)
    return ro.r.matrix(ro.FloatVector(X.ravel(order="F")), nrow=X.shape[0], ncol=X.shape[1])


def r_labels(y):
    y = np.asarray(y)
    if np.issubdtype(y.dtype, np.integer):  # an integer R vector would grow a regression forest
        return ro.r["factor"](ro.IntVector([int(v) for v in y]))
    return ro.StrVector([str(v) for v in y])


def r_value(v):
    if isinstance(v, rpy2.rinterface.Sexp):  # already an R value
        return v
    if v is None:
        return ro.NULL
    if isinstance(v, bool):
        return ro.BoolVector([v])
    if isinstance(v, str):
        return ro.StrVector([v])
    if isinstance(v, (list, tuple, np.ndarray)):
        return ro.FloatVector(list(np.asarray(v, dtype=float)))
    if isinstance(v, dict):
        vec = ro.FloatVector(list(v.values()))
        vec.names = ro.StrVector([str(k) for k in v])
        return vec
    return ro.FloatVector([v])


def r_fit(r, X, y, sample_weight=None, **params):
    kwargs = {k: r_value(v) for k, v in params.items()}
    if sample_weight is not None:
        kwargs["sample_weight"] = ro.FloatVector(np.asarray(sample_weight, dtype=float))
    return r["sporf"](r_matrix(X), r_labels(y), **kwargs)


def r_model_bytes(model):
    return bytes(model.rx2("model"))


def r_proba(r, model, X, n_jobs=1):
    p = r["predict"](model, r_matrix(X), type="prob", n_jobs=n_jobs)
    return np.array(p).reshape(X.shape[0], -1, order="F")
