"""Write the golden data and the Python golden model (see tests/golden/README.md).

    python tools/make_golden.py
"""
import pathlib

import numpy as np

import sporf

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden"
# axis_features and guided_features 0 (format 7's parameters, off): the trees
# of formats 3-6, so the older golden files re-save as these.
PARAMS = dict(n_estimators=12, max_features=4, feature_combinations=2.0, max_depth=8,
              min_samples_leaf=2, axis_features=0, guided_features=0, max_bins=0,
              random_state=20261122)


QUANTILE_PARAMS = dict(n_estimators=8, max_depth=6, min_samples_leaf=3, quantiles=True, random_state=20261125)
QUANTILES = [0.1, 0.5, 0.9]


def quantile_response(X):
    return X[:, 0] + (1 + np.abs(X[:, 1])) * X[:, 2]


def quantile_weights(X):
    return 1.0 + (X[:, 3] > 0)


def golden_data():
    rng = np.random.RandomState(7)
    X = rng.standard_normal((240, 7))
    score = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * X[:, 3]
    y = np.where(score > 0.4, "high", np.where(score < -0.4, "low", "mid"))
    Xt = rng.standard_normal((500, 7))
    return X, y, Xt


def main():
    X, y, Xt = golden_data()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    X.astype("<f8").tofile(GOLDEN / "train_x.f64")
    (GOLDEN / "train_y.txt").write_text("\n".join(y) + "\n")
    Xt.astype("<f8").tofile(GOLDEN / "test_x.f64")
    clf = sporf.SPORFClassifier(**PARAMS).fit(X, y)
    clf.save(GOLDEN / "python_model.sporf")
    clf.predict_proba(Xt).astype("<f8").tofile(GOLDEN / "python_proba.f64")
    # a quantile regression forest (format 10's responses and leaf rows), on
    # the same rows with a numeric response and sample weights
    reg = sporf.SPORFRegressor(**QUANTILE_PARAMS).fit(X, quantile_response(X), sample_weight=quantile_weights(X))
    reg.save(GOLDEN / "python_quantile_model.sporf")
    reg.predict(Xt, quantiles=QUANTILES).astype("<f8").tofile(GOLDEN / "python_quantiles.f64")
    print("wrote", sorted(p.name for p in GOLDEN.iterdir()))


if __name__ == "__main__":
    main()
