"""The bad-input table: every public entry point, given bad input, raises the
exception a scikit-learn user expects with a message naming the problem --
never a crash. (Fit parameters of the classifier: test_bad_input.py; merging:
test_shards.py; Dask: test_distributed.py; the model loader: the C tests and
the fuzzers.)"""
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import sporf
from sporf.datasets import (make_bars, make_circle_segments, make_impulse, make_manifold, make_orthant,
                            make_sparse_parity, make_trunk)
from sporf.metrics import geodesic_precision_recall

X, Y = make_trunk(60, n_features=4, random_state=0)
XB, YB = make_bars(40, size=6, random_state=0)
CLF = sporf.SPORFClassifier(n_estimators=3, random_state=0).fit(X, Y)
REG = sporf.SPORFRegressor(n_estimators=3, random_state=0).fit(X, X[:, 0])
MORF = sporf.MORFClassifier(n_estimators=3, random_state=0).fit(XB, YB)
URF = sporf.URerF(n_estimators=3, random_state=0).fit(X)


def with_row(value):
    Xb = X.copy()
    Xb[-1] = value
    return Xb


TABLE = [
    # entry point, call, exception, message
    ("SPORFClassifier.fit: X too large", lambda: sporf.SPORFClassifier(n_estimators=2).fit(with_row(1e200), Y),
     ValueError, "too large"),
    ("SPORFClassifier.fit: unknown parameter", lambda: sporf.SPORFClassifier(n_trees=3), TypeError, "n_trees"),
    ("SPORFClassifier.set_params: unknown parameter", lambda: CLF.set_params(n_trees=3), ValueError, "n_trees"),
    ("SPORFClassifier.fit: sample_weight length", lambda: sporf.SPORFClassifier(n_estimators=2)
     .fit(X, Y, sample_weight=np.ones(3)), ValueError, "sample_weight"),
    ("SPORFClassifier.fit: huge sample_weight", lambda: sporf.SPORFClassifier(n_estimators=2)
     .fit(X, Y, sample_weight=np.full(60, 1e200)), ValueError, "sample_weight"),
    ("SPORFClassifier.fit: first_tree", lambda: sporf.SPORFClassifier(first_tree=-1).fit(X, Y), ValueError,
     "first_tree"),
    ("SPORFRegressor.fit: NaN in y", lambda: sporf.SPORFRegressor(n_estimators=2).fit(X, np.r_[np.nan, X[1:, 0]]),
     ValueError, "NaN"),
    ("SPORFRegressor.fit: y too large", lambda: sporf.SPORFRegressor(n_estimators=2).fit(X, np.r_[1e200, X[1:, 0]]),
     ValueError, "too large"),
    ("SPORFRegressor.fit: 3-D y", lambda: sporf.SPORFRegressor(n_estimators=2).fit(X, np.c_[Y, Y][:, :, None]),
     ValueError, "dim 3"),
    ("SPORFRegressor.fit: multi-output quantiles", lambda: sporf.SPORFRegressor(n_estimators=2, quantiles=True).fit(
        X, np.c_[Y, Y].astype(float)), ValueError, "single-output"),
    ("SPORFClassifier.fit: multi-output class_weight", lambda: sporf.SPORFClassifier(
        n_estimators=2, class_weight="balanced").fit(X, np.c_[Y, Y]), ValueError, "multi-output"),
    ("SPORFRegressor.fit: honest_prior uniform", lambda: sporf.SPORFRegressor(
        n_estimators=2, honest_fraction=0.5, honest_prior="uniform").fit(X, X[:, 0]), ValueError, "honest_prior"),
    ("MORFClassifier.fit: data_dims", lambda: sporf.MORFClassifier(data_dims=(3, 3)).fit(X, Y), ValueError,
     "data_dims"),
    ("MORFClassifier.fit: boundary", lambda: sporf.MORFClassifier(boundary="mirror").fit(XB, YB), ValueError,
     "boundary"),
    ("MORFClassifier.fit: min_patch_dims", lambda: sporf.MORFClassifier(min_patch_dims=0).fit(XB, YB), ValueError,
     "min_patch_dims"),
    ("MORFRegressor.fit: infinity in X", lambda: sporf.MORFRegressor(n_estimators=2).fit(
        np.where(XB == 1, np.inf, XB), YB.astype(float)), ValueError, r"X contains infinity \(row \d+, column \d+\)"),
    ("SPORFClassifier.fit: infinity in X", lambda: sporf.SPORFClassifier(n_estimators=2).fit(with_row(-np.inf), Y),
     ValueError, r"X contains infinity \(row 59, column 0\)"),
    ("URerF.fit: infinity in X", lambda: sporf.URerF(n_estimators=2).fit(with_row(np.inf)), ValueError,
     r"X contains infinity \(row 59, column 0\)"),
    ("SPORFClassifier.fit: NaN in y", lambda: sporf.SPORFClassifier(n_estimators=2).fit(
        X, np.r_[np.nan, Y[1:].astype(float)]), ValueError, "NaN"),
    ("URerF.fit: one row", lambda: sporf.URerF().fit(X[:1]), ValueError, "minimum of 2"),
    ("URerF.fit: criterion", lambda: sporf.URerF(criterion="gini").fit(X), ValueError, "criterion"),
    ("URerF.fit: n_neighbors", lambda: sporf.URerF(n_neighbors=0).fit(X), ValueError, "n_neighbors"),
    ("predict_proba: 1-D X", lambda: CLF.predict_proba(X[0]), ValueError, "2D"),
    ("predict_proba: no rows", lambda: CLF.predict_proba(np.empty((0, 4))), ValueError, "0 sample"),
    ("predict_proba: strings", lambda: CLF.predict_proba(np.array([["a"] * 4])), ValueError, "convert"),
    ("predict_proba: infinity", lambda: CLF.predict_proba(with_row(np.inf)), ValueError,
     r"X contains infinity \(row 59, column 0\)"),
    ("apply: infinity", lambda: CLF.apply(with_row(np.inf)), ValueError, r"X contains infinity \(row 59, column 0\)"),
    ("proximity: infinity", lambda: CLF.proximity(with_row(np.inf)), ValueError, "infinity"),
    ("predict: unfitted", lambda: sporf.SPORFClassifier().predict(X), NotFittedError, "not fitted"),
    ("SPORFRegressor.predict: width", lambda: REG.predict(X[:, :3]), ValueError, "4 features"),
    ("MORFClassifier.predict: image shape", lambda: MORF.predict(np.zeros((2, 5, 5))), ValueError, "features|shape"),
    ("apply: width", lambda: CLF.apply(X[:, :3]), ValueError, "4 features"),
    ("proximity: reference width", lambda: CLF.proximity(X, reference=X[:, :3]), ValueError, "4 features"),
    ("proximity: supervised without rows", lambda: CLF.proximity(), ValueError, "training rows"),
    ("proximity: dense too large", lambda: CLF.proximity(np.zeros((300000, 4)), dense=True), MemoryError,
     "more than half"),
    ("URerF.kneighbors: too many", lambda: URF.kneighbors(n_neighbors=100), ValueError, "n_neighbors"),
    ("URerF.transform: width", lambda: URF.transform(X[:, :2]), ValueError, "4 features"),
    ("URerF.predict: none", lambda: URF.predict(X), AttributeError, "predict"),
    ("projection_importances: top", lambda: CLF.projection_importances(top=0), ValueError, "top"),
    ("importance_map: kind", lambda: MORF.importance_map("bad"), ValueError, "kind"),
    ("plot_importance: kind", lambda: sporf.plot_importance(MORF, kind="bad"), ValueError, "kind"),
    ("load: missing file", lambda: sporf.load("/nonexistent/x.sporf"), FileNotFoundError, "x.sporf"),
    ("load: not a model", lambda: sporf.load(__file__), ValueError, "not a sporf model"),
    ("save: missing directory", lambda: CLF.save("/nonexistent/dir/x.sporf"), FileNotFoundError, "nonexistent"),
    ("merge_forests: not estimators", lambda: sporf.merge_forests([CLF, 3]), TypeError, "sporf estimators"),
    ("geodesic_precision_recall: k", lambda: geodesic_precision_recall(np.zeros((5, 5)), np.zeros((5, 5)), 0),
     ValueError, "k must"),
    ("geodesic_precision_recall: shapes", lambda: geodesic_precision_recall(np.zeros((5, 5)), np.zeros((4, 4)), 1),
     ValueError, "shape"),
    ("geodesic_precision_recall: NaN", lambda: geodesic_precision_recall(np.full((5, 5), np.nan),
                                                                          np.zeros((5, 5)), 1), ValueError, "NaN"),
    ("make_sparse_parity: n_relevant", lambda: make_sparse_parity(10, n_features=2, n_relevant=3), ValueError,
     "n_relevant"),
    ("make_trunk: n_samples", lambda: make_trunk(0), ValueError, "n_samples"),
    ("make_orthant: n_samples", lambda: make_orthant(-3), ValueError, "n_samples"),
    ("make_impulse: n_samples", lambda: make_impulse(2.5), ValueError, "n_samples"),
    ("make_circle_segments: n_features", lambda: make_circle_segments(10, n_features=10), ValueError, "n_features"),
    ("make_manifold: kind", lambda: make_manifold("torus"), ValueError, "kind"),
]


@pytest.mark.parametrize("name, call, exc, match", TABLE, ids=[row[0] for row in TABLE])
def test_bad_input_is_refused_with_a_message(name, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_estimators_work_after_every_refusal():
    for _, call, exc, _ in TABLE:
        with pytest.raises(exc):
            call()
    np.testing.assert_array_equal(CLF.predict(X), sporf.SPORFClassifier(n_estimators=3, random_state=0)
                                  .fit(X, Y).predict(X))
