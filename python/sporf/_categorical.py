"""Categorical features: which columns are categorical, their levels, and
the numbers the core reads for them.

A categorical column reaches the core as its levels' positions in an order
the core learns from the response (sporf_order_levels: ranger's
respect.unordered.factors = "order"), so splits send sets of levels to each
side. Fitting happens in two steps -- `split_levels` replaces each
categorical column by its level codes before scikit-learn validates X, and
`to_positions` turns the codes into positions once the response is encoded
-- and prediction maps each row's level to its position by name
(`encode_for_predict`); a level the training data did not have is a missing
value (NaN). R does the same (R/R/categorical.R), so a pandas category
column and an R factor with the same levels give the same forest.
"""
import numpy as np

from . import _native
from ._sparse import issparse


def _is_frame(X):
    return type(X).__name__ == "DataFrame"


def _number_names(values):
    # a numeric level's name: the shortest text that reads back as the same
    # double in both languages (R writes sprintf("%.17g"))
    return ["%.17g" % v for v in values]


def _columns(X, categorical_features, estimator):
    """The indices of X's categorical columns: a DataFrame's category columns
    and the ones categorical_features names. Strings are refused."""
    p = X.shape[1]
    names = [str(c) for c in X.columns] if _is_frame(X) else None
    found = set()
    if names is not None:
        for j, (name, dtype) in enumerate(zip(names, X.dtypes)):
            kind = getattr(dtype, "name", "")
            if kind == "category":
                found.add(j)
            elif dtype == object or kind in ("string", "str"):
                raise ValueError("column %r holds strings: a categorical feature must be a pandas category column "
                                 "(X[%r] = X[%r].astype(\"category\")) or named in categorical_features as level "
                                 "codes" % (name, name, name))
    if categorical_features is None:
        pass
    else:
        given = np.asarray(categorical_features)
        if given.ndim != 1:
            raise ValueError("categorical_features must be a list of column indices or names, or a boolean mask")
        if given.dtype == bool:
            if given.shape[0] != p:
                raise ValueError("categorical_features as a mask needs one value per column (%d), got %d"
                                 % (p, given.shape[0]))
            given = np.flatnonzero(given)
        for c in given.tolist():
            if isinstance(c, str):
                if names is None or c not in names:
                    raise ValueError("categorical_features names %r, which is not a column of X%s"
                                     % (c, "" if names is not None else " (X has no column names)"))
                found.add(names.index(c))
            elif isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < p:
                found.add(int(c))
            else:
                raise ValueError("categorical_features: %r is not a column index in [0, %d) or a column name"
                                 % (c, p))
    if found and estimator not in ("SPORFClassifier", "SPORFRegressor", "SPORFSurvival", "SPORFIsolation"):
        raise ValueError("%s takes numeric features only: categorical features are for SPORFClassifier, "
                         "SPORFRegressor, SPORFSurvival and SPORFIsolation" % estimator)
    return sorted(found)


def _codes_and_names(column):
    """(level codes as floats, NaN for missing; level names) of one column:
    a pandas category column, or numbers that are level codes."""
    kind = getattr(getattr(column, "dtype", None), "name", "")
    if kind == "category":
        names = [str(c) for c in column.cat.categories]
        codes = column.cat.codes.to_numpy().astype(np.float64)
        codes[codes < 0] = np.nan
        return codes, names
    values = np.asarray(column, dtype=np.float64)
    if np.isinf(values).any():
        raise ValueError("a categorical feature's level codes must be finite (NaN: missing)")
    levels = np.unique(values[~np.isnan(values)])
    codes = np.full(values.shape, np.nan)
    present = ~np.isnan(values)
    codes[present] = np.searchsorted(levels, values[present])
    return codes, _number_names(levels)


def _column(X, j):
    return X.iloc[:, j] if _is_frame(X) else X[:, j]


def split_levels(X, categorical_features, estimator):
    """(X with each categorical column replaced by its level codes, a copy;
    {column: level names}), or (X, None) when no column is categorical."""
    if issparse(X):
        if categorical_features is not None:
            raise ValueError("categorical features need a dense X (a DataFrame or an array)")
        return X, None
    if not _is_frame(X) and categorical_features is None:
        return X, None
    if not _is_frame(X):
        X = np.asarray(X)
    columns = _columns(X, categorical_features, estimator)
    if not columns:
        return X, None
    levels = {}
    if _is_frame(X):
        X = X.copy()
        for j in columns:
            codes, levels[j] = _codes_and_names(X.iloc[:, j])
            X[X.columns[j]] = codes
    else:
        X = np.array(X, dtype=np.float64)
        for j in columns:
            X[:, j], levels[j] = _codes_and_names(X[:, j])
    return X, levels


def to_positions(X, levels, *, codes_y=None, n_classes=0, y=None, sample_weight=None):
    """Replace, in place in X (the fit's own float64 copy), each categorical
    column's codes by its levels' positions; returns the level names by
    feature in position order (None for a numeric feature)."""
    by_feature = [None] * X.shape[1]
    for j, names in levels.items():
        codes = X[:, j].copy()
        position = _native.order_levels(codes, len(names), codes_y=codes_y, n_classes=n_classes, y=y,
                                        sample_weight=sample_weight)
        present = ~np.isnan(codes)
        X[present, j] = position[codes[present].astype(np.int64)]
        seen = ~np.isnan(position)
        ordered = [None] * int(seen.sum())
        for level, at in enumerate(position.tolist()):
            if at == at:  # not NaN
                ordered[int(at)] = names[level]
        by_feature[j] = ordered
    return by_feature


def store(forest, by_feature):
    """Keep the level names in the model."""
    forest.set_levels([0 if names is None else len(names) for names in by_feature],
                      [name for names in by_feature if names is not None for name in names])


def encode_for_predict(X, by_feature, feature_names):
    """X with each categorical column as its levels' positions, matched by
    name (an unseen level is NaN); the columns in the fitted order."""
    if issparse(X):
        raise ValueError("this forest has categorical features: give X as a DataFrame or a dense array")
    frame = _is_frame(X)
    if frame:
        X = X.copy()
    else:
        X = np.array(X, dtype=np.float64, ndmin=2)
    for j, names in enumerate(by_feature):
        if names is None:
            continue
        if frame:
            key = feature_names[j] if feature_names is not None else X.columns[j]
            if key not in X.columns:
                continue  # the validation names the missing column
            column = X[key]
        else:
            if X.ndim != 2 or j >= X.shape[1]:
                continue  # the validation names the shape
            column = X[:, j]
        position = {name: float(at) for at, name in enumerate(names)}
        kind = getattr(getattr(column, "dtype", None), "name", "")
        if kind == "category":
            lookup = np.array([position.get(str(c), np.nan) for c in column.cat.categories] + [np.nan])
            values = lookup[column.cat.codes.to_numpy()]  # code -1 (missing) reads the last entry
        elif frame and (column.dtype == object or kind in ("string", "str")):
            values = np.array([position.get(str(v), np.nan) if v == v and v is not None else np.nan
                               for v in column.tolist()])
        else:
            numbers = np.asarray(column, dtype=np.float64)
            uniq, inverse = np.unique(numbers, return_inverse=True)
            lookup = np.array([np.nan if u != u else position.get(n, np.nan)
                               for u, n in zip(uniq.tolist(), _number_names(uniq.tolist()))])
            values = lookup[inverse.reshape(-1)] if uniq.size else numbers
        if frame:
            X[key] = values
        else:
            X[:, j] = values
    return X
