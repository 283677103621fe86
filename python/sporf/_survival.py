"""SPORFSurvival: oblique random survival forests for right-censored times,
in scikit-survival's conventions (y a structured array of (event, time);
risk scores, survival and cumulative hazard functions, Harrell's C)."""
import numbers

import numpy as np
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from . import _dask, _native, _spec_gen
from ._exclusive import exclusive_fit
from ._forest import _BaseForest, _FitTarget
from ._native import FIT_DTYPES

_Y_HELP = ("y must hold each row's event flag and time: a structured array of two fields (event, time), as "
           "sksurv.util.Surv.from_arrays(event, time) builds it, or a pair (event, time) of arrays")


def survival_target(y):
    """(event as int32 0/1, time as float64) from a structured array whose
    first two fields are the event flag and the time (read by position, as
    scikit-survival's are), or from a pair of arrays (event, time)."""
    if isinstance(y, (tuple, list)) and len(y) == 2:
        event, time = np.asarray(y[0]), np.asarray(y[1])
    else:
        y = np.asarray(y)
        names = y.dtype.names
        if names is None or len(names) != 2:
            raise ValueError("%s; got %s" % (_Y_HELP, "an array of shape %r" % (y.shape,) if names is None
                                             else "a structured array of %d fields" % len(names)))
        event, time = y[names[0]], y[names[1]]
    if event.ndim != 1 or time.ndim != 1 or event.shape != time.shape:
        raise ValueError("%s; the event flags and times must be 1-D of one length, got shapes %r and %r"
                         % (_Y_HELP, event.shape, time.shape))
    if event.dtype.kind not in "biuf":
        raise ValueError("the event flags must be booleans or 0/1, got dtype %s" % event.dtype)
    bad = np.flatnonzero((event != 0) & (event != 1))
    if bad.size:
        raise ValueError("event[%d] = %r: an event flag is True/1 (the event was observed) or False/0 (censored)%s"
                         % (bad[0], event[bad[0]].item(), _event_hint(y, event, time)))
    try:
        time = time.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("the times must be numbers: %s" % exc) from exc
    bad = np.flatnonzero(~(np.isfinite(time) & (time >= 0)))
    if bad.size:
        raise ValueError("time[%d] = %r: survival times must be finite numbers >= 0" % (bad[0], time[bad[0]].item()))
    return np.ascontiguousarray(event, dtype=np.int32), np.ascontiguousarray(time)


def _event_hint(y, event, time):
    """What an event column that is not 0/1 most likely is, in the error's words."""
    names = getattr(getattr(y, "dtype", None), "names", None)
    codes = set(np.unique(event).tolist())
    if names and np.all((time == 0) | (time == 1)) and not codes <= {0, 1}:
        # the flags sit in the second field: the fields are read by position
        return ("; the fields are read by position, (event, time) as scikit-survival orders them, and yours "
                "read (%s, %s) -- the times come first: pass y[[%r, %r]]" % (names[0], names[1], names[1], names[0]))
    if codes <= {1, 2}:
        return "; R's survival status codes 1/2 (2: the event)? pass status == 2 (or status - 1)"
    if codes <= {0, 1, 2}:
        return ("; three codes 0/1/2 (pbc's status: 0 censored, 1 transplant, 2 death)? choose the event: "
                "status == 2 makes the other codes censored")
    return ""


def null_residuals(event, time):
    """Each row's martingale residual under one Nelson-Aalen hazard for all
    rows (event - H(time)): what orders a categorical feature's levels, as the
    log-rank score orders rows."""
    order = np.argsort(time, kind="stable")
    t = time[order]
    uniq, first = np.unique(t, return_index=True)
    at_risk = len(t) - first
    deaths = np.add.reduceat(event[order].astype(np.float64), first)
    H = np.cumsum(deaths / at_risk)
    return event - H[np.searchsorted(uniq, time)]


class StepFunction:
    """A curve of a survival forest: right-continuous, constant between the
    times ``x`` at which it takes the values ``y``, and ``initial`` before the
    first (1 for a survival function, 0 for a cumulative hazard). Call it at
    times, as scikit-survival's ``StepFunction``."""

    def __init__(self, x, y, initial):
        self.x = x
        self.y = y
        self.initial = initial

    def __call__(self, t):
        t = np.asarray(t, dtype=np.float64)
        at = np.searchsorted(self.x, t, side="right") - 1
        return np.where(at >= 0, self.y[np.maximum(at, 0)], self.initial)

    def __repr__(self):
        return "StepFunction(x=%r, y=%r)" % (self.x, self.y)


class _ForestSurvival(_BaseForest):
    """What every survival forest does -- fit on (event, time) and predict
    risks and curves. SPORFSurvival and MORFSurvival are its leaves."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.one_d_labels = False
        tags.target_tags.two_d_labels = False
        return tags

    @exclusive_fit
    def fit(self, X, y, sample_weight=None):
        """Grow the forest from training data.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Training data; converted to float64. NaN marks a missing value (each
            split learns where rows missing its features go). Infinity is refused.
        y : structured array of shape (n_samples,), or a pair (event, time)
            The event flag (bool or 0/1: the event was observed at the time,
            else the row was censored there) and the time (finite, >= 0) of
            each row; fields read by position.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None gives every sample weight 1.

        Returns
        -------
        self
        """
        return self._fit_forest(X, y, sample_weight)

    def _values_per_row(self):
        return 1

    def _validate_fit_data(self, X, y):
        event, time = survival_target(y)
        X = validate_data(self, X, dtype=FIT_DTYPES, ensure_min_samples=2, accept_sparse=("csr", "csc"),
                          ensure_all_finite=False)
        check_consistent_length(X, time)
        return X, (event, time)

    def _target(self, y):
        event, time = y
        residual = null_residuals(event, time)
        return _FitTarget(1, dict(y=time, events=event), dict(y=residual), None, dict(n_outputs_=1),
                          (event, time), None)

    def _after_fit(self, X):
        self._set_times(self._forest)
        self._set_interval_scores(X)
        self.__dict__.pop("oob_error_curve_", None)
        if getattr(self, "oob_score", False):
            # 1 - Harrell's C of the first 1, 2, ... trees' out-of-bag risks
            event, time = self._survival_y
            Xd = np.ascontiguousarray(X, dtype=np.float64) if not hasattr(X, "toarray") else X.toarray()
            self.oob_error_curve_, _ = self._forest.oob_curve(Xd, codes=np.ascontiguousarray(event, dtype=np.int32),
                                                              y=np.ascontiguousarray(time, dtype=np.float64))
        if getattr(self, "importance", "impurity") == "permutation":
            self._set_survival_permutation(X)
        else:
            for name in ("permutation_importances_", "permutation_importances_std_"):
                self.__dict__.pop(name, None)
        self.__dict__.pop("_survival_y", None)

    def _fit_forest(self, X, y, sample_weight):
        # the response again for the steps after the core fit (out-of-bag score, importance)
        self._survival_y = survival_target(y)
        try:
            return super()._fit_forest(X, y, sample_weight)
        finally:
            self.__dict__.pop("_survival_y", None)

    def _set_times(self, forest):
        self.unique_times_, self.is_event_time_ = forest.unique_times()
        self.event_times_ = self.unique_times_[self.is_event_time_]

    def _set_interval_scores(self, X):
        """interval_scores_ and interval_weights_: the training rows'
        out-of-bag conformity scores and censoring weights, which calibrate
        predict_interval (none when the trees drew every row)."""
        for name in ("interval_scores_", "interval_weights_", "interval_calibration_"):
            self.__dict__.pop(name, None)
        event, time = self._survival_y
        X = np.ascontiguousarray(X, dtype=np.float64) if not hasattr(X, "toarray") else X.toarray()
        scores, weights = self._forest.survival_interval_scores(X, time, event, self._n_threads(), oob=True)
        if np.isnan(scores).all():
            return
        self.interval_scores_, self.interval_weights_ = scores, weights
        self.interval_calibration_ = "out-of-bag"

    def calibrate_intervals(self, X, y):
        """Calibrate ``predict_interval`` on held-out rows (split conformal
        prediction, weighted for censoring).

        Replaces the out-of-bag calibration of the fit by the conformity
        scores of rows the forest was not grown on: each row whose event was
        observed scores how far into a tail of its survival curve its time
        lies, weighted by the inverse of the probability of remaining
        uncensored that long (the Kaplan-Meier curve of these rows' censoring
        times). Also calibrates a forest without out-of-bag rows or read from
        a file.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
            Rows the forest was not grown on.
        y : structured array of (event, time), or a pair (event, time)
            Their event flags and times; at least one event.

        Returns
        -------
        self
        """
        check_is_fitted(self, "_forest")
        event, time = survival_target(y)
        X = self._dense_X(X)
        if X.shape[0] == 0:
            raise ValueError("calibrate_intervals: X has no rows")
        if time.shape[0] != X.shape[0]:
            raise ValueError("calibrate_intervals: y has %d rows but X has %d" % (time.shape[0], X.shape[0]))
        self.interval_scores_, self.interval_weights_ = self._forest.survival_interval_scores(
            X, time, event, self._n_threads())
        self.interval_calibration_ = "held-out"
        return self

    def predict_interval(self, X, coverage=0.9, calibrated=True):
        """Prediction interval of each row's event time at a coverage.

        The times at which the row's survival curve S falls to ``1/2 + q``
        and to ``1/2 - q``: the quantiles of its event-time distribution at
        the levels ``1/2 - q`` and ``1/2 + q``. Uncalibrated, ``q = coverage /
        2``. Calibrated, ``q`` comes from weighted conformal prediction on
        those levels, from ``interval_scores_`` and ``interval_weights_``:
        the training rows' out-of-bag scores (rows whose event was observed,
        weighted by the inverse of the probability of remaining uncensored
        that long, so that long times count for the censored rows that would
        have had them), or held-out rows' after :meth:`calibrate_intervals`.
        The interval covers about ``coverage`` of new rows' event times, on
        average over rows (marginal coverage); it rests on censoring
        independent of the event time and of the features, and is
        approximate (see the user guide). The upper end is ``inf`` when the
        row's curve stays above ``1/2 - q`` over the training times: the
        data do not bound the time from above.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        coverage : float in (0, 1), default=0.9
            The share of new rows' event times the interval should hold.
        calibrated : bool, default=True
            Calibrate by weighted conformal prediction (needs
            ``interval_scores_``); False gives the raw interval of the
            forest's curves.

        Returns
        -------
        interval : ndarray of shape (n_samples, 2)
            Lower and upper ends (times; the upper may be ``inf``).

        Examples
        --------
        >>> import numpy as np
        >>> from sporf import SPORFSurvival
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(1500, 3))
        >>> t = rng.exponential(np.exp(-X[:, 0]))
        >>> c = rng.exponential(3.0, size=1500)
        >>> y = np.array(list(zip(t[:1000] <= c[:1000], np.minimum(t, c)[:1000])),
        ...              dtype=[("event", "?"), ("time", "<f8")])
        >>> est = SPORFSurvival(n_estimators=100, random_state=0).fit(X[:1000], y)
        >>> iv = est.predict_interval(X[1000:], coverage=0.8)
        >>> iv.shape, est.interval_calibration_
        ((500, 2), 'out-of-bag')
        >>> bool(abs(np.mean((iv[:, 0] <= t[1000:]) & (t[1000:] <= iv[:, 1])) - 0.8) < 0.05)
        True
        """
        check_is_fitted(self, "_forest")
        if isinstance(coverage, (bool, np.bool_)) or not isinstance(coverage, (numbers.Real, np.floating)) \
                or not 0.0 < float(coverage) < 1.0:
            raise ValueError("coverage must be a number in (0, 1), got %r" % (coverage,))
        if not isinstance(calibrated, (bool, np.bool_)):
            raise ValueError("calibrated must be True or False, got %r" % (calibrated,))
        scores = weights = None
        if calibrated:
            scores, weights = self.__dict__.get("interval_scores_"), self.__dict__.get("interval_weights_")
            if scores is None or weights is None:
                raise ValueError("this forest has no interval calibration: its trees drew every row (none was out "
                                 "of bag), or it was read from a file (files keep no out-of-bag results). Call "
                                 "calibrate_intervals(X_held_out, y_held_out), or pass calibrated=False for the "
                                 "uncalibrated interval")
        if _dask.is_collection(X):  # a lazy Dask array, one task per row partition
            return self._lazy(X, "predict_interval", (2,), np.float64, coverage=float(coverage),
                              calibrated=bool(calibrated))
        X = self._check_X(X)
        if hasattr(X, "toarray"):
            X = X.toarray()
        return self._forest.predict_survival_interval(X, float(coverage), scores, weights, self._n_threads())

    def _set_oob(self, oob, y):
        event, time = survival_target(y)
        self.oob_prediction_ = oob[:, 0]
        self.oob_score_ = _native.concordance_index(time, event, self.oob_prediction_)

    def _set_permutation(self, X, y):
        """(The one-output hook of the template; _after_fit sets them.)"""

    def _set_survival_permutation(self, X):
        event, time = self._survival_y
        X = np.asarray(X, dtype=np.float64) if not hasattr(X, "toarray") else X.toarray()
        mean, std = self._forest.permutation_importance(X, self._n_threads(), codes=event, y=time)
        self.permutation_importances_ = mean
        self.permutation_importances_std_ = std

    def _after_warm_fit(self, X, y, n_out):
        Xv = self._dense_X(X)
        if getattr(self, "oob_score", False):
            self._set_oob(self._oob_from_forest(Xv, 1), self._survival_y)
        self._after_fit(Xv)
        return self

    def _restore_task(self, forest, info):
        self.n_outputs_ = 1
        self._set_times(forest)

    # ---- prediction ----

    def predict(self, X, oob=False):
        """Risk scores: the forest's cumulative hazard summed over the
        training event times (the expected number of events; higher is
        riskier), the mean of the trees' leaf risks.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        oob : bool, default=False
            X is the training data: each row's risk comes only from the trees
            it was out of bag for.

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        if _dask.is_collection(X):
            check_is_fitted(self, "_forest")
            return self._lazy(X, "predict", (), np.float64)
        if oob:
            return self._oob_from_forest(self._oob_rows(X), 1)[:, 0]
        return self._leaf_means(X, 1)[:, 0]

    def _curves(self, X, times, what, oob):
        check_is_fitted(self, "_forest")
        times = self.unique_times_ if times is None else np.atleast_1d(np.asarray(times, dtype=np.float64))
        if times.ndim != 1 or times.size == 0 or not np.all(np.isfinite(times)):
            raise ValueError("times must be a non-empty 1-D array of finite numbers")
        if oob:
            X = self._oob_rows(X)
        else:
            X = self._check_X(X)
            if hasattr(X, "toarray"):
                X = X.toarray()
        return times, self._forest.predict_survival(X, times, self._n_threads(), what=what, oob=oob)

    def predict_survival_function(self, X, return_array=False, times=None, oob=False):
        """Survival functions: the mean of the trees' leaf Kaplan-Meier
        estimates.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        return_array : bool, default=False
            True: an array of each row's S(t) at the times; False: one
            :class:`StepFunction` per row, to call at any time.
        times : array-like of float, default=None
            The times; None: ``unique_times_``.
        oob : bool, default=False
            X is the training data: each row's curve over the trees it was out
            of bag for (NaN for a row in every tree's bag).

        Returns
        -------
        survival : ndarray of shape (n_samples, n_times), or an array of
            StepFunction of shape (n_samples,)
        """
        times, out = self._curves(X, times, "survival", oob)
        return out if return_array else _step_functions(times, out, 1.0)

    def predict_cumulative_hazard_function(self, X, return_array=False, times=None, oob=False):
        """Cumulative hazard functions: the mean of the trees' leaf
        Nelson-Aalen estimates. Parameters and returns as
        :meth:`predict_survival_function`."""
        times, out = self._curves(X, times, "chf", oob)
        return out if return_array else _step_functions(times, out, 0.0)

    def predict_restricted_mean(self, X, horizon, oob=False):
        """Restricted mean survival time: the area under each row's survival
        function from 0 to ``horizon`` (the expected time alive up to it),
        each tree's averaged.

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        horizon : float
            The time the mean is restricted to (> 0).
        oob : bool, default=False
            X is the training data: out-of-bag curves.

        Returns
        -------
        rmst : ndarray of shape (n_samples,)
        """
        if not isinstance(horizon, numbers.Real) or not np.isfinite(horizon) or horizon <= 0:
            raise ValueError("horizon must be a finite time > 0, got %r" % (horizon,))
        return self._curves(X, [float(horizon)], "rmst", oob)[1][:, 0]

    def score(self, X, y, sample_weight=None):
        """Harrell's concordance index of the risk scores on (X, y).

        Parameters
        ----------
        X : {array-like, scipy sparse matrix} of shape (n_samples, n_features)
        y : structured array of (event, time), or a pair (event, time)
        sample_weight : None
            Not used (Harrell's C counts pairs); present for scikit-learn's API.

        Returns
        -------
        c : float
        """
        event, time = survival_target(y)
        return _native.concordance_index(time, event, self.predict(X))


class SPORFSurvival(_spec_gen._SPORFSurvivalParams, _ForestSurvival):
    __doc__ = (
        """Oblique random survival forest (SPORF for right-censored times).

    Trees draw the sparse oblique projections of :class:`SPORFClassifier`
    and cut where the log-rank statistic of the two sides is largest (its
    numerator squared over its hypergeometric variance, as ranger and
    scikit-survival score cuts; ``criterion="logrankscore"`` scores its score
    form, the sides' sums of the rows' martingale residuals standardized by
    their permutation variance, which histogram scans and random cuts use for
    either). Each leaf keeps its training
    rows, so its curves are the Kaplan-Meier survival and Nelson-Aalen
    cumulative hazard of its own rows; the forest's curves are the means of
    its trees', and its risk score is the forest's cumulative hazard summed
    over the training event times (the expected number of events, as
    scikit-survival's and randomForestSRC's). The model file grows with the
    rows, not with every distinct time.

    y is a structured array whose first field is the event flag (bool or
    0/1) and second the time, as ``sksurv.util.Surv.from_arrays(event,
    time)`` builds it (the fields are read by position), or a pair of arrays
    ``(event, time)``. scikit-survival is not needed; its metrics
    (``concordance_index_ipcw``, ``integrated_brier_score``) take this
    estimator's risks and curves.

"""
        + _spec_gen.PARAM_DOCS["SPORFSurvival"]
        + """
    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during fit, when X had string column names.
    unique_times_ : ndarray of shape (n_unique_times,)
        The distinct training times, ascending: where ``return_array=True``
        evaluates the curves.
    is_event_time_ : ndarray of bool of shape (n_unique_times,)
        Whether a training row had its event at each of them.
    event_times_ : ndarray
        The distinct training event times (``unique_times_[is_event_time_]``),
        over which the risk sums the cumulative hazard.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity based importances (the decrease of the log-rank score
        statistic). Sums to 1.
    oob_score_ : float
        Out-of-bag Harrell's C (when ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag risk scores (when ``oob_score=True``).
    oob_error_curve_ : ndarray of shape (n_trees,)
        When ``oob_score=True``: 1 - Harrell's C of the first 1, 2, ...
        trees' out-of-bag risks, over the rows out of bag for at least one
        of them (randomForestSRC's error rate; R's ``plot(fit)`` draws it).
        The last is ``1 - oob_score_``.
    permutation_importances_ : ndarray of shape (n_features,)
        With ``importance="permutation"``: each feature's mean drop of a
        tree's out-of-bag Harrell's C when its values are permuted.
    permutation_importances_std_ : ndarray of shape (n_features,)
        Their standard deviation over the trees.
    min_samples_leaf_ : int
        With ``min_samples_leaf="auto"``: the leaf size the forest chose out
        of bag (by the out-of-bag Harrell's C of the risks) and was pruned to.
    leaf_scores_ : dict
        With ``min_samples_leaf="auto"``: each leaf size tried and its
        out-of-bag score (1 - Harrell's C; lower is better).
    interval_scores_ : ndarray of shape (n_calibration_rows,)
        The conformity scores that calibrate :meth:`predict_interval`: the
        training rows' out-of-bag scores (NaN for censored rows and rows in
        every tree's bag), or held-out rows' after
        :meth:`calibrate_intervals`. Absent when the trees drew every row.
    interval_weights_ : ndarray of shape (n_calibration_rows,)
        Their censoring weights: 1 / G(T-) for rows whose event was
        observed (G the Kaplan-Meier curve of the rows' censoring times), 0
        for censored rows.
    interval_calibration_ : str
        ``"out-of-bag"`` or ``"held-out"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import SPORFSurvival
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 4))
    >>> t = rng.exponential(np.exp(-X[:, 0]))
    >>> c = rng.exponential(2.0, size=300)
    >>> y = np.array(list(zip(t <= c, np.minimum(t, c))), dtype=[("event", "?"), ("time", "<f8")])
    >>> est = SPORFSurvival(n_estimators=50, random_state=0).fit(X, y)
    >>> est.predict_survival_function(X[:2], return_array=True).shape == (2, len(est.unique_times_))
    True
    >>> est.score(X, y) > 0.7
    True
    """
    )


def _step_functions(times, values, initial):
    order = np.argsort(times, kind="stable")
    x = times[order]
    out = np.empty(values.shape[0], dtype=object)
    for i in range(values.shape[0]):
        out[i] = StepFunction(x, values[i, order], initial)
    return out


def concordance_index(event, time, risk):
    """Harrell's concordance index: among the comparable pairs -- a row with
    its event and a row with a later time, or with the same time and
    censored -- the share in which the first has the higher risk, equal risks
    counting one half (scikit-survival's ``concordance_index_censored``,
    exact ties). Rows with a NaN risk are left out.

    Parameters
    ----------
    event : array-like of bool or 0/1
    time : array-like of float
    risk : array-like of float

    Returns
    -------
    c : float (NaN when no pair is comparable)

    Examples
    --------
    >>> from sporf import concordance_index
    >>> concordance_index([1, 0, 1, 1], [5.0, 8.0, 3.0, 10.0], [2.0, 1.0, 3.0, 0.5])
    1.0
    """
    event, time = survival_target((np.asarray(event), np.asarray(time)))
    risk = np.asarray(risk, dtype=np.float64)
    if risk.shape != time.shape:
        raise ValueError("risk must have one value per row: %r against %d rows" % (risk.shape, time.shape[0]))
    return _native.concordance_index(time, event, risk)
