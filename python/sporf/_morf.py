"""MORF: manifold-aware patch forests for images, signals and grids."""
import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import _params, _spec_gen
from ._forest import _ForestClassifier, _ForestRegressor
from ._survival import _ForestSurvival


class _MORFMixin:
    """Patch-forest behaviour shared by MORFClassifier and MORFRegressor:
    shaped input, the grid, importance maps, loading."""

    # ---- shaped input ----
    def _flatten_input(self, X, fitting=False):
        ndim = getattr(X, "ndim", None)
        if ndim is None or ndim <= 2:
            if fitting:
                self._input_shape = None
            return X
        X = np.asarray(X)
        shape = tuple(int(d) for d in X.shape[1:])
        if fitting:
            self._input_shape = shape
        else:
            want = getattr(self, "data_dims_", None)
            if want is not None and shape != tuple(want):
                raise ValueError("X has samples of shape %r, but the forest was fitted on data_dims %r"
                                 % (shape, tuple(want)))
        return X.reshape(X.shape[0], -1)

    def _resolve_data_dims(self, n_features):
        shape = getattr(self, "_input_shape", None)
        if shape is not None:
            if self.data_dims is not None and tuple(self.data_dims) != shape:
                raise ValueError("data_dims=%r does not match the shape of X's samples %r"
                                 % (tuple(self.data_dims), shape))
            dims = shape
        else:
            dims = _params.resolve_data_dims(self.data_dims, n_features)
        self.data_dims_ = tuple(int(d) for d in dims)
        return self.data_dims_

    # ---- importance maps ----
    def importance_map(self, kind="impurity"):
        """Feature importance shaped like ``data_dims_``.

        Parameters
        ----------
        kind : {"impurity", "usage", "permutation"}, default="impurity"
            "impurity": ``feature_importances_``; "usage": ``feature_usage_``,
            how often each position appears in split patches; "permutation":
            ``permutation_importances_`` (a forest fitted with
            ``importance="permutation"``).

        Returns
        -------
        ndarray of shape ``data_dims_``

        Examples
        --------
        >>> from sporf import MORFClassifier
        >>> from sporf.datasets import make_bars
        >>> X, y = make_bars(60, size=12, random_state=0)
        >>> clf = MORFClassifier(n_estimators=10, max_patch_dims=(2, 6), random_state=0).fit(X, y)
        >>> clf.importance_map().shape
        (12, 12)
        """
        check_is_fitted(self, "_forest")
        if kind == "impurity":
            values = self.feature_importances_
        elif kind == "usage":
            values = self.feature_usage_
        elif kind == "permutation" and hasattr(self, "permutation_importances_"):
            values = self.permutation_importances_
        elif kind == "permutation":
            raise ValueError('this forest has no permutation importance: fit it with importance="permutation"')
        else:
            raise ValueError("kind must be 'impurity', 'usage' or 'permutation', got %r" % (kind,))
        return values.reshape(self.data_dims_)

    # ---- loading ----
    def _restore_fitted(self, p):
        self.data_dims_ = tuple(int(p.data_dims[k]) for k in range(int(p.n_dims)))




class MORFClassifier(_MORFMixin, _spec_gen._MORFClassifierParams, _ForestClassifier):
    __doc__ = (
        """Manifold oblique random forest classifier (MORF).

    Features live on a grid ``data_dims`` -- (H, W) for images, (C, H, W) for
    multi-channel images, (T,) for a signal, (sensors, T) for a multivariate
    time series -- and every candidate projection of a split node is the sum of
    a random patch of neighbouring features. Patches are drawn per axis: a size
    uniform in [``min_patch_dims``, ``max_patch_dims``] and a contiguous run
    (kept inside the grid, zero-padded or wrapped around a cyclic axis), or a
    random subset of the axis when it has no order (``dim_contiguous=False``).

    X may be given flat, (n_samples, prod(data_dims)), or shaped,
    ``(n_samples, *data_dims)`` (e.g. (n, H, W) images); features are numbered in
    row-major (C) order of ``data_dims``.

"""
        + _spec_gen.PARAM_DOCS["MORFClassifier"]
        + """
    Attributes
    ----------
    data_dims_ : tuple of int
        The grid the forest was fitted on.
    classes_, n_classes_, n_outputs_, n_features_in_, feature_importances_, oob_score_,
    oob_decision_function_, permutation_importances_, permutation_importances_std_,
    tuning_, best_params_ :
        As in :class:`SPORFClassifier` (``tune_oob`` varies ``max_features`` and
        ``max_patch_dims``).
    feature_usage_ : ndarray of shape (n_features,)
        How often each feature appears in split projections (normalized).

    Examples
    --------
    >>> from sporf import MORFClassifier
    >>> from sporf.datasets import make_impulse
    >>> X, y = make_impulse(200, random_state=0)
    >>> clf = MORFClassifier(n_estimators=20, max_patch_dims=12, random_state=0).fit(X, y)
    >>> clf.importance_map("usage").shape
    (100,)
    """
    )




class MORFRegressor(_MORFMixin, _spec_gen._MORFRegressorParams, _ForestRegressor):
    __doc__ = (
        """Manifold oblique random forest regressor (MORF).

    The regression twin of :class:`MORFClassifier`: patch projections on the
    grid ``data_dims``, squared-error splits, leaves predicting mean responses.
    X may be given flat or shaped ``(n_samples, *data_dims)``.

"""
        + _spec_gen.PARAM_DOCS["MORFRegressor"]
        + """
    Attributes
    ----------
    data_dims_ : tuple of int
        The grid the forest was fitted on.
    n_outputs_, n_features_in_, feature_importances_, oob_score_, oob_prediction_,
    permutation_importances_, permutation_importances_std_, tuning_, best_params_,
    interval_scores_, interval_calibration_ :
        As in :class:`SPORFRegressor` (``tune_oob`` varies ``max_features`` and
        ``max_patch_dims``).
    feature_usage_ : ndarray of shape (n_features,)
        How often each feature appears in split projections (normalized).

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import MORFRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 8, 8))
    >>> y = X[:, 2:5, 2:5].sum(axis=(1, 2))
    >>> reg = MORFRegressor(n_estimators=20, max_patch_dims=3, random_state=0).fit(X, y)
    >>> reg.importance_map().shape
    (8, 8)
    """
    )


class MORFSurvival(_MORFMixin, _spec_gen._MORFSurvivalParams, _ForestSurvival):
    __doc__ = (
        """Manifold oblique random survival forest (MORF for right-censored times).

    The survival twin of :class:`MORFRegressor`: candidate projections are
    sums of random patches of neighbouring features on the grid
    ``data_dims`` (a signal, an image, a time series of several sensors), and
    splits, leaves and predictions are those of :class:`SPORFSurvival` --
    log-rank cuts, each leaf's own Kaplan-Meier and Nelson-Aalen curves,
    risks, survival and cumulative hazard functions, Harrell's C. y is a
    structured array of (event, time), or a pair of arrays, as for
    :class:`SPORFSurvival`.

"""
        + _spec_gen.PARAM_DOCS["MORFSurvival"]
        + """
    Attributes
    ----------
    data_dims_ : tuple of int
        The grid the forest was fitted on.
    n_features_in_, unique_times_, is_event_time_, event_times_, feature_importances_,
    oob_score_, oob_prediction_, permutation_importances_, permutation_importances_std_,
    interval_scores_, interval_weights_, interval_calibration_ :
        As in :class:`SPORFSurvival`.

    Examples
    --------
    >>> import numpy as np
    >>> from sporf import MORFSurvival
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 20))          # a signal of 20 steps per patient
    >>> risk = X[:, 8:12].sum(axis=1)           # a bump in the middle raises the hazard
    >>> t = rng.exponential(np.exp(-risk))
    >>> c = rng.exponential(2.0, size=300)
    >>> y = np.array(list(zip(t <= c, np.minimum(t, c))), dtype=[("event", "?"), ("time", "<f8")])
    >>> est = MORFSurvival(n_estimators=50, max_patch_dims=4, random_state=0).fit(X, y)
    >>> est.score(X[:200], y[:200]) > 0.7
    True
    >>> est.importance_map().shape
    (20,)
    """
    )




def plot_importance(estimator, kind="impurity", ax=None, cmap="viridis", top=20, **kwargs):
    """Draw a fitted forest's feature importance. Needs matplotlib.

    A MORF forest's (or a forest given ``data_dims``) is drawn on its grid: a
    heatmap for 2-D grids, a line for 1-D ones. Any other forest's ``top``
    most important features are drawn as a dot chart (randomForest's
    ``varImpPlot``), with one standard deviation over trees either side for
    the permutation importance.

    Parameters
    ----------
    estimator : a fitted sporf estimator
        MORF estimators know their grid; for SPORF ones pass ``data_dims`` in
        kwargs to draw a map.
    kind : {"impurity", "usage", "permutation"}
        "permutation" needs a forest fitted with ``importance="permutation"``.
    ax : matplotlib Axes, optional
    cmap : str
    top : int, default=20
        For a forest drawn without a grid: how many features to draw.
    **kwargs : data_dims for non-MORF estimators; the rest goes to
        imshow/plot/errorbar.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sporf import MORFClassifier, SPORFClassifier, plot_importance
    >>> from sporf.datasets import make_bars, make_trunk
    >>> X, y = make_bars(60, size=12, random_state=0)
    >>> clf = MORFClassifier(n_estimators=10, max_patch_dims=(2, 6), random_state=0).fit(X, y)
    >>> ax = plot_importance(clf, kind="usage")
    >>> ax.get_title()
    'usage importance'
    >>> X, y = make_trunk(300, n_features=8, random_state=0)
    >>> clf = SPORFClassifier(n_estimators=20, random_state=0, importance="permutation").fit(X, y)
    >>> ax = plot_importance(clf, kind="permutation", top=5)
    >>> len(ax.get_yticklabels())
    5
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot_importance needs matplotlib: pip install matplotlib") from exc
    if kind not in ("impurity", "usage", "permutation"):
        raise ValueError("kind must be 'impurity', 'usage' or 'permutation', got %r" % (kind,))
    check_is_fitted(estimator, "_forest")
    if kind == "permutation" and not hasattr(estimator, "permutation_importances_"):
        raise ValueError('this forest has no permutation importance: fit it with importance="permutation"')
    values = {"impurity": lambda: estimator.feature_importances_, "usage": lambda: estimator.feature_usage_,
              "permutation": lambda: estimator.permutation_importances_}[kind]()
    dims = kwargs.pop("data_dims", None)
    if ax is None:
        _, ax = plt.subplots()
    ax.set_title("%s importance" % kind)
    if isinstance(estimator, _MORFMixin) or dims is not None:
        values = values.reshape(dims if dims is not None else estimator.data_dims_)
    else:
        names = getattr(estimator, "feature_names_in_", None)
        names = ["x%d" % j for j in range(values.size)] if names is None else [str(n) for n in names]
        order = np.argsort(-values, kind="stable")[:top][::-1]  # the most important at the top
        err = estimator.permutation_importances_std_[order] if kind == "permutation" else None
        ax.errorbar(values[order], np.arange(order.size), xerr=err, fmt="o", **kwargs)
        ax.set_yticks(np.arange(order.size), [names[j] for j in order])
        ax.set_xlabel("importance")
        return ax
    if values.ndim == 1:
        ax.plot(values, **kwargs)
        ax.set_xlabel("feature")
        ax.set_ylabel("%s importance" % kind)
    elif values.ndim == 2:
        im = ax.imshow(values, cmap=cmap, **kwargs)
        ax.figure.colorbar(im, ax=ax)
    else:
        raise ValueError("plot_importance draws 1-D and 2-D grids; this one has shape %r" % (values.shape,))
    return ax
