"""Quantile regression forests: predict(X, quantiles=...) and its out-of-bag
form, against a direct computation, the coverage of Meinshausen's intervals
on heteroscedastic data, determinism, the model file and bad input."""
import pickle

import numpy as np
import pytest

import sporf
from sporf import MORFRegressor, SPORFClassifier, SPORFRegressor


def heteroscedastic(n, seed):
    # y = x + (1 + |x|) e with three noise features
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 4))
    return X, X[:, 0] + (1 + np.abs(X[:, 0])) * rng.standard_normal(n)


@pytest.fixture(scope="module")
def data():
    return heteroscedastic(600, 0)


def direct_quantiles(model, X, y, Xq, probs):
    """Meinshausen's weights from apply(), for forests whose leaves hold every
    training row once (bootstrap=False): each tree gives the rows of the
    query's leaf equal shares; the quantile is the smallest response whose
    cumulative weight reaches the probability."""
    leaves_q, leaves_X = model.apply(Xq), model.apply(X)
    out = np.empty((len(Xq), len(probs)))
    for i in range(len(Xq)):
        ys, ws = [], []
        for t in range(leaves_q.shape[1]):
            rows = np.flatnonzero(leaves_X[:, t] == leaves_q[i, t])
            ys.extend(y[rows])
            ws.extend([1.0 / len(rows)] * len(rows))
        order = np.argsort(ys, kind="stable")
        ys, F = np.asarray(ys)[order], np.cumsum(np.asarray(ws)[order]) / leaves_q.shape[1]
        out[i] = [ys[np.searchsorted(F, p - 1e-12)] for p in probs]
    return out


@pytest.mark.parametrize("kw", [dict(projection="axis"), dict(min_samples_leaf=7), dict(max_depth=4)])
def test_quantiles_are_the_weighted_quantiles_of_the_leaves_rows(data, kw):
    X, y = data
    Xq = heteroscedastic(40, 1)[0]
    probs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    model = SPORFRegressor(n_estimators=5, bootstrap=False, quantiles=True, random_state=3, **kw).fit(X, y)
    np.testing.assert_array_equal(model.predict(Xq, quantiles=probs), direct_quantiles(model, X, y, Xq, probs))


def test_the_10_90_interval_covers_80_percent_of_new_rows():
    # the coverage acceptance: 100 trees, leaves of at least 5 rows (ranger's
    # default for regression); with leaves of one row the in-bag rows sit
    # closer to the query than new rows do and intervals come out narrower
    # (about 75% here, the quantile-forest package's default 74%)
    X, y = heteroscedastic(2000, 0)
    Xt, yt = heteroscedastic(5000, 1)
    model = SPORFRegressor(n_estimators=100, min_samples_leaf=5, quantiles=True, random_state=0).fit(X, y)
    q = model.predict(Xt, quantiles=[0.1, 0.9])
    coverage = np.mean((yt >= q[:, 0]) & (yt <= q[:, 1]))
    assert 0.76 <= coverage <= 0.84
    # the interval follows the noise: wider where |x0| is large
    width = q[:, 1] - q[:, 0]
    assert width[np.abs(Xt[:, 0]) > 2].mean() > 2 * width[np.abs(Xt[:, 0]) < 0.5].mean()
    # out of bag on the training rows covers the same
    qo = model.predict(X, quantiles=[0.1, 0.9], oob=True)
    assert 0.76 <= np.mean((y >= qo[:, 0]) & (y <= qo[:, 1])) <= 0.84


def test_quantiles_are_ordered_and_a_scalar_gives_a_vector(data):
    X, y = data
    model = SPORFRegressor(n_estimators=20, quantiles=True, random_state=1).fit(X, y)
    q = model.predict(X[:50], quantiles=[0.9, 0.05, 0.5])
    assert q.shape == (50, 3)
    assert np.all(q[:, 1] <= q[:, 2]) and np.all(q[:, 2] <= q[:, 0])
    np.testing.assert_array_equal(model.predict(X[:50], quantiles=0.5), q[:, 2])
    # every quantile is a training response
    assert np.isin(q, y).all()
    # the mean prediction is unchanged by keeping quantiles
    plain = SPORFRegressor(n_estimators=20, random_state=1).fit(X, y)
    np.testing.assert_array_equal(model.predict(X[:50]), plain.predict(X[:50]))


def test_quantiles_do_not_depend_on_threads_and_survive_save_load_and_pickle(data, tmp_path):
    X, y = data
    a = SPORFRegressor(n_estimators=12, quantiles=True, random_state=5, n_jobs=1).fit(X, y)
    b = SPORFRegressor(n_estimators=12, quantiles=True, random_state=5, n_jobs=2).fit(X, y)
    assert a.to_bytes() == b.to_bytes()
    probs = [0.1, 0.5, 0.9]
    expected = a.predict(X, quantiles=probs)
    np.testing.assert_array_equal(b.predict(X, quantiles=probs), expected)
    a.save(tmp_path / "q.sporf")
    np.testing.assert_array_equal(sporf.load(tmp_path / "q.sporf").predict(X, quantiles=probs), expected)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).predict(X, quantiles=probs), expected)
    # the leaves' rows cost bytes in the file
    plain = SPORFRegressor(n_estimators=12, random_state=5).fit(X, y)
    assert len(a.to_bytes()) > len(plain.to_bytes()) + 8 * len(y)


def test_shards_merge_to_the_single_fit(data):
    X, y = data
    kw = dict(quantiles=True, random_state=2, min_samples_leaf=3)  # a fixed size: "auto" is each shard's choice
    whole = SPORFRegressor(n_estimators=6, **kw).fit(X, y)
    parts = [SPORFRegressor(n_estimators=3, first_tree=f, **kw).fit(X, y) for f in (0, 3)]
    merged = sporf.merge_forests(parts)
    assert merged.to_bytes() == whole.to_bytes()
    other = SPORFRegressor(n_estimators=3, first_tree=3, **kw).fit(X, y + 1.0)
    with pytest.raises(ValueError, match="different training data"):
        sporf.merge_forests([parts[0], other])


def test_out_of_bag_quantiles_use_only_the_trees_that_left_the_row_out(data):
    X, y = data
    one = SPORFRegressor(n_estimators=1, quantiles=True, random_state=0).fit(X, y)
    qo = one.predict(X, quantiles=[0.5], oob=True)
    oob_rows = np.isfinite(qo[:, 0])
    # one tree: about a third of the rows are out of its bag, the others have none
    assert 0.25 < oob_rows.mean() < 0.45
    np.testing.assert_array_equal(qo[oob_rows], one.predict(X[oob_rows], quantiles=[0.5]))
    with pytest.raises(ValueError, match="training data"):
        one.predict(X[:100], quantiles=[0.5], oob=True)
    no_bag = SPORFRegressor(n_estimators=2, bootstrap=False, quantiles=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap"):
        no_bag.predict(X, quantiles=[0.5], oob=True)


def test_weights_and_honest_and_morf_forests(data):
    X, y = data
    # a row of weight 0 is in no leaf: its huge response is never a quantile
    w = np.ones(len(y))
    y2 = y.copy()
    y2[:5] = 1e6
    w[:5] = 0.0
    weighted = SPORFRegressor(n_estimators=10, quantiles=True, random_state=0).fit(X, y2, sample_weight=w)
    assert weighted.predict(X, quantiles=[1.0]).max() < 1e6
    # honest: each leaf's rows are its held-out rows; a leaf without any abstains
    honest = SPORFRegressor(n_estimators=30, honest_fraction=0.5, quantiles=True, random_state=0).fit(X, y)
    q = honest.predict(X[:100], quantiles=[0.1, 0.9])
    assert np.isfinite(q).all() and np.all(q[:, 0] <= q[:, 1])
    morf = MORFRegressor(n_estimators=10, data_dims=[2, 2], quantiles=True, random_state=0).fit(X, y)
    q = morf.predict(X[:10], quantiles=[0.25, 0.75])
    assert q.shape == (10, 2) and np.all(q[:, 0] <= q[:, 1])


def test_missing_values_route_as_in_the_fit(data):
    X, y = data
    Xm = X.copy()
    Xm[::7, 0] = np.nan
    model = SPORFRegressor(n_estimators=8, quantiles=True, random_state=0).fit(Xm, y)
    q = model.predict(Xm[:30], quantiles=[0.5])
    assert np.isfinite(q).all()


def test_bad_requests_are_refused_with_a_reason(data):
    X, y = data
    plain = SPORFRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="quantiles=True"):
        plain.predict(X, quantiles=[0.5])
    model = SPORFRegressor(n_estimators=3, quantiles=True, random_state=0).fit(X, y)
    for bad in ([1.5], [-0.1], [np.nan], [], [[0.1, 0.2]]):
        with pytest.raises(ValueError, match="quantiles"):
            model.predict(X, quantiles=bad)
    Xinf = X[:5].copy()
    Xinf[2, 1] = np.inf
    with pytest.raises(ValueError, match="infin"):
        model.predict(Xinf, quantiles=[0.5])
    # a classifier has no quantiles (its predict_proba is its distribution)
    with pytest.raises(TypeError, match="quantiles"):
        SPORFClassifier(quantiles=True)
