"""One benchmark run of one Python model on one dataset (see peers.py).

    python peers_worker.py DATA_DIR DATASET MODEL N_JOBS N_TREES

Prints one JSON line: fit and predict times, single-row latency, model
size and node count, peak memory and test error. Runs in the main
environment or in treeple's own (only the imports it needs)."""
import json
import os
import pickle
import sys
import tempfile
import time

import numpy as np


def rss_mb(field):
    """VmRSS (now) or VmHWM (peak) of this process, in MB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


PREDICT_CALLS = 5  # batch predictions timed per process (median reported)


def load(data, dataset):
    meta = json.load(open(os.path.join(data, "meta.json")))[dataset]
    p = meta["p"]

    def f64(part):
        return np.fromfile(os.path.join(data, "%s_%s.f64" % (dataset, part)), dtype="<f8")

    return (f64("Xtr").reshape(-1, p), f64("ytr").astype(np.int64), f64("Xte").reshape(-1, p),
            f64("yte").astype(np.int64), meta)


class SklearnLike:
    """fit / predict_proba / size / nodes for scikit-learn-style models."""

    def __init__(self, est, size, nodes):
        self.est, self.size_fn, self.nodes_fn = est, size, nodes

    def fit(self, X, y):
        self.est.fit(X, y)

    def proba(self, X):
        return self.est.predict_proba(X)

    def size(self):
        return self.size_fn(self.est)

    def nodes(self):
        return self.nodes_fn(self.est)


def sk_nodes(est):
    return int(sum(e.tree_.node_count for e in est.estimators_))


def sk_pickle(est):
    return len(pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL))


class Ydf:
    def __init__(self, oblique, trees, n_jobs, p):
        import ydf
        kw = dict(label="y", num_trees=trees, max_depth=-1, min_examples=1, num_threads=n_jobs)
        if oblique:
            kw.update(split_axis="SPARSE_OBLIQUE", sparse_oblique_num_projections_exponent=0.5,
                      sparse_oblique_projection_density_factor=1.5, sparse_oblique_normalization="NONE")
        self.learner = ydf.RandomForestLearner(**kw)
        self.names = ["f%d" % j for j in range(p)]

    def _cols(self, X):
        return {name: X[:, j] for j, name in enumerate(self.names)}

    def fit(self, X, y):
        d = self._cols(X)
        d["y"] = y
        self.model = self.learner.train(d)
        self.classes = np.array(sorted(set(y.tolist())))

    def proba(self, X):
        out = np.asarray(self.model.predict(self._cols(X)))
        if out.ndim == 1:  # binary: the probability of the second class
            out = np.column_stack([1.0 - out, out])
        return out

    def size(self):
        with tempfile.TemporaryDirectory() as d:
            self.model.save(d)
            return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)

    def nodes(self):
        return int(self.model.num_nodes())


def make(name, n_jobs, trees, meta):
    p = meta["p"]
    if name == "scikit-learn RF":
        from sklearn.ensemble import RandomForestClassifier
        return SklearnLike(RandomForestClassifier(n_estimators=trees, max_features="sqrt", n_jobs=n_jobs,
                                                  random_state=0), sk_pickle, sk_nodes)
    if name == "scikit-learn ExtraTrees":
        from sklearn.ensemble import ExtraTreesClassifier
        return SklearnLike(ExtraTreesClassifier(n_estimators=trees, max_features="sqrt", n_jobs=n_jobs,
                                                random_state=0), sk_pickle, sk_nodes)
    if name.startswith("sporf"):
        import sporf
        est = sporf.SPORFClassifier(n_estimators=trees, max_features="sqrt", feature_combinations=1.5,
                                    projection="axis" if name.endswith("axis") else "sparse", n_jobs=n_jobs,
                                    min_samples_leaf=1, random_state=0)  # fully grown, as every peer here
        return SklearnLike(est, lambda e: len(e.to_bytes()), lambda e: int(e._forest.info().n_nodes))
    if name.startswith("ydf"):
        return Ydf(name.endswith("oblique"), trees, n_jobs, p)
    if name == "treeple oblique":
        from treeple import ObliqueRandomForestClassifier
        return SklearnLike(ObliqueRandomForestClassifier(n_estimators=trees, max_features="sqrt",
                                                         feature_combinations=1.5, n_jobs=n_jobs, random_state=0),
                           sk_pickle, sk_nodes)
    if name == "treeple patch":
        from treeple import PatchObliqueRandomForestClassifier
        grid = tuple(meta["grid"])
        return SklearnLike(PatchObliqueRandomForestClassifier(
            n_estimators=trees, max_features="sqrt", data_dims=grid, min_patch_dims=(1, 1),
            max_patch_dims=tuple(int(np.ceil(np.sqrt(d))) for d in grid), n_jobs=n_jobs, random_state=0),
            sk_pickle, sk_nodes)
    raise ValueError("unknown model %r" % name)


def main():
    data, dataset, name, n_jobs, trees = sys.argv[1:6]
    n_jobs, trees = int(n_jobs), int(trees)
    Xtr, ytr, Xte, yte, meta = load(data, dataset)
    model = make(name, n_jobs, trees, meta)
    before = rss_mb("VmRSS")
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t
    peak = rss_mb("VmHWM")
    # The test set is predicted PREDICT_CALLS times: one call's time varies
    # by up to 60% between processes on a shared machine, so the table takes
    # the median call and keeps the first (cold caches, fresh scratch) apart.
    calls = []
    for _ in range(PREDICT_CALLS):
        t = time.perf_counter()
        proba = model.proba(Xte)
        calls.append(time.perf_counter() - t)
    predict_s, first_predict_s = float(np.median(calls)), calls[0]
    classes = np.unique(ytr)
    error = float(np.mean(classes[np.argmax(proba, axis=1)] != yte))
    lat = []
    for i in range(300):
        x1 = np.ascontiguousarray(Xte[i % len(Xte):i % len(Xte) + 1])
        t = time.perf_counter()
        model.proba(x1)
        lat.append(time.perf_counter() - t)
    lat = np.array(lat[20:]) * 1e3  # the first calls warm caches up
    print(json.dumps({"fit_s": fit_s, "predict_s": predict_s, "first_predict_s": first_predict_s, "p50_ms": float(np.percentile(lat, 50)),
                      "p99_ms": float(np.percentile(lat, 99)), "model_mb": model.size() / 1e6,
                      "nodes": model.nodes(), "peak_mb": peak, "fit_mb": peak - before, "error": error}))


if __name__ == "__main__":
    main()
