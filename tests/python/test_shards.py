"""Shards of one forest (first_tree) and sporf.merge_forests: every
estimator kind's shards merge into the single fit's exact bytes; anything
that is not a shard of the same forest is refused with a message. The
shards here take a fixed leaf size: with min_samples_leaf="auto" the merge
chooses for every shard's trees (test_leaf_choice.py)."""
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import sporf
from sporf import _params
from sporf.datasets import make_impulse, make_trunk


def _data():
    X, y = make_trunk(300, n_features=8, random_state=0)
    return X, y


def _kinds():
    X, y = _data()
    Xi, yi = make_impulse(120, n_steps=30, random_state=1)
    yr = X[:, 0] * 2.0 + X[:, 1] ** 2
    return [
        (sporf.SPORFClassifier, dict(max_depth=6, min_samples_leaf=3), X, y),
        (sporf.SPORFClassifier, dict(projection="axis", honest_fraction=0.4, honest_prior="ignore",
                                     min_samples_leaf=1), X, y),
        (sporf.SPORFRegressor, dict(max_depth=6, min_samples_leaf=5), X, yr),
        (sporf.MORFClassifier, dict(max_patch_dims=5), Xi, yi),
        (sporf.MORFRegressor, dict(max_patch_dims=5), Xi, yi.astype(float)),
        (sporf.URerF, dict(max_depth=6), X, None),
    ]


def _fit(cls, kw, X, y, **more):
    est = cls(random_state=5, **kw, **more)
    return est.fit(X) if y is None else est.fit(X, y)


@pytest.mark.parametrize("cls, kw, X, y", _kinds(), ids=lambda v: getattr(v, "__name__", ""))
def test_shards_merge_into_the_single_fit(cls, kw, X, y):
    whole = _fit(cls, kw, X, y, n_estimators=11)
    shards = [_fit(cls, kw, X, y, n_estimators=m, first_tree=a) for a, m in [(6, 5), (0, 2), (2, 4)]]
    merged = sporf.merge_forests(shards)
    assert type(merged) is cls
    assert merged.to_bytes() == whole.to_bytes()
    # the whole forest: refit, it grows all of itself (first_tree None)
    assert merged.n_estimators == 11 and merged.first_tree is None
    Xq = X[:40]
    if y is None:
        np.testing.assert_array_equal(merged.apply(Xq), whole.apply(Xq))
        # every shard holds the same training rows: the merged URerF keeps them
        np.testing.assert_array_equal(merged.kneighbors(n_neighbors=3)[1], whole.kneighbors(n_neighbors=3)[1])
    else:
        np.testing.assert_array_equal(merged.predict(Xq), whole.predict(Xq))


def test_a_shard_is_those_trees_of_the_full_fit():
    X, y = _data()
    whole = sporf.SPORFClassifier(n_estimators=8, min_samples_leaf=1, random_state=2).fit(X, y)
    part = sporf.SPORFClassifier(n_estimators=3, min_samples_leaf=1, first_tree=4, random_state=2).fit(X, y)
    np.testing.assert_array_equal(part.apply(X[:50]), whole.apply(X[:50])[:, 4:7])


def test_merged_shards_keep_labels_and_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["f%d" % j for j in range(X.shape[1])])
    labels = np.where(y == 1, "yes", "no")
    a = sporf.SPORFClassifier(n_estimators=3, random_state=1, min_samples_leaf=3).fit(df, labels)
    b = sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1, min_samples_leaf=3).fit(df, labels)
    merged = sporf.merge_forests([a, b])
    assert list(merged.classes_) == ["no", "yes"]
    assert list(merged.feature_names_in_) == list(df.columns)
    assert merged.to_bytes() == sporf.SPORFClassifier(n_estimators=6, random_state=1,
                                                      min_samples_leaf=3).fit(df, labels).to_bytes()


def test_merge_refuses_what_is_not_one_forest():
    X, y = _data()
    a = sporf.SPORFClassifier(n_estimators=3, random_state=1, min_samples_leaf=3).fit(X, y)

    def shard(first=3, **kw):
        return sporf.SPORFClassifier(**dict(dict(n_estimators=3, first_tree=first, random_state=1,
                                                 min_samples_leaf=3), **kw)).fit(X, y)

    with pytest.raises(ValueError, match="both hold trees 0-2"):
        sporf.merge_forests([a, a])
    with pytest.raises(ValueError, match="both hold trees 2-2"):
        sporf.merge_forests([a, shard(first=2)])
    with pytest.raises(ValueError, match="no forest holds trees 3-4"):
        sporf.merge_forests([a, shard(first=5)])
    with pytest.raises(ValueError, match="different random_state"):
        sporf.merge_forests([a, shard(random_state=2)])
    # a forest that chose its leaf size from its own trees, and a shard that
    # left the choice to the merge; or two forests that chose differently
    whole = sporf.SPORFClassifier(n_estimators=3, random_state=1).fit(X, y)
    with pytest.raises(ValueError, match="one forest chose its leaf size out of bag from its own trees"):
        sporf.merge_forests([whole, sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1).fit(X, y)])
    other = sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1,
                                  min_samples_leaf=_params.ChosenLeafSize(whole.min_samples_leaf_ + 1)).fit(X, y)
    with pytest.raises(ValueError, match="chose different leaf sizes out of bag"):
        sporf.merge_forests([whole, other])
    with pytest.raises(ValueError, match="different max_features"):
        sporf.merge_forests([a, shard(max_features=3)])
    with pytest.raises(ValueError, match="different projection"):
        sporf.merge_forests([a, shard(projection="axis")])
    with pytest.raises(ValueError, match="different numbers of features"):
        sporf.merge_forests([a, sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1)
                             .fit(X[:, :5], y)])
    with pytest.raises(ValueError, match="different classes"):
        sporf.merge_forests([a, sporf.SPORFClassifier(n_estimators=3, first_tree=3, random_state=1)
                             .fit(X, np.where(y == 1, "b", "a"))])
    with pytest.raises(TypeError, match="of one class"):
        sporf.merge_forests([a, sporf.SPORFRegressor(n_estimators=3, first_tree=3, random_state=1)
                             .fit(X, y.astype(float))])
    with pytest.raises(TypeError, match="sporf estimators"):
        sporf.merge_forests([a, "forest"])
    with pytest.raises(NotFittedError):
        sporf.merge_forests([a, sporf.SPORFClassifier(first_tree=3)])
    with pytest.raises(ValueError, match="at least one"):
        sporf.merge_forests([])


@pytest.mark.parametrize("bad", [-1, 1.5, "0", 2 ** 60])
def test_first_tree_is_validated(bad):
    X, y = _data()
    with pytest.raises(ValueError, match="first_tree"):
        sporf.SPORFClassifier(n_estimators=2, first_tree=bad).fit(X, y)
