"""Validation of estimator parameters and their conversion into the core's
sporf_params struct. Messages name the parameter and the value received."""
import numbers
import os

import numpy as np
from sklearn.utils import check_random_state

from ._sporf_cffi import ffi, lib

PROJECTIONS = {"sparse": lib.SPORF_PROJ_SPARSE, "axis": lib.SPORF_PROJ_AXIS, "frc": lib.SPORF_PROJ_FRC,
               "gaussian": lib.SPORF_PROJ_GAUSSIAN, "poisson": lib.SPORF_PROJ_POISSON}
BOUNDARIES = {"inside": lib.SPORF_BOUNDARY_INSIDE, "pad": lib.SPORF_BOUNDARY_PAD, "wrap": lib.SPORF_BOUNDARY_WRAP}
BOUNDARY_NAMES = {v: k for k, v in BOUNDARIES.items()}
PATCH_WEIGHTS = {"uniform": lib.SPORF_PATCH_UNIFORM, "gaussian": lib.SPORF_PATCH_GAUSSIAN}
PATCH_WEIGHT_NAMES = {v: k for k, v in PATCH_WEIGHTS.items()}
CRITERIA = {"gini": lib.SPORF_CRIT_GINI, "entropy": lib.SPORF_CRIT_ENTROPY,
            "log_loss": lib.SPORF_CRIT_ENTROPY}
REGRESSION_CRITERIA = {"squared_error": lib.SPORF_CRIT_SQUARED_ERROR}
UNSUPERVISED_CRITERIA = {"fastbic": lib.SPORF_CRIT_FASTBIC, "twomeans": lib.SPORF_CRIT_TWOMEANS}
PROJECTION_NAMES = {v: k for k, v in PROJECTIONS.items()}
CRITERION_NAMES = {lib.SPORF_CRIT_GINI: "gini", lib.SPORF_CRIT_ENTROPY: "entropy",
                   lib.SPORF_CRIT_SQUARED_ERROR: "squared_error", lib.SPORF_CRIT_FASTBIC: "fastbic",
                 lib.SPORF_CRIT_TWOMEANS: "twomeans"}
HONEST_PRIORS = {"empirical": lib.SPORF_HONEST_EMPIRICAL, "uniform": lib.SPORF_HONEST_UNIFORM,
                 "ignore": lib.SPORF_HONEST_IGNORE}
HONEST_PRIOR_NAMES = {v: k for k, v in HONEST_PRIORS.items()}


def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _bad(name, owner, expected, value):
    return ValueError(
        "The %r parameter of %s must be %s. Got %r instead." % (name, owner, expected, value)
    )


def resolve_n_jobs(n_jobs):
    """joblib's convention: None -> 1, -1 -> all cores, -2 -> all but one..."""
    if n_jobs is None:
        return 1
    if type(n_jobs) is int and n_jobs > 0:  # the common case, without the ABC checks
        return n_jobs
    if not _is_int(n_jobs) or n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero integer or None, got %r" % (n_jobs,))
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


def resolve_seed(random_state):
    """An int random_state is the core's master seed as is (R does the same);
    otherwise a seed is drawn from the given or global numpy generator."""
    if _is_int(random_state):
        if random_state < 0:
            raise ValueError("random_state must be a non-negative integer, got %r" % (random_state,))
        return int(random_state) & 0xFFFFFFFFFFFFFFFF
    rs = check_random_state(random_state)
    return int(rs.randint(0, np.iinfo(np.int32).max))


def _per_axis(value, name, owner, n_dims, default, check, expected):
    """A per-axis setting: None (the default for every axis), a scalar for
    every axis, or a sequence with one entry per axis of data_dims."""
    if value is None:
        return [default(k) for k in range(n_dims)]
    if np.isscalar(value) or isinstance(value, str):
        values = [value] * n_dims
    else:
        values = list(value)
        if len(values) != n_dims:
            raise _bad(name, owner, "a value or a sequence of %d values (one per axis of data_dims)" % n_dims, value)
    for v in values:
        if not check(v):
            raise _bad(name, owner, expected, value)
    return values


def resolve_data_dims(data_dims, n_features, owner):
    """data_dims as a tuple of ints whose product is n_features."""
    if data_dims is None:
        return (int(n_features),)
    dims = (data_dims,) if _is_int(data_dims) else tuple(data_dims) if not isinstance(data_dims, str) else None
    if not dims or len(dims) > lib.SPORF_MAX_DIMS or not all(_is_int(d) and d >= 1 for d in dims):
        raise _bad("data_dims", owner, "a sequence of 1 to %d positive ints" % lib.SPORF_MAX_DIMS, data_dims)
    dims = tuple(int(d) for d in dims)
    if int(np.prod(dims)) != n_features:
        raise ValueError("data_dims %r describe %d features, but X has %d features"
                         % (dims, int(np.prod(dims)), n_features))
    return dims


def _set_patch(est, owner, p, dims):
    p.projection = lib.SPORF_PROJ_PATCH
    nd = len(dims)
    p.n_dims = nd
    lo = _per_axis(est.min_patch_dims, "min_patch_dims", owner, nd, lambda k: 1,
                   lambda v: _is_int(v) and v >= 1, "None, an int >= 1 or one such int per axis")
    hi = _per_axis(est.max_patch_dims, "max_patch_dims", owner, nd,
                   lambda k: max(lo[k], min(dims[k], int(np.ceil(np.sqrt(dims[k]))))),
                   lambda v: _is_int(v) and v >= 1, "None, an int >= 1 or one such int per axis")
    bd = _per_axis(est.boundary, "boundary", owner, nd, lambda k: "pad",
                   lambda v: v in BOUNDARIES, "one of %s, or one per axis" % sorted(BOUNDARIES))
    dc = _per_axis(est.dim_contiguous, "dim_contiguous", owner, nd, lambda k: True,
                   lambda v: isinstance(v, (bool, np.bool_)), "None, a bool or one bool per axis")
    if est.patch_weights not in PATCH_WEIGHTS:
        raise _bad("patch_weights", owner, "one of %s" % sorted(PATCH_WEIGHTS), est.patch_weights)
    for k in range(nd):
        p.data_dims[k] = dims[k]
        p.min_patch_dims[k] = int(lo[k])
        p.max_patch_dims[k] = int(hi[k])
        p.boundary[k] = BOUNDARIES[bd[k]]
        p.dim_contiguous[k] = int(bool(dc[k]))
    p.patch_weights = PATCH_WEIGHTS[est.patch_weights]


def build(est, n_samples, n_features, data_dims=None, regression=False, unsupervised=False):
    """Validate `est`'s parameters for data of this shape; return a
    ffi-owned sporf_params. `data_dims` (resolved) makes it a patch forest.
    Parameters an estimator does not have (an unsupervised forest has no
    honesty, OOB or class weights) take the core's defaults."""
    owner = type(est).__name__
    p = ffi.new("sporf_params *")
    lib.sporf_params_init(p)

    if not _is_int(est.n_estimators) or est.n_estimators < 1:
        raise _bad("n_estimators", owner, "an int >= 1", est.n_estimators)
    p.n_estimators = int(est.n_estimators)

    if data_dims is not None:
        _set_patch(est, owner, p, data_dims)
    else:
        if est.projection not in PROJECTIONS:
            raise _bad("projection", owner, "one of %s" % sorted(PROJECTIONS), est.projection)
        p.projection = PROJECTIONS[est.projection]
        fc = est.feature_combinations
        if not _is_real(fc) or not np.isfinite(fc) or fc <= 0:
            raise _bad("feature_combinations", owner, "a finite number > 0", fc)
        p.feature_combinations = float(fc)

    mf = est.max_features
    if mf is None:
        p.max_features_mode = lib.SPORF_MAXF_ALL
    elif isinstance(mf, str):
        if mf not in ("sqrt", "log2"):
            raise _bad("max_features", owner, "'sqrt', 'log2', None, an int >= 1 or a float > 0", mf)
        p.max_features_mode = lib.SPORF_MAXF_SQRT if mf == "sqrt" else lib.SPORF_MAXF_LOG2
    elif _is_int(mf):
        if mf < 1:
            raise _bad("max_features", owner, "'sqrt', 'log2', None, an int >= 1 or a float > 0", mf)
        p.max_features_mode = lib.SPORF_MAXF_INT
        p.max_features_value = float(mf)
    elif _is_real(mf):
        if not np.isfinite(mf) or mf <= 0:
            raise _bad("max_features", owner, "'sqrt', 'log2', None, an int >= 1 or a float > 0", mf)
        p.max_features_mode = lib.SPORF_MAXF_FRACTION
        p.max_features_value = float(mf)
    else:
        raise _bad("max_features", owner, "'sqrt', 'log2', None, an int >= 1 or a float > 0", mf)

    criteria = UNSUPERVISED_CRITERIA if unsupervised else REGRESSION_CRITERIA if regression else CRITERIA
    if not isinstance(est.criterion, str) or est.criterion not in criteria:
        raise _bad("criterion", owner, "one of %s" % ", ".join(repr(c) for c in criteria), est.criterion)
    p.criterion = criteria[est.criterion]

    hf = getattr(est, "honest_fraction", 0.0)
    if not _is_real(hf) or not (0.0 <= hf < 1.0):
        raise _bad("honest_fraction", owner, "a float in [0, 1)", hf)
    p.honest_fraction = float(hf)
    priors = ("empirical", "ignore") if regression else tuple(HONEST_PRIORS)
    hp = getattr(est, "honest_prior", "empirical")
    if not isinstance(hp, str) or hp not in priors:
        raise _bad("honest_prior", owner, "one of %s" % ", ".join(repr(c) for c in priors), hp)
    p.honest_prior = HONEST_PRIORS[hp]

    if est.max_depth is not None:
        if not _is_int(est.max_depth) or est.max_depth < 1:
            raise _bad("max_depth", owner, "None or an int >= 1", est.max_depth)
        p.max_depth = int(est.max_depth)

    mss = est.min_samples_split
    mss_expected = "an int >= 2, a float in (0, 1] or 'sqrt'"
    if _is_int(mss):
        if mss < 2:
            raise _bad("min_samples_split", owner, mss_expected, mss)
        p.min_samples_split = int(mss)
    elif isinstance(mss, str) and mss == "sqrt":
        p.min_samples_split = max(2, int(np.ceil(np.sqrt(n_samples))))
    elif _is_real(mss) and 0.0 < mss <= 1.0:
        p.min_samples_split = max(2, int(np.ceil(mss * n_samples)))
    else:
        raise _bad("min_samples_split", owner, mss_expected, mss)

    msl = est.min_samples_leaf
    if _is_int(msl):
        if msl < 1:
            raise _bad("min_samples_leaf", owner, "an int >= 1 or a float in (0, 1)", msl)
        p.min_samples_leaf = int(msl)
    elif _is_real(msl) and 0.0 < msl < 1.0:
        p.min_samples_leaf = max(1, int(np.ceil(msl * n_samples)))
    else:
        raise _bad("min_samples_leaf", owner, "an int >= 1 or a float in (0, 1)", msl)

    mid = est.min_impurity_decrease
    if not _is_real(mid) or not np.isfinite(mid) or mid < 0:
        raise _bad("min_impurity_decrease", owner, "a float >= 0", mid)
    p.min_impurity_decrease = float(mid)

    mwf = getattr(est, "min_weight_fraction_leaf", 0.0)
    if not _is_real(mwf) or not (0.0 <= mwf <= 0.5):
        raise _bad("min_weight_fraction_leaf", owner, "a float in [0, 0.5]", mwf)
    p.min_weight_fraction_leaf = float(mwf)

    if not isinstance(est.bootstrap, (bool, np.bool_)):
        raise _bad("bootstrap", owner, "a bool", est.bootstrap)
    p.bootstrap = int(bool(est.bootstrap))

    ms = est.max_samples
    if ms is not None:
        if not est.bootstrap:
            raise ValueError(
                "max_samples cannot be set if bootstrap=False. Either switch to "
                "bootstrap=True or set max_samples=None."
            )
        if _is_int(ms):
            if ms < 1 or ms > n_samples:
                raise _bad("max_samples", owner, "None, an int in [1, n_samples=%d] or a float in (0, 1]" % n_samples, ms)
            p.max_samples_count = int(ms)
        elif _is_real(ms) and 0.0 < ms <= 1.0:
            p.max_samples_fraction = float(ms)
        else:
            raise _bad("max_samples", owner, "None, an int in [1, n_samples] or a float in (0, 1]", ms)

    oob = getattr(est, "oob_score", False)
    if not isinstance(oob, (bool, np.bool_)):
        raise _bad("oob_score", owner, "a bool", oob)
    if oob and not est.bootstrap:
        raise ValueError("Out of bag estimation only available if bootstrap=True")

    cw = getattr(est, "class_weight", None)
    if cw is None:
        p.class_weight_mode = lib.SPORF_CW_NONE
    elif cw == "balanced":
        p.class_weight_mode = lib.SPORF_CW_BALANCED
    elif cw == "balanced_subsample":
        p.class_weight_mode = lib.SPORF_CW_BALANCED_SUBSAMPLE
    elif isinstance(cw, dict):
        p.class_weight_mode = lib.SPORF_CW_CUSTOM
    else:
        raise _bad("class_weight", owner, "None, 'balanced', 'balanced_subsample' or a dict", cw)

    if not _is_int(est.verbose) and not isinstance(est.verbose, (bool, np.bool_)):
        raise _bad("verbose", owner, "an int", est.verbose)

    p.n_jobs = resolve_n_jobs(est.n_jobs)
    p.random_state = resolve_seed(est.random_state)
    ft = getattr(est, "first_tree", 0)
    if not _is_int(ft) or ft < 0 or ft > 2 ** 53:
        raise _bad("first_tree", owner, "an int in [0, 2**53]", ft)
    p.first_tree = int(ft)

    err = ffi.new("sporf_error *")
    rc = lib.sporf_params_check(p, n_features, err)
    if rc != lib.SPORF_OK:
        raise ValueError(ffi.string(err.message).decode())
    return p
