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


# an isolation forest (format 15: its leaves' path lengths and outlier threshold), on the
# training rows with a few missing values
ISOLATION_PARAMS = dict(n_estimators=10, max_samples=64, contamination=0.1, random_state=20261129)


def isolation_rows(X):
    X = X.copy()
    X[::9, 2] = np.nan
    return X


def write_isolation(X, Xt):
    iso = sporf.SPORFIsolation(**ISOLATION_PARAMS).fit(isolation_rows(X))
    iso.save(GOLDEN / "python_isolation_model.sporf")
    (-iso.score_samples(isolation_rows(Xt))).astype("<f8").tofile(GOLDEN / "python_isolation_scores.f64")


QUANTILE_PARAMS = dict(n_estimators=8, max_depth=6, min_samples_leaf=3, quantiles=True, random_state=20261125)
QUANTILES = [0.1, 0.5, 0.9]


def quantile_response(X):
    return X[:, 0] + (1 + np.abs(X[:, 1])) * X[:, 2]


def quantile_weights(X):
    return 1.0 + (X[:, 3] > 0)


SURVIVAL_PARAMS = dict(n_estimators=8, max_depth=6, min_samples_leaf=4, min_events_split=4, criterion="logrank", max_bins=0,
                       random_state=20261127)
SURVIVAL_TIMES = [0.2, 0.5, 1.0, 2.0, 4.0]


def survival_response(X):
    """(event, time) of the golden rows: hazard exp(x0 - x1 / 2), the times a
    deterministic function of the features, about a quarter censored."""
    time = np.exp(-(X[:, 0] - 0.5 * X[:, 1])) * (0.1 + np.abs(X[:, 2]))
    return (X[:, 3] > -0.7).astype(np.int32), time


# min_samples_leaf is pinned at 1, its default when this file was written, so a
# change of the default leaves the golden forest as it is
CATEGORICAL_PARAMS = dict(n_estimators=8, max_depth=6, min_samples_leaf=1, random_state=20261126)
LEVELS = ["north", "east", "south", "west", "centre", "island"]


def categorical_frame(X):
    """The golden rows as a DataFrame whose first column is cut into six
    named levels, in an order unrelated to the values (a category column);
    the level of each row is also written, as text, for R."""
    import pandas as pd

    code = np.digitize(X[:, 0], [-1.0, -0.4, 0.0, 0.4, 1.0])
    order = [3, 0, 5, 1, 4, 2]
    names = np.array(LEVELS)[np.array(order)[code]]
    frame = pd.DataFrame(X[:, 1:], columns=["x%d" % j for j in range(1, X.shape[1])])
    frame.insert(0, "region", pd.Categorical(names, categories=LEVELS))
    return frame


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
    # categorical features (format 10's level names): column 0 cut into named levels
    frame, frame_t = categorical_frame(X), categorical_frame(Xt)
    cat = sporf.SPORFClassifier(**CATEGORICAL_PARAMS).fit(frame, y)
    cat.save(GOLDEN / "python_categorical_model.sporf")
    cat.predict_proba(frame_t).astype("<f8").tofile(GOLDEN / "python_categorical_proba.f64")
    # a survival forest (format 13: the times, their event flags, the leaves' rows and min_events_split)
    surv = sporf.SPORFSurvival(**SURVIVAL_PARAMS).fit(X, survival_response(X))
    surv.save(GOLDEN / "python_survival_model.sporf")
    np.column_stack([surv.predict(Xt), surv.predict_survival_function(Xt, return_array=True, times=SURVIVAL_TIMES)]
                    ).astype("<f8").tofile(GOLDEN / "python_survival.f64")
    write_isolation(X, Xt)
    print("wrote", sorted(p.name for p in GOLDEN.iterdir()))


if __name__ == "__main__":
    main()
