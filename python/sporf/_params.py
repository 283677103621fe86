"""Estimator parameters <-> the core's sporf_params, driven by the generated
table of spec/params.toml (_spec_gen.py): one converter per kind of parameter,
none per parameter. A bad value raises ValueError("<name> must be <what the
spec allows>; got <value>"), the wording R uses too."""
import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._native import FORMS, MAX_DIMS, check_params, new_params, num_cores
from ._spec_gen import ESTIMATORS, PARAMS, RULES

FORM_NAMES = {v: k for k, v in FORMS.items()}
_BIG = 2 ** 53


def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _is_bool(x):
    return isinstance(x, (bool, np.bool_))


def bad(name, expect, value):
    """The one message for a bad parameter (R's reads the same)."""
    return ValueError("%s must be %s; got %r" % (name, expect, value))


def fraction(x):
    """A size given as a share of a total: ``x`` as a float.

    ``max_features``, ``min_samples_split``, ``min_samples_leaf`` and
    ``max_samples`` take a count or a fraction (of p for ``max_features``, of n
    for the others). In Python the type decides: an int is a count, a float a
    fraction, so ``fraction(1)`` is ``1.0`` (all). It exists so code reads the
    same in both languages: R, where a whole number is always a count, needs
    ``fraction(1)`` to say "all".

    Parameters
    ----------
    x : float or int
        A finite number > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from sporf import SPORFClassifier, fraction
    >>> SPORFClassifier(max_features=fraction(1)).max_features
    1.0
    """
    if not _is_real(x) or not np.isfinite(x) or x <= 0:
        raise bad("fraction(x)", "a finite number > 0", x)
    return float(x)


def resolve_n_jobs(n_jobs):
    """joblib's convention: None -> 1, -1 -> all cores, -2 -> all but one..."""
    if n_jobs is None:
        return 1
    if type(n_jobs) is int and n_jobs != 0:  # the common cases, without the ABC checks
        return n_jobs if n_jobs > 0 else max(1, num_cores() + 1 + n_jobs)
    if not _is_int(n_jobs) or n_jobs == 0:
        raise bad("n_jobs", PARAMS["n_jobs"]["expect"], n_jobs)
    if n_jobs < 0:
        return max(1, num_cores() + 1 + int(n_jobs))
    return int(n_jobs)


def resolve_seed(random_state):
    """An int random_state is the core's master seed as is (R does the same);
    otherwise a seed is drawn from the given or global numpy generator."""
    if _is_int(random_state):
        if not 0 <= random_state <= _BIG:
            raise bad("random_state", PARAMS["random_state"]["expect"], random_state)
        return int(random_state)
    rs = check_random_state(random_state)
    return int(rs.randint(0, np.iinfo(np.int32).max))


def _in_range(v, lo, hi, lo_open=False, hi_open=False):
    if lo is not None and (v <= lo if lo_open else v < lo):
        return False
    if hi is not None and (v >= hi if hi_open else v > hi):
        return False
    return True


def spec_of(est_class):
    """The generated spec entry of an estimator class (or of the sporf class it derives from)."""
    for cls in est_class.__mro__:
        if cls.__name__ in ESTIMATORS:
            return cls.__name__, ESTIMATORS[cls.__name__]
    raise TypeError("%s is not a sporf estimator" % est_class.__name__)


# ---- one converter per kind: (spec row, value, expect) -> the C value ----
def _int(row, v, expect):
    if "none" in row and v is None:
        return row["none"]
    if not _is_int(v) or not _in_range(v, row["min"], row.get("max")):
        raise bad(row["name"], expect, v)
    return int(v)


def _real(row, v, expect):
    if not _is_real(v) or not np.isfinite(v) or not _in_range(v, row["min"], row.get("max"), row.get("min_open", False),
                                                              row.get("max_open", False)):
        raise bad(row["name"], expect, v)
    return float(v)


def _flag(row, v, expect):
    if not _is_bool(v):
        raise bad(row["name"], expect, v)
    return int(bool(v))


def _choice(row, v, expect, allowed):
    if isinstance(v, ChosenCode) and v >= len(row["values"]) and v < len(row["values"]) + len(row.get("chosen_as", [])):
        return int(v)
    name = row.get("aliases", {}).get(v, v) if isinstance(v, str) else None
    if not isinstance(v, str) or v not in allowed:
        raise bad(row["name"], expect, v)
    return row["values"].index(name)


class ChosenCode(int):
    """The core's code of a choice a fit of the same forest already made
    (splitter "auto": the kinds of trees it kept), for the trees warm_start
    adds. Never a user's value."""


def chosen_codes(p):
    """The choices a fitted forest's parameters p hold (a choice parameter's
    codes past its values: the spec's chosen_as), as ChosenCode values by
    name: the trees warm_start adds make the same choices."""
    out = {}
    for name, row in PARAMS.items():
        if row["kind"] == "choice" and row.get("chosen_as") and getattr(p, name) >= len(row["values"]):
            out[name] = ChosenCode(getattr(p, name))
    return out


class ChosenLeafSize(int):
    """min_samples_leaf "auto" with the size a fit of the same forest already
    chose: the trees grow to leaves of one row and are pruned to it, unscored
    (the trees warm_start adds, the shards sporf.distributed grows after the
    first). Never a user's value."""


def _amount(row, v, expect, out):
    forms = row["forms"]
    if isinstance(v, ChosenLeafSize) and "auto" in forms and v >= 1:
        out.form, out.value = FORMS["auto"], float(v)
    elif v is None and "all" in forms:
        out.form, out.value = FORMS["all"], 0.0
    elif isinstance(v, str) and v in forms and v in ("sqrt", "log2", "auto"):
        out.form, out.value = FORMS[v], 0.0
    elif _is_int(v) and "count" in forms and _in_range(v, row["count_min"], row.get("count_max")):
        out.form, out.value = FORMS["count"], float(v)
    elif (_is_real(v) and not _is_int(v) and "fraction" in forms and np.isfinite(v)
          and _in_range(v, row["fraction_min"], row.get("fraction_max"), row.get("fraction_min_open", False),
                        row.get("fraction_max_open", False))):
        out.form, out.value = FORMS["fraction"], float(v)
    else:
        raise bad(row["name"], expect, v)


def _per_axis(row, v, expect, n_dims):
    """None, one value for every axis, or one per axis of data_dims."""
    if v is None or np.isscalar(v) or isinstance(v, str):
        values = [v] * n_dims
    else:
        values = list(v)
        if len(values) != n_dims:
            raise bad(row["name"], expect, v)
    return values


def _axes(row, v, expect, n_dims, field):
    of = row["of"]
    for k, x in enumerate(_per_axis(row, v, expect, n_dims)):
        if of == "int":
            if x is None:
                field[k] = 0
            elif _is_int(x) and _in_range(x, row["min"], row.get("max")):
                field[k] = int(x)
            else:
                raise bad(row["name"], expect, v)
        elif of == "flag":
            if x is None:
                field[k] = 1
            elif _is_bool(x):
                field[k] = int(bool(x))
            else:
                raise bad(row["name"], expect, v)
        else:
            if not isinstance(x, str) or x not in row["values"]:
                raise bad(row["name"], expect, v)
            field[k] = row["values"].index(x)


def _class_weight(row, v, expect):
    if v is None:
        return row["values"].index("none")
    if isinstance(v, dict):
        return row["values"].index("custom")
    if isinstance(v, str) and v in ("balanced", "balanced_subsample"):
        return row["values"].index(v)
    raise bad(row["name"], expect, v)


def resolve_data_dims(data_dims, n_features):
    """data_dims as a tuple of ints (the core checks that they fit n_features)."""
    if data_dims is None:
        return (int(n_features),)
    dims = (data_dims,) if _is_int(data_dims) else tuple(data_dims) if not isinstance(data_dims, str) else None
    if not dims or len(dims) > MAX_DIMS or not all(_is_int(d) and d >= 1 for d in dims):
        raise bad("data_dims", PARAMS["data_dims"]["expect"], data_dims)
    return tuple(int(d) for d in dims)


def _matches(value, want):
    """A given value against a rule's: a flag's True matches any true value,
    "none" matches None."""
    if isinstance(want, bool):
        return bool(value) == want
    return value is None if want == "none" else value == want


def build(est, n_features, data_dims=None):
    """Validate `est`'s parameters for data with n_features columns; return a
    ffi-owned sporf_params. `data_dims` (resolved) makes it a patch forest.
    Parameters the estimator does not have keep the core's defaults; sizes
    given as fractions or "sqrt" stay so (the core resolves them)."""
    ename, espec = spec_of(type(est))
    p = new_params()
    given = {n: getattr(est, n) for n in espec["params"]}
    given.update(espec["fixed"])
    for name, v in given.items():
        row = PARAMS[name]
        kind, expect = row["kind"], espec["expect"].get(name, row["expect"])
        if kind == "option" or kind == "grid":
            continue
        if kind == "axes":
            if data_dims is not None:
                _axes(row, v, expect, len(data_dims), getattr(p, name))
            continue
        if kind == "int":
            setattr(p, name, _int(row, v, expect))
        elif kind == "real":
            setattr(p, name, _real(row, v, expect))
        elif kind == "flag":
            setattr(p, name, _flag(row, v, expect))
        elif kind == "choice":
            allowed = list(espec["choices"].get(name, row["values"]))
            allowed += [a for a, target in row.get("aliases", {}).items() if target in allowed]
            setattr(p, name, _choice(row, v, expect, allowed))
        elif kind == "amount":
            _amount(row, v, expect, getattr(p, name))
        elif kind == "seed":
            p.random_state = resolve_seed(v)
        elif kind == "threads":
            p.n_jobs = resolve_n_jobs(v)
        elif kind == "class_weight":
            p.class_weight = _class_weight(row, v, expect)
        else:  # pragma: no cover - the generator knows no other kind
            raise AssertionError(kind)
    if data_dims is not None:
        p.n_dims = len(data_dims)
        for k, d in enumerate(data_dims):
            p.data_dims[k] = int(d)
    for name, v in given.items():  # switches of the binding (oob_score, tune_oob): the core never sees them
        row = PARAMS[name]
        if row["kind"] == "option" and isinstance(row["default"], bool):
            also = row.get("also", [])  # values besides True and False (the spec's)
            if not (_is_bool(v) or (isinstance(v, str) and v in also)):
                words = ["True", "False"] + ['"%s"' % a for a in also]
                raise bad(name, ", ".join(words[:-1]) + " or " + words[-1], v)
        elif row["kind"] == "option" and row.get("of") == "int" and not (_is_int(v) or _is_bool(v)):
            raise bad(name, row["expect"], v)
        elif row["kind"] == "option" and "values" in row and not (isinstance(v, str) and v in row["values"]):
            raise bad(name, row["expect"], v)
    for rule in RULES:  # the spec's checks across parameters
        if all(name in given and _matches(given[name], want) for name, want in rule["when"].items()):
            raise ValueError(rule["message"])
    check_params(p, n_features)
    return p


def from_core(cls_name, p, class_weights=None):
    """Keyword arguments of estimator `cls_name` for the core parameters p:
    the forms the user gave (a fraction stays a float, None stays None), so
    refitting with them grows the same forest. class_weights: the custom
    weights as {label: weight} when the forest keeps them."""
    espec = ESTIMATORS[cls_name]
    out = {}
    for name in espec["params"]:
        row = PARAMS[name]
        kind = row["kind"]
        if kind in ("option", "threads"):
            continue
        if kind == "int":
            v = getattr(p, name)
            out[name] = None if "none" in row and v == row["none"] else int(v)
        elif kind == "real":
            out[name] = float(getattr(p, name))
        elif kind == "flag":
            out[name] = bool(getattr(p, name))
        elif kind == "choice":  # a choice the forest made shows as the value that asked for it
            out[name] = (row["values"] + row.get("chosen_as", []))[getattr(p, name)]
        elif kind == "amount":
            a = getattr(p, name)
            form = FORM_NAMES[a.form]
            out[name] = (None if form == "all" else int(a.value) if form == "count"
                         else float(a.value) if form == "fraction" else form)
        elif kind == "seed":
            out[name] = int(p.random_state)
        elif kind == "class_weight":
            code = row["values"][p.class_weight]
            out[name] = None if code == "none" else class_weights if code == "custom" else code
        elif kind == "grid":
            out[name] = tuple(int(p.data_dims[k]) for k in range(p.n_dims)) if p.n_dims else None
        elif kind == "axes":
            nd = p.n_dims
            if not nd:
                continue
            vals = [getattr(p, name)[k] for k in range(nd)]
            if row["of"] == "int":
                out[name] = None if not any(vals) else tuple(int(v) for v in vals)
            elif row["of"] == "flag":
                out[name] = tuple(bool(v) for v in vals)
            else:
                out[name] = tuple(row["values"][v] for v in vals)
    return out
