"""scikit-learn estimators over the sporf core."""
import difflib
import inspect
import numbers
import warnings
from collections import namedtuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import r2_score
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, _num_samples, check_is_fitted, validate_data

from . import _categorical, _dask, _multioutput, _native, _params, _sparse, _spec_gen
from ._exclusive import exclusive_fit
from ._inspect import _ForestInspection
from ._native import FIT_DTYPES, Progress, fit_matrix
from ._persistence import _PersistentForest

def _warn_missing_oob(oob_count):
    if np.any(oob_count == 0):
        warnings.warn(
            "Some inputs do not have OOB scores. This probably means too few "
            "trees were used to compute any reliable OOB estimates.",
            UserWarning,
        )


# What a fit grows on, from the response (_BaseForest._target): the values per
# row the forest predicts (width), the native fit's response arguments
# (_native.fit), what orders categorical levels (_categorical.to_positions),
# the class names stored in the model (or None), the fitted attributes to set,
# the y the out-of-bag score compares with, and the one-output codes or values
# the error curve and permutation importance read (None: several outputs, or
# no response).
_FitTarget = namedtuple("_FitTarget", "width response orders_levels classes fitted y single")


def _unknown_parameter(name, known, estimator=None):
    """Words for an unknown parameter: the sporf estimators that take it, or
    another library's name mapped to sporf's (the spec's peer_names), else
    the closest sporf name."""
    owners = [cls for cls, spec in _spec_gen.ESTIMATORS.items() if cls != estimator and name in spec["params"]]
    if owners and name not in known:
        return "an unknown parameter %r (a parameter of %s)" % (name, " and ".join(owners))
    hint = _spec_gen.PEER_NAMES.get(name)
    if hint is None:
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = close[0] if close else None
    if hint == "sample_weight":
        hint = "sample_weight, an argument of fit()"
    elif hint is not None and hint not in known:
        hint = None
    return "an unknown parameter %r" % name + ("; did you mean %s?" % hint if hint else "")



# splitter="auto": what the forest kept, by sporf_forest_kind_choice's code
KINDS_KEPT = ("mixed", "best", "random")


def chooses_leaf_size(params):
    """Do these estimator parameters choose the leaf size out of bag
    (min_samples_leaf="auto", not yet chosen)?"""
    return isinstance(params.get("min_samples_leaf"), str) and params["min_samples_leaf"] == "auto"


def with_leaf_size(chosen):
    """The parameter that grows trees pruned to the leaf size a fit of the
    same forest chose (warm_start's new trees, sporf.distributed's shards)."""
    return {"min_samples_leaf": _params.ChosenLeafSize(chosen)}


class _BaseForest(_ForestInspection, _PersistentForest, BaseEstimator):
    """What classifiers and regressors share: the native handle, prediction
    plumbing, importances, persistence. Subclasses define fit and predict."""

    def __new__(cls, *args, **kwargs):
        # An unknown keyword would fail inside the generated __init__ with
        # its private class's name; refuse it here naming the public class
        # and the sporf name to use. (__new__ leaves __init__'s signature,
        # which scikit-learn reads, as it is.)
        known = set(inspect.signature(cls.__init__).parameters) - {"self"}
        unknown = [k for k in kwargs if k not in known]
        if unknown:
            raise TypeError("%s got %s" % (cls.__name__, "; ".join(_unknown_parameter(k, known, cls.__name__)
                                                                   for k in unknown)))
        return super().__new__(cls)

    def __sklearn_tags__(self):
        # NaN in X is a missing value the trees learn to route, as
        # scikit-learn's own forests do since 1.4.
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True  # scipy sparse X, densified a block at a time (_sparse.py)
        if tags.target_tags is not None and isinstance(self, (ClassifierMixin, RegressorMixin)):
            tags.target_tags.multi_output = True  # a 2-D y: one tree for all outputs (_multioutput.py)
        return tags

    # ---- The fit template: every forest's fit, step by step. What depends on
    # the response is the _target hook (the classifier's classes, the
    # regressor's values, none for URerF), as scikit-learn's BaseForest.fit
    # leaves the labels to its subclasses.

    def _fit_forest(self, X, y, sample_weight):
        if getattr(self, "warm_start", False) and "_forest" in self.__dict__:
            return self._warm_fit(X, y, sample_weight, self._values_per_row())
        X = self._flatten_input(X, fitting=True)
        X, levels = self._split_levels(X)
        X, y = self._validate_fit_data(X, y)
        X = _sparse.dense_columns(X) if _sparse.issparse(X) else fit_matrix(X)
        target = self._target(y)
        params = self._native_params(X.shape[1])
        by_feature = None
        if levels is not None:  # ordered by the response (the first output's)
            by_feature = _categorical.to_positions(X, levels, sample_weight=self._level_weights(sample_weight, X),
                                                   **target.orders_levels)
        forest, oob = self._fit_native(X, params, target.width, sample_weight, **target.response)
        if target.classes is not None:
            forest.set_strings(_native.STR_CLASSES, target.classes)
        self._keep_levels(forest, by_feature)
        self._forest = forest
        self._n_fit_rows = X.shape[0]  # what oob=True predictions must be given (the training rows)
        self._fit_fingerprint = _native.fingerprint(X)
        for name, value in target.fitted.items():
            setattr(self, name, value)
        # the error curve and permutation importance: one output only
        for name in ("oob_error_curve_", "oob_error_curve_by_class_"):
            self.__dict__.pop(name, None)
        if getattr(self, "oob_score", False):
            self._set_oob(oob if oob is not None else self._oob_from_forest(X, target.width), target.y)
            if target.single is not None:
                self._set_oob_curve(X, target.single)
        if target.single is not None:
            self._set_permutation(X, target.single)
            self._set_interval_scores(X, target.single)
        self._after_fit(X)
        return self

    def _validate_fit_data(self, X, y):
        """X and y checked as scikit-learn's estimators check them (y one or
        several outputs; numeric for a regressor)."""
        fields = getattr(getattr(y, "dtype", None), "names", None)
        if fields:  # scikit-survival's y: numpy would fail in a cast, or take each record for a class
            raise ValueError("y is a structured array with fields %s: a survival response (event, time) is for "
                             "SPORFSurvival (or MORFSurvival); %s takes %s" % (
                                 ", ".join(fields), type(self).__name__,
                                 "numbers" if isinstance(self, RegressorMixin) else "class labels"))
        _multioutput.refuse_survival_pair(y)
        X, y = validate_data(self, X, y, dtype=FIT_DTYPES, ensure_min_samples=1, multi_output=True,
                             accept_sparse=("csr", "csc"), ensure_all_finite=False,
                             y_numeric=isinstance(self, RegressorMixin))
        return X, _multioutput.as_outputs(y, type(self).__name__)

    def _after_fit(self, X):
        """What a forest keeps of its training rows besides the trees."""

    # Hooks for patch forests, whose samples may come as images or grids.

    def _flatten_input(self, X, fitting=False):
        return X

    def _resolve_data_dims(self, n_features):
        return None

    def _native_params(self, n_features):
        """The core's parameter struct for n_features features."""
        return _params.build(self, n_features, data_dims=self._resolve_data_dims(n_features))

    def _refuse_partitioned(self):
        """What a fit from partitions (sporf.distributed, X a Dask collection)
        cannot do, since it needs every row in one place: refused by name."""
        for option, off, why in [("tune_oob", False, "tune_oob"),
                                 ("importance", "impurity", "permutation importance"),
                                 ("categorical_features", None, "categorical features")]:
            if getattr(self, option, off) != off:
                raise ValueError("%s: needs every row in one place, which a fit from a Dask collection does not "
                                 "have; fit with %s=%r" % (why, option, off))
        if getattr(self, "class_weight", None) == "balanced":
            raise ValueError('class_weight="balanced" is not available when X is a Dask collection: give the '
                             "weights per class as a dict")
        if not self.bootstrap and self.max_samples is None:
            raise ValueError("a fit from partitions grows each tree on the rows it draws: it needs bootstrap=True, "
                             "or max_samples (a subsample) without it")

    def _refuse_for_outputs(self, n_outputs):
        """What a fit on multi-output y does not do, refused by name before
        any work (the core refuses the rest: quantiles, random cuts, bins)."""
        if getattr(self, "class_weight", None) is not None:
            raise ValueError(_spec_gen.REFUSALS["outputs_class_weight"].format(n=n_outputs))
        if getattr(self, "importance", "impurity") == "permutation":
            raise ValueError(_spec_gen.REFUSALS["outputs_permutation"].format(n=n_outputs))

    def _split_levels(self, X):
        """X with its categorical columns as level codes, and their level
        names (None when no column is categorical): _categorical.py."""
        return _categorical.split_levels(X, getattr(self, "categorical_features", None), type(self).__name__)

    def _keep_levels(self, forest, by_feature):
        """Keep the fitted categorical features' level names in the model and
        on the estimator (is_categorical_), or forget an earlier fit's."""
        if by_feature is None:
            self.__dict__.pop("_levels", None)
            self.__dict__.pop("is_categorical_", None)
            return
        _categorical.store(forest, by_feature)
        self._levels = by_feature
        self.is_categorical_ = np.array([names is not None for names in by_feature])

    @staticmethod
    def _level_weights(sample_weight, X):
        if sample_weight is None:
            return None
        return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)

    def _fit_native(self, X, params, n_out, sample_weight, **task):
        """Run one core fit, or the out-of-bag tuning when tune_oob is set;
        `task` names the response (_native.fit: codes and n_classes, y, or
        nothing). Returns (forest, oob values or None)."""
        sw = None
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            sw = np.ascontiguousarray(sw)
        tune = getattr(self, "tune_oob", False)
        # an unsupervised forest has no OOB; a tuned one gets it from its trees afterwards
        want_oob = getattr(self, "oob_score", False) and not tune
        forest, oob, oob_count, tuning = _native.fit(
            params, X, sample_weight=sw, oob_n_out=n_out if want_oob else 0,
            tune_grid=self._tune_grid() if tune else None, progress=Progress(verbose=self.verbose, what="trees"),
            shard=getattr(self, "first_tree", None) is not None, **task)
        if hasattr(self, "feature_names_in_"):
            forest.set_strings(_native.STR_FEATURE_NAMES, self.feature_names_in_)
        self._set_leaf_choice(forest)
        if oob_count is not None:  # float32 X: the caller computes the out-of-bag values afterwards
            _warn_missing_oob(oob_count)
        if tuning is not None:
            self._set_tuning(tuning)
        else:  # a refit without tuning keeps no report of an earlier one
            self.__dict__.pop("tuning_", None)
            self.__dict__.pop("best_params_", None)
        return forest, oob

    def _set_leaf_choice(self, forest):
        """min_samples_leaf="auto": the leaf size the fit chose out of bag
        (min_samples_leaf_) and each size's out-of-bag score (leaf_scores_);
        neither after any other fit. splitter="auto": the kinds of trees it
        kept (splitter_: "mixed" for both, "best" or "random") and each
        choice's score at its best size (splitter_scores_)."""
        chosen, sizes, scores = forest.leaf_choice()
        if chosen and forest.leaf_state()[0] == _native.LEAF_CHOSEN:
            self.min_samples_leaf_ = chosen
            self.leaf_scores_ = {int(k): float(s) for k, s in zip(sizes, scores)}
        else:
            self.__dict__.pop("min_samples_leaf_", None)
            self.__dict__.pop("leaf_scores_", None)
        kept, kind_scores = forest.kind_choice()
        if kept >= 0:
            self.splitter_ = KINDS_KEPT[kept]
            self.splitter_scores_ = {name: float(s) for name, s in zip(KINDS_KEPT, kind_scores)}
        else:
            self.__dict__.pop("splitter_", None)
            self.__dict__.pop("splitter_scores_", None)

    @property
    def n_estimators_(self):
        """The number of trees the fitted forest holds: n_estimators, or
        when splitter="auto" kept one kind of trees, that kind's trees among
        the n_estimators grown (about half). apply, predict_trees and get_tree
        count these."""
        check_is_fitted(self, "_forest")
        return int(self._forest.info().n_trees)

    def _warm_fit(self, X, y, sample_weight, n_out):
        """warm_start: grow trees n_old .. n_estimators - 1 of the fitted
        forest's seed on (X, y) and join them to it (merge_forests), which
        is exactly the forest one fit of n_estimators trees grows."""
        if getattr(self, "tune_oob", False):
            raise ValueError("warm_start cannot add trees to a forest tuned by tune_oob: set the tuned "
                             "parameters (best_params_) and tune_oob=False, then refit")
        n_old = int(self._forest.info().n_trees)
        stored = self._forest.params()
        if not _params._is_int(self.n_estimators):
            raise _params.bad("n_estimators", _params.PARAMS["n_estimators"]["expect"], self.n_estimators)
        # n_estimators counts the trees grown; a forest that kept one kind adds that kind's among them
        n_new, n_grown = self._forest.trees_to_add(self.first_tree or 0, self.n_estimators)
        if n_new < 0:
            raise ValueError("n_estimators=%r must be at least the %d trees already grown when warm_start=True"
                             % (self.n_estimators, n_grown))
        if n_new == 0:
            warnings.warn("Warm-start fitting without increasing n_estimators does not fit new trees.",
                          UserWarning)
            return self
        more = clone(self).set_params(warm_start=False, random_state=int(stored.random_state),
                                      first_tree=int(stored.first_tree) + n_old, n_estimators=n_new)
        # the out-of-bag results are the whole forest's, computed after the merge
        more.set_params(**{k: v for k, v in dict(oob_score=False, importance="impurity").items()
                           if k in more.get_params(deep=False)})
        chosen = self._forest.leaf_choice()[0]
        if chooses_leaf_size(self.get_params(deep=False)) and chosen:  # the new trees take the size chosen
            more.set_params(**with_leaf_size(chosen))
        more.set_params(**_params.chosen_codes(stored))  # and the kinds of trees kept, numbered on
        more.fit(X, y, sample_weight=sample_weight)
        try:
            merged = _native.merge([self._forest, more._forest])
        except ValueError as exc:
            raise ValueError("warm_start: the new trees do not join the fitted forest (%s); change only "
                             "n_estimators between warm-started fits, on the same features and classes" % exc) from exc
        self._forest = merged
        return self._after_warm_fit(X, y, n_out)

    def _after_warm_fit(self, X, y, n_out):
        """The out-of-bag results and importances of the forest warm_start
        grew, on its training rows (X, y)."""
        Xv = self._dense_X(X)
        if self.n_outputs_ > 1:
            if self.oob_score:
                self._set_oob(self._oob_from_forest(Xv, n_out), np.asarray(y))
            return self
        codes = (np.searchsorted(self.classes_, np.asarray(y)) if hasattr(self, "classes_")
                 else np.asarray(y, dtype=np.float64))
        if self.oob_score:
            self._set_oob(self._oob_from_forest(Xv, n_out), np.asarray(y))
            self._set_oob_curve(Xv, codes)
        self._set_permutation(Xv, codes)
        self._set_interval_scores(Xv, codes)
        return self

    def _set_oob_curve(self, X, y):
        """oob_error_curve_: the out-of-bag error of the first 1, 2, ...
        trees on the training rows X, y (class codes or responses)."""
        X = np.ascontiguousarray(X, dtype=np.float64) if not _sparse.issparse(X) else X.toarray()
        if y.dtype.kind == "f":
            self.oob_error_curve_, _ = self._forest.oob_curve(X, y=np.ascontiguousarray(y, dtype=np.float64))
        else:
            self.oob_error_curve_, self.oob_error_curve_by_class_ = self._forest.oob_curve(
                X, codes=np.ascontiguousarray(y, dtype=np.int32))

    def _set_permutation(self, X, y):
        """permutation_importances_ and permutation_importances_std_ when
        importance="permutation": on the training rows X with their class
        codes or responses y (the core regenerates each tree's draws)."""
        for name in ("permutation_importances_", "permutation_importances_std_"):
            self.__dict__.pop(name, None)
        if getattr(self, "importance", "impurity") != "permutation":
            return
        X = np.asarray(X, dtype=np.float64) if not _sparse.issparse(X) else X.toarray()
        progress = Progress(verbose=self.verbose, what="trees (permutation importance)")
        if y.dtype.kind == "f":
            mean, std = self._forest.permutation_importance(X, self._n_threads(), y=np.ascontiguousarray(y),
                                                            progress=progress)
        else:
            mean, std = self._forest.permutation_importance(
                X, self._n_threads(), codes=np.ascontiguousarray(y, dtype=np.int32), progress=progress)
        self.permutation_importances_ = mean
        self.permutation_importances_std_ = std

    def _set_interval_scores(self, X, y):
        """The calibration of predict_interval: what a quantile regressor
        keeps of its training rows (_ForestRegressor); nothing elsewhere."""

    def _tune_grid(self):
        """The core's grid for tune_oob: True tunes d and lambda, "structure"
        chooses among structurally different forests."""
        return _native.TUNE_STRUCTURE if self.tune_oob == "structure" else _native.TUNE_DENSITY

    def _set_tuning(self, result):
        """tuning_ and best_params_ from the core's report: the parameters the
        grid varies, each candidate's out-of-bag error and trees."""
        name = type(self).__name__
        cands = [_params.from_core(name, result.candidates[i]) for i in range(result.n_candidates)]
        varied = [k for k in cands[0] if any(c[k] != cands[0][k] for c in cands)]
        self.tuning_ = [dict({k: c[k] for k in varied}, oob_error=float(result.oob_error[i]),
                             n_trees=int(result.n_trees[i])) for i, c in enumerate(cands)]
        self.best_params_ = {k: cands[result.best][k] for k in varied}

    def _oob_rows(self, X):
        """oob=True answers for the training rows, in their order: X as the
        forest reads it, refused when its count or its fingerprint is not the
        training rows' (a forest loaded from a file knows neither; the
        caller's rows are then taken as they are)."""
        check_is_fitted(self, "_forest")
        n_fit = self.__dict__.get("_n_fit_rows")
        if n_fit is not None and _num_samples(X) != n_fit:
            raise ValueError("oob=True is for the training data: the forest was grown on %d rows, X has %d"
                             % (n_fit, _num_samples(X)))
        X = self._dense_X(X)
        kept = self.__dict__.get("_fit_fingerprint")
        if kept is not None and _native.fingerprint(X) != kept:
            raise ValueError("oob=True is for the training data, the rows the forest was grown on in their order: "
                             "each row is then predicted by the trees that did not draw it. X has as many rows, "
                             "but other values or another order; for new rows, predict without oob")
        return X

    def _oob_from_forest(self, X, n_out):
        """Out-of-bag values of the fitted forest for its training rows X,
        from the trees' regenerated bootstrap draws (a forest merged from
        shards: each shard saw only its own trees' out-of-bag rows)."""
        out, count = self._forest.oob_predict(X, self._n_threads(), n_out)
        _warn_missing_oob(count)
        return out

    # ---- prediction ----
    def _plain_rows(self, X, encoded=False):
        """Is X the common case _check_X passes as it is: a float64 matrix of
        the fitted width, for a fitted model without feature names (and,
        unless X's categorical columns are `encoded` already, without
        categorical features)?"""
        d = self.__dict__
        return (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0
                and "_forest" in d and "feature_names_in_" not in d and (encoded or d.get("_levels") is None)
                and X.shape[1] == d["n_features_in_"])

    def _check_X(self, X):
        if type(X).__name__ == "DataFrame" and "_forest" in self.__dict__:
            X = self._columns_by_name(X)
        levels = self.__dict__.get("_levels")
        if levels is not None:  # categorical features: their levels' positions
            X = _categorical.encode_for_predict(X, levels, self.__dict__.get("feature_names_in_"))
        # Fast path for the common case -- a float64 matrix of the right
        # width, from a model fitted without feature names -- so one-row
        # prediction costs microseconds, not scikit-learn's full validation
        # (~0.1 ms). It accepts what validate_data would accept unchanged.
        # NaN is a missing value, which the forest routes where each split
        # learned to send it; infinity is left to the core, which refuses it
        # naming the row and column (ValueError), sparing a pass over X.
        # Anything else takes the full path and its messages.
        if self._plain_rows(X, encoded=True):
            return X
        # The same for a pandas DataFrame with the fitted columns, in order,
        # all numeric (a model fitted on a DataFrame, predicting a few rows
        # from one: scikit-learn's validation costs ~0.4 ms a call).
        if type(X).__name__ == "DataFrame" and "feature_names_in_" in self.__dict__ and "_forest" in self.__dict__:
            fast = self._numeric_frame(X)
            if fast is not None:
                return fast
        check_is_fitted(self, "_forest")
        X = self._flatten_input(X)
        return validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"),
                             ensure_all_finite=False)

    def _columns_by_name(self, X):
        """A DataFrame's columns as the forest reads them -- the rule R
        follows too: matched by name when the forest knows its features'
        names (in any order; extra columns are ignored; a missing one is an
        error naming it), else by position."""
        names = self.__dict__.get("feature_names_in_")
        if names is None:
            # by position, as R takes a named matrix for a forest fitted without names
            return X if X.shape[1] != self.n_features_in_ else X.set_axis(range(X.shape[1]), axis=1)
        cols = list(X.columns)
        if len(cols) == len(names) and all(a == b for a, b in zip(cols, names)):
            return X
        absent = [n for n in names.tolist() if n not in cols]
        if absent:
            raise ValueError("X lacks column%s the forest was trained on: %s"
                             % ("s" if len(absent) > 1 else "", ", ".join(absent[:10])))
        return X[list(names)]

    def _numeric_frame(self, X):
        """X (a DataFrame) as float64 when its columns are the fitted names in
        order and its values numeric, else None (the full validation then
        gives its answer or its message)."""
        names = self.feature_names_in_
        cols = X.columns
        if X.shape[0] == 0 or len(cols) != names.shape[0] or not all(a == b for a, b in zip(cols, names)):
            return None
        values = X.to_numpy()
        if values.dtype.kind not in "fiub" or values.ndim != 2:
            return None
        return values if values.dtype == np.float64 else values.astype(np.float64)

    def _dense_X(self, X):
        """_check_X, sparse X made dense (proximities compare whole matrices)."""
        X = self._check_X(X)
        return X.toarray() if _sparse.issparse(X) else X

    def _n_threads(self):
        return _params.resolve_n_jobs(self.n_jobs)

    def _lazy(self, X, method, trailing, dtype, meta=None, **kwargs):
        """X a Dask array or DataFrame: the lazy Dask array of
        self.<method>(partition) over its row partitions (_dask.py)."""
        check_is_fitted(self, "_forest")
        return _dask.map_partitions(self, X, method, kwargs, trailing, dtype, meta=meta)

    def _leaf_means(self, X, n_out):
        """The mean over trees of the leaf values reached by each row."""
        X = self._check_X(X)
        if _sparse.issparse(X):
            out = np.empty((X.shape[0], n_out), dtype=np.float64)
            for i, block in _sparse.row_blocks(X):
                out[i:i + block.shape[0]] = self._leaf_means(block, n_out)
            return out
        return self._forest.predict_proba(X, self._n_threads(), n_out)



def _fit_doc(y_doc, returns):
    """The docstring of a supervised forest's fit: what its y is, what it returns."""
    return """Grow the forest from training data.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Training data; converted to float64. NaN marks a missing value: each
            split learns which side rows missing its features go to (see "Missing
            values" in the README). Infinity is refused.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            %s
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self : %s
        """ % (y_doc, returns)


class _ForestClassifier(ClassifierMixin, _BaseForest):
    """What every classification forest does -- fit on class labels, class
    probabilities, votes and labels, restoring classes on load. SPORFClassifier
    and MORFClassifier are its leaves: each adds its parameters and docs."""

    @exclusive_fit
    def fit(self, X, y, sample_weight=None):
        return self._fit_forest(X, y, sample_weight)

    fit.__doc__ = _fit_doc("Class labels of any type; a 2-D y grows one forest for all its\n"
                           "            columns (multi-output: see the user guide).", "SPORFClassifier")

    def _values_per_row(self):
        return int(np.sum(self.n_classes_))

    def _validate_fit_data(self, X, y):
        X, y = super()._validate_fit_data(X, y)
        check_classification_targets(y)
        return X, y

    def _target(self, y):
        if y.ndim == 2:  # several outputs: one tree for all (_multioutput.py)
            self._refuse_for_outputs(y.shape[1])
            classes, codes, n_classes = _multioutput.encode_classes(y)
            K = int(np.sum(n_classes))
            return _FitTarget(K, dict(codes=codes, n_classes=n_classes),
                              dict(codes_y=codes[:, 0], n_classes=n_classes[0]), np.concatenate(classes),
                              dict(classes_=classes, n_classes_=n_classes, n_outputs_=y.shape[1]), y, None)
        # One class fits, as scikit-learn's forests do: every tree is a leaf
        # predicting it with probability 1.
        classes, codes = _multioutput.class_codes(y)
        K = classes.shape[0]
        return _FitTarget(K, dict(codes=codes, n_classes=K, weight_per_class=self._weight_per_class(classes)),
                          dict(codes_y=codes, n_classes=K), classes,
                          dict(classes_=classes, n_classes_=K, n_outputs_=1), y, codes)

    def _weight_per_class(self, classes):
        """The custom class weights by class code (classes sorted), or None."""
        if not isinstance(self.class_weight, dict):
            return None
        cw = np.ones(len(classes), dtype=np.float64)
        index = {c: i for i, c in enumerate(classes.tolist())}
        unknown = [k for k in self.class_weight if k not in index]
        if unknown:
            # the words R uses: the labels of class_weight that y does not have
            raise ValueError("class_weight names classes that are not in y: %s"
                             % ", ".join(str(k) for k in unknown))
        # Only the type here: the core checks the values, in the words R shows too.
        for k, v in self.class_weight.items():
            if not isinstance(v, numbers.Real):
                raise ValueError("class_weight[%r] must be a number, got %r" % (k, v))
            cw[index[k]] = float(v)
        return cw

    def _set_oob(self, oob, y):
        if self.n_outputs_ > 1:  # a list per output; the score is the mean of the outputs' accuracies
            self.oob_decision_function_ = _multioutput.split(oob, self.n_classes_)
            pred = _multioutput.predicted_labels(self.oob_decision_function_, self.classes_)
            self.oob_score_ = float(np.mean(np.mean(pred == y, axis=0)))
            return
        self.oob_decision_function_ = oob
        self.oob_score_ = float(np.mean(self.classes_[np.argmax(oob, axis=1)] == y))

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class distributions.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes), or a list of them
            Columns follow ``classes_``. A forest fitted on multi-output y
            gives a list with one array per output, columns following
            ``classes_[j]``.
        """
        # _check_X (in _leaf_means) raises NotFittedError before n_classes_ is read
        if "_forest" not in self.__dict__:
            check_is_fitted(self, "_forest")
        K = self._n_values()
        if _dask.is_collection(X):  # a lazy Dask array, one task per row partition
            values = self._lazy(X, "_output_values", (K,), np.float64)
        else:
            values = self._leaf_means(X, K)
        return values if self.n_outputs_ == 1 else _multioutput.split(values, self.n_classes_)

    def _n_values(self):
        """Values per row of the leaf means: the classes of every output."""
        n = self.n_classes_
        return n if type(n) is int else int(sum(n))

    def _output_values(self, X):
        """The (n, K) mean leaf values: every output's probabilities side by side."""
        return self._leaf_means(X, self._n_values())

    def predict_votes(self, X):
        """Vote shares: each tree votes for the class its leaf gives the most
        weight, and each class gets its share of the voting trees
        (randomForest's ``type = "vote"``; R: ``predict(fit, x, type = "vote")``).
        With leaves of one row (``min_samples_leaf=1``) they equal ``predict_proba`` for
        nearly every row.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        votes : ndarray of shape (n_samples, n_classes)

        Examples
        --------
        >>> from sporf import SPORFClassifier
        >>> from sporf.datasets import make_trunk
        >>> X, y = make_trunk(100, n_features=4, random_state=0)
        >>> clf = SPORFClassifier(n_estimators=10, max_depth=2, random_state=0).fit(X, y)
        >>> float(clf.predict_votes(X[:1]).sum())
        1.0
        """
        if self.n_outputs_ > 1:
            _multioutput.refuse(self, "predict_votes")
        X = self._dense_X(X)
        return self._forest.predict_votes(X, self._n_threads(), len(self.classes_))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if isinstance(proba, list) else np.log(proba)

    def predict(self, X):
        """Predicted class: the class of highest mean probability.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,), or (n_samples, n_outputs)
            for a forest fitted on multi-output y. A lazy Dask array when X
            is a Dask array or DataFrame.
        """
        if self._plain_rows(X) and self.n_outputs_ == 1:  # the common case, in few steps (one-row calls)
            proba = self._forest.predict_proba(X, self._n_threads(), self.n_classes_)
            return self.classes_[proba.argmax(axis=1)]
        if _dask.is_collection(X):
            check_is_fitted(self, "_forest")
            multi = self.n_outputs_ > 1
            return self._lazy(X, "predict", (self.n_outputs_,) if multi else (),
                              (self.classes_[0] if multi else self.classes_).dtype)
        proba = self.predict_proba(X)
        if self.n_outputs_ > 1:
            return _multioutput.predicted_labels(proba, self.classes_)
        return self.classes_.take(proba.argmax(axis=1), axis=0)

    def _restore_task(self, forest, info):
        labels = forest.get_strings(_native.STR_CLASSES)
        self.n_outputs_ = int(info.n_outputs)
        if self.n_outputs_ > 1:
            widths = forest.outputs()
            self.classes_ = _multioutput.split_classes(labels, widths)
            self.n_classes_ = [int(w) for w in widths]
        else:
            self.classes_ = labels
            self.n_classes_ = int(info.n_classes)


class SPORFClassifier(_spec_gen._SPORFClassifierParams, _ForestClassifier):
    __doc__ = (
        """Sparse projection oblique randomer forest classifier (SPORF).

    Each split node draws d sparse random projections of the features (weights
    +1/-1), sorts the samples along each and takes the best cut, so the trees
    can split on sparse linear combinations as well as on single features.
    With ``projection="axis"`` it is Breiman's random forest.

"""
        + _spec_gen.PARAM_DOCS["SPORFClassifier"]
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,), or a list of them
        The class labels (for a multi-output y, one array per output).
    n_classes_ : int or list of int
        Number of classes (for a multi-output y, per output).
    n_outputs_ : int
        Number of outputs: the columns of a 2-D y, else 1.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during fit, when X had string column names.
    is_categorical_ : ndarray of bool of shape (n_features,)
        Which features are categorical (pandas ``category`` columns and
        ``categorical_features``); only when one is.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances; an oblique split's decrease is shared by
        its features in proportion to |weight|. Sums to 1.
    oob_score_ : float
        Out-of-bag accuracy (when ``oob_score=True``; for a multi-output y, the
        mean of the outputs' accuracies).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes), or a list of them
        Out-of-bag class probabilities (when ``oob_score=True``; one array
        per output for a multi-output y).
    permutation_importances_ : ndarray of shape (n_features,)
        With ``importance="permutation"``: each feature's out-of-bag permutation
        importance, the mean over trees of the decrease of a tree's out-of-bag
        accuracy when the feature's values are permuted among its out-of-bag rows.
    permutation_importances_std_ : ndarray of shape (n_features,)
        Their standard deviation over the trees.
    oob_error_curve_ : ndarray of shape (n_trees,)
        The out-of-bag misclassification rate of the first 1, 2, ... trees, over the
        rows out of bag for at least one of them (when ``oob_score=True``;
        randomForest's ``err.rate``, what R's ``plot(fit)`` draws).
    oob_error_curve_by_class_ : ndarray of shape (n_estimators, n_classes)
        The same for each class: the share of its rows out of bag so far
        that the forest misclassifies (NaN before one is out of bag; R:
        ``$oob_error_curve_by_class`` and ``err.rate``'s class columns).
    tuning_ : list of dict
        With ``tune_oob=True``: one dict per candidate of the grid -- the
        parameters the grid varies, ``n_trees`` it grew and ``oob_error`` of
        those trees (misclassification rate; for the winner, of the whole forest).
    best_params_ : dict
        With ``tune_oob=True``: the winner's values of those parameters; the
        estimator's other parameters with these and the same ``random_state``
        grow exactly the fitted forest.
    min_samples_leaf_ : int
        With ``min_samples_leaf="auto"``: the leaf size the forest chose out
        of bag and was pruned to.
    leaf_scores_ : dict
        With ``min_samples_leaf="auto"``: each leaf size tried and its
        out-of-bag score (the Brier score of the class probabilities; lower is better).
    splitter_ : str
        With ``splitter="auto"``: the trees the forest kept -- "mixed" (all of them,
        both kinds), "best" (the best-cut trees alone) or "random" (the random-cut
        trees alone; a forest that keeps one kind holds half the trees it grew).
    splitter_scores_ : dict
        With ``splitter="auto"``: each of those choices' out-of-bag score at its
        best leaf size, estimated for the forest as it would be stored (lower is
        better).
    n_estimators_ : int
        The trees the fitted forest holds: ``n_estimators``, or that kind's trees
        among them when ``splitter="auto"`` kept one kind (R: ``fit$n_estimators``).
        ``apply``, ``predict_trees``, ``get_tree`` and the out-of-bag error curve
        count these.

    Examples
    --------
    >>> from sporf import SPORFClassifier
    >>> from sporf.datasets import make_trunk
    >>> X, y = make_trunk(500, n_features=10, random_state=0)
    >>> clf = SPORFClassifier(n_estimators=50, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    >>> round(float(clf.predict_proba(X[:1]).sum()), 6)
    1.0
    """
    )


class _ForestRegressor(RegressorMixin, _BaseForest):
    """What every regression forest does -- fit on a numeric response and
    predict its mean. SPORFRegressor and MORFRegressor are its leaves."""

    @exclusive_fit
    def fit(self, X, y, sample_weight=None):
        return self._fit_forest(X, y, sample_weight)

    fit.__doc__ = _fit_doc("Numeric response; NaN and infinity are refused. A 2-D y grows one\n"
                           "            forest for all its columns (multi-output: see the user guide).",
                           "SPORFRegressor")

    def _values_per_row(self):
        return self.n_outputs_

    def _target(self, y):
        y = np.ascontiguousarray(y, dtype=np.float64)
        m = 1 if y.ndim == 1 else y.shape[1]
        if m > 1:
            self._refuse_for_outputs(m)
        return _FitTarget(m, dict(y=y), dict(y=np.ascontiguousarray(y.reshape(len(y), -1)[:, 0])), None,
                          dict(n_outputs_=m), y, y if m == 1 else None)

    def _set_oob(self, oob, y):
        self.oob_prediction_ = oob[:, 0] if self.n_outputs_ == 1 else oob
        self.oob_score_ = float(r2_score(y, self.oob_prediction_))

    def predict(self, X, quantiles=None, oob=False):
        """Predicted response: the mean of the trees' leaf means, or
        conditional quantiles of the response.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        quantiles : float or array-like of floats in [0, 1], default=None
            None: the mean. Otherwise the conditional quantiles of the
            response at these probabilities (Meinshausen's quantile
            regression forests; the forest must be grown with
            ``quantiles=True``): for each row, the smallest training response
            at which the forest's weighted distribution of the training
            responses in the row's leaves reaches the probability. Each tree
            gives the training rows of the row's leaf its share of the leaf's
            weight (sample weight times bootstrap draws; an honest tree's
            leaf: its held-out rows). ``[0.1, 0.9]`` gives a raw 80% prediction
            interval, which usually covers less than 80% of new rows (and on
            some data more); :meth:`predict_interval` calibrates it.
        oob : bool, default=False
            X is the training data: each row's mean or quantiles come only
            from the trees it was out of bag for (NaN for a row in every
            tree's bag). Needs trees that leave rows out: ``bootstrap=True``,
            or ``max_samples`` without it.

        Returns
        -------
        y : ndarray of shape (n_samples,), or (n_samples, n_quantiles) when
            quantiles is a list; a lazy Dask array, one task per row
            partition, when X is a Dask array or DataFrame
        """
        if quantiles is None and not oob and self._plain_rows(X) and self.n_outputs_ == 1:
            return self._forest.predict_proba(X, self._n_threads(), 1)[:, 0]  # the common case, in few steps
        if _dask.is_collection(X):  # a lazy Dask array, one task per row partition
            if oob:
                raise ValueError("oob=True needs the training rows in memory, not a Dask collection")
            check_is_fitted(self, "_forest")
            width = () if quantiles is None or np.ndim(quantiles) == 0 else (len(quantiles),)
            if quantiles is None and self.n_outputs_ > 1:
                width = (self.n_outputs_,)
            return self._lazy(X, "predict", width, np.float64, quantiles=quantiles)
        if oob:
            X = self._oob_rows(X)
        if quantiles is None:
            if "_forest" not in self.__dict__:  # cheaper than check_is_fitted on one-row calls
                check_is_fitted(self, "_forest")
            m = self.n_outputs_
            if oob:
                values = self._oob_from_forest(X, m)
            else:
                values = self._leaf_means(X, m)
            return values[:, 0] if m == 1 else values
        probs = np.asarray(quantiles, dtype=np.float64)
        if probs.ndim > 1 or probs.size == 0:
            raise ValueError("quantiles must be a probability or a non-empty 1-D list of them, got shape %r"
                             % (probs.shape,))
        if not np.all((probs >= 0.0) & (probs <= 1.0)):
            raise ValueError("quantiles must be probabilities in [0, 1], got %r" % (quantiles,))
        if not oob:  # oob: X is the training rows as the forest reads them (_oob_rows)
            X = self._check_X(X)
        if not self.quantiles:
            raise ValueError("this forest keeps no quantiles: grow it with %s(quantiles=True)"
                             % type(self).__name__)
        n_threads = self._n_threads()
        if oob and _sparse.issparse(X):
            X = X.toarray()  # the out-of-bag rows are the whole training set
        if _sparse.issparse(X):
            out = np.empty((X.shape[0], probs.size), dtype=np.float64)
            for i, block in _sparse.row_blocks(X):
                out[i:i + block.shape[0]] = self._forest.predict_quantiles(block, probs.ravel(), n_threads)
        else:
            out = self._forest.predict_quantiles(X, probs.ravel(), n_threads, oob)
        return self._quantile_result(out, probs)

    def score(self, X, y, sample_weight=None):
        """The coefficient of determination R^2 of the predictions of X.

        1 - (residual sum of squares) / (total sum of squares of y around its
        mean): 1 for perfect predictions, 0 for predicting y's mean, negative
        for worse (scikit-learn's ``RegressorMixin.score``; for several
        outputs, their mean R^2).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            The true responses.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        return super().score(X, y, sample_weight=sample_weight)

    def _set_interval_scores(self, X, y):
        """interval_scores_: each training row's out-of-bag conformity
        score, which calibrates predict_interval (a quantile forest whose
        trees left rows out; else none, until calibrate_intervals)."""
        for name in ("interval_scores_", "interval_calibration_"):
            self.__dict__.pop(name, None)
        if not self.quantiles:
            return
        X = X.toarray() if _sparse.issparse(X) else X
        scores = self._forest.interval_scores(X, np.ascontiguousarray(y, dtype=np.float64), self._n_threads(),
                                              oob=True)
        if np.isnan(scores).all():  # the trees drew every row
            return
        self.interval_scores_ = scores
        self.interval_calibration_ = "out-of-bag"

    def calibrate_intervals(self, X, y):
        """Calibrate ``predict_interval`` on held-out rows (split conformal
        prediction).

        Replaces the out-of-bag calibration of the fit by the conformity
        scores of rows the forest was not grown on, exchangeable with the rows
        to predict: the calibrated interval then covers a new row's response
        with probability at least the coverage asked (marginally, over rows),
        a guarantee the out-of-bag calibration gives only approximately. Also
        calibrates a forest that has no out-of-bag rows (``bootstrap=False``
        without ``max_samples``, or read from a file by :func:`sporf.load`).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Rows the forest was not grown on.
        y : array-like of shape (n_samples,)
            Their responses.

        Returns
        -------
        self
        """
        check_is_fitted(self, "_forest")
        if not self.quantiles:
            raise ValueError("calibrate_intervals needs a forest that keeps quantiles: grow it with "
                             "%s(quantiles=True)" % type(self).__name__)
        X = self._dense_X(X)
        y = np.asarray(y)
        if y.dtype.kind not in "biuf":
            raise ValueError("calibrate_intervals: y must be numeric, got dtype %s" % y.dtype)
        y = np.ascontiguousarray(y, dtype=np.float64)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError("calibrate_intervals: y must be 1-D with one value per row of X (%d rows), got "
                             "shape %r" % (X.shape[0], y.shape))
        if X.shape[0] == 0:
            raise ValueError("calibrate_intervals: X has no rows")
        self.interval_scores_ = self._forest.interval_scores(X, y, self._n_threads())
        self.interval_calibration_ = "held-out"
        return self

    def predict_interval(self, X, coverage=0.9, calibrated=True):
        """Prediction interval of each row at a coverage.

        The forest's conditional quantiles at the levels ``1/2 - q`` and
        ``1/2 + q``. Uncalibrated, ``q = coverage / 2`` (``predict(X,
        quantiles=[0.05, 0.95])`` at 90%): such intervals usually cover less
        than they promise, because a forest's training rows sit closer to a
        query than new rows do, and on some data more. Calibrated, ``q`` is chosen by conformal prediction on
        the quantile levels from ``interval_scores_`` -- the training rows'
        out-of-bag scores (how far into a tail of its out-of-bag conditional
        distribution each row's response lies), or held-out rows' scores
        after :meth:`calibrate_intervals`. The interval keeps the forest's
        shape (wider where the response is noisier) and covers about
        ``coverage`` of new rows: on average over rows (marginal coverage),
        not for each x, for new rows drawn like the calibration rows. With
        held-out rows the coverage is guaranteed to be at least
        ``coverage``; out of bag it is approximate (see the user guide).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        coverage : float in (0, 1), default=0.9
            The share of new rows' responses the interval should hold.
        calibrated : bool, default=True
            Calibrate by conformal prediction (needs ``interval_scores_``);
            False gives the forest's raw quantile interval.

        Returns
        -------
        interval : ndarray of shape (n_samples, 2)
            Lower and upper ends.

        Examples
        --------
        >>> import numpy as np
        >>> from sporf import SPORFRegressor
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-3, 3, (3000, 2))
        >>> y = X[:, 0] + (1 + np.abs(X[:, 0])) * rng.standard_normal(3000)
        >>> reg = SPORFRegressor(quantiles=True, random_state=0).fit(X[:2000], y[:2000])
        >>> iv = reg.predict_interval(X[2000:], coverage=0.8)
        >>> iv.shape, reg.interval_calibration_
        ((1000, 2), 'out-of-bag')
        >>> bool(abs(np.mean((iv[:, 0] <= y[2000:]) & (y[2000:] <= iv[:, 1])) - 0.8) < 0.04)
        True
        """
        check_is_fitted(self, "_forest")
        if not self.quantiles:
            raise ValueError("predict_interval needs a forest that keeps quantiles: grow it with "
                             "%s(quantiles=True)" % type(self).__name__)
        if isinstance(coverage, (bool, np.bool_)) or not isinstance(coverage, (numbers.Real, np.floating)) \
                or not 0.0 < float(coverage) < 1.0:
            raise ValueError("coverage must be a number in (0, 1), got %r" % (coverage,))
        if not isinstance(calibrated, (bool, np.bool_)):
            raise ValueError("calibrated must be True or False, got %r" % (calibrated,))
        scores = self._calibration() if calibrated else None
        if _dask.is_collection(X):  # a lazy Dask array, one task per row partition
            return self._lazy(X, "predict_interval", (2,), np.float64, coverage=float(coverage),
                              calibrated=bool(calibrated))
        X = self._check_X(X)
        n_threads = self._n_threads()
        if _sparse.issparse(X):
            out = np.empty((X.shape[0], 2), dtype=np.float64)
            for i, block in _sparse.row_blocks(X):
                out[i:i + block.shape[0]] = self._forest.predict_interval(block, float(coverage), scores, n_threads)
            return out
        return self._forest.predict_interval(X, float(coverage), scores, n_threads)

    def _calibration(self):
        """interval_scores_, or the error that says how to get them."""
        scores = self.__dict__.get("interval_scores_")
        if scores is None:
            raise ValueError("this forest has no interval calibration: its trees drew every row (none was out "
                             "of bag), or it was read from a file (files keep no out-of-bag results). Call "
                             "calibrate_intervals(X_held_out, y_held_out), or pass calibrated=False for the "
                             "uncalibrated interval")
        return scores

    def _restore_task(self, forest, info):
        self.n_outputs_ = int(info.n_outputs)

    @staticmethod
    def _quantile_result(out, probs):
        return out[:, 0] if probs.ndim == 0 else out


class SPORFRegressor(_spec_gen._SPORFRegressorParams, _ForestRegressor):
    __doc__ = (
        """Sparse projection oblique randomer forest regressor (SPORF).

    The regression twin of :class:`SPORFClassifier`: the same projections,
    with splits chosen by the decrease of the squared error and leaves that
    predict the mean response of their samples; the forest predicts the mean
    of the trees' leaf means.

"""
        + _spec_gen.PARAM_DOCS["SPORFRegressor"]
        + """
    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during fit, when X had string column names.
    is_categorical_ : ndarray of bool of shape (n_features,)
        Which features are categorical (pandas ``category`` columns and
        ``categorical_features``); only when one is.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity (squared error) based importances. Sums to 1.
    n_outputs_ : int
        Number of outputs: the columns of a 2-D y, else 1.
    oob_score_ : float
        Out-of-bag R^2 (when ``oob_score=True``; for a multi-output y, the
        mean of the outputs' R^2).
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Out-of-bag predictions (when ``oob_score=True``).
    permutation_importances_ : ndarray of shape (n_features,)
        With ``importance="permutation"``: each feature's out-of-bag permutation
        importance, the mean over trees of the decrease of a tree's out-of-bag R^2
        (its squared error over the variance of y) when the feature's values are
        permuted among its out-of-bag rows.
    permutation_importances_std_ : ndarray of shape (n_features,)
        Their standard deviation over the trees.
    oob_error_curve_ : ndarray of shape (n_trees,)
        The out-of-bag mean squared error of the first 1, 2, ... trees, over the rows
        out of bag for at least one of them (when ``oob_score=True``; what R's
        ``plot(fit)`` draws).
    tuning_ : list of dict
        With ``tune_oob=True``: one dict per candidate of the grid -- the
        parameters the grid varies, ``n_trees`` it grew and ``oob_error`` of
        those trees (mean squared error; for the winner, of the whole forest).
    best_params_ : dict
        With ``tune_oob=True``: the winner's values of those parameters; the
        estimator's other parameters with these and the same ``random_state``
        grow exactly the fitted forest.
    min_samples_leaf_ : int
        With ``min_samples_leaf="auto"``: the leaf size the forest chose out
        of bag and was pruned to.
    leaf_scores_ : dict
        With ``min_samples_leaf="auto"``: each leaf size tried and its
        out-of-bag score (the mean squared error; lower is better).
    splitter_ : str
        With ``splitter="auto"``: the trees the forest kept -- "mixed" (all of them,
        both kinds), "best" (the best-cut trees alone) or "random" (the random-cut
        trees alone; a forest that keeps one kind holds half the trees it grew).
    splitter_scores_ : dict
        With ``splitter="auto"``: each of those choices' out-of-bag score at its
        best leaf size, estimated for the forest as it would be stored (lower is
        better).
    n_estimators_ : int
        The trees the fitted forest holds: ``n_estimators``, or that kind's trees
        among them when ``splitter="auto"`` kept one kind (R: ``fit$n_estimators``).
        ``apply``, ``predict_trees``, ``get_tree`` and the out-of-bag error curve
        count these.
    interval_scores_ : ndarray of shape (n_calibration_rows,)
        With ``quantiles=True``: the conformity scores that calibrate
        :meth:`predict_interval` -- each training row's out-of-bag score
        (NaN for a row in every tree's bag; trees that leave rows out only),
        or the held-out rows' after :meth:`calibrate_intervals`.
    interval_calibration_ : str
        Where those scores come from: ``"out-of-bag"`` or ``"held-out"``.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sporf import SPORFRegressor
    >>> X, y = make_friedman1(300, random_state=0)
    >>> reg = SPORFRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """
    )
