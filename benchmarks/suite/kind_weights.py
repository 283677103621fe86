"""Would weighing a mixed forest's two kinds of trees by their out-of-bag scores
beat averaging them? On the development half's small classification sets of
continuous measurements (the list in /tmp/mix/small_cont.txt: at most 2,000 rows,
mostly continuous features), per fold of the suite: a `splitter="mixed"` forest
(100 trees, leaf size chosen out of bag), each tree's class probabilities on the
training rows (out of bag by its draws) and on the held-out fold; the weight w of
the random-cut trees (0, .25, .5, .75, 1) chosen by the out-of-bag Brier score,
and every fixed w, scored by the held-out kappa.

    python benchmarks/suite/kind_weights.py SETS_FILE     # a comma-separated list of set names
"""
import sys, json, numpy as np
sys.path.insert(0, "/work/main/benchmarks/suite"); sys.path.insert(0, "/work/main/benchmarks/helpers")
import suite, sporf
from sporf import _native
from sklearn.metrics import cohen_kappa_score
sets = {n: d for n, d in suite.load_all().items() if suite.half_of(n) == "dev"}
names = [n for n in open(sys.argv[1]).read().strip().split(",") if sets[n][0] == "clf"]
W = [0.0, 0.25, 0.5, 0.75, 1.0]
out = {}
for name in names:
    task, X, y = sets[name]
    K = y.max() + 1
    res = {w: [] for w in W}; res["chosen"] = []; res["chosen_var"] = []
    fold = suite.folds_for(task, y)
    for f in range(5):
        tr, te = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        est = sporf.SPORFClassifier(splitter="mixed", random_state=0, n_jobs=2).fit(X[tr], y[tr])
        P_tr = est.predict_trees(X[tr]); P_te = est.predict_trees(X[te])  # n x T x K
        T = P_tr.shape[1]; n = len(tr)
        params = est._forest.params()
        oob = np.ones((n, T), bool)
        for t in range(T):
            oob[_native.tree_draws(params, n, t)[0], t] = False
        kind = np.arange(T) % 2  # 0 best, 1 random
        Yoh = np.eye(K)[y[tr]]
        losses = {}
        for w in W:
            num = np.zeros((n, K)); ok = np.ones(n, bool)
            for k, wk in ((0, 1 - w), (1, w)):
                mk = oob & (kind == k)[None, :]
                cnt = mk.sum(1)
                if wk > 0: ok &= cnt > 0
                mean_k = np.einsum("nt,ntk->nk", mk, P_tr) / np.maximum(cnt, 1)[:, None]
                num += wk * mean_k
            losses[w] = np.mean(((num - Yoh) ** 2).sum(1)[ok])
        wbest = min(W, key=lambda w: losses[w])
        for w in W:
            pred = ((1 - w) * P_te[:, kind == 0].mean(1) + w * P_te[:, kind == 1].mean(1)).argmax(1)
            res[w].append(cohen_kappa_score(y[te], pred))
        res["chosen"].append(res[wbest][-1])
    out[name] = {str(k): float(np.mean(v)) for k, v in res.items() if v}
    print(name, json.dumps(out[name]), flush=True)
r = np.array([[out[n][str(w)] for w in W] + [out[n]["chosen"]] for n in out])
print("mean", " ".join("w=%s %.4f" % (w, r[:, i].mean()) for i, w in enumerate(W)), "chosen %.4f" % r[:, -1].mean())
