"""Default fit time against scikit-learn's RF (the defaults' speed points).

    python benchmarks/speed/default_speed.py 30  '{}' '{"axis_features": 0, "guided_features": 0}'
    python benchmarks/speed/default_speed.py 784 '{}'

"30": make_classification 50,000 x 30 (10 informative, 5 redundant), first
30,000 rows to train; "784": 15,000 x 784, first 10,000 to train. Each JSON
argument is a set of SPORFClassifier parameters over the defaults. n_jobs=2
for every model, 100 trees, one run each; prints fit time, the ratio to RF
and the test error on the held-out rows.
"""
import sys, time, json, numpy as np, os
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
import sporf
which = sys.argv[1]
variants = [json.loads(v) for v in sys.argv[2:]]
if which == "784":
    X, y = make_classification(n_samples=15_000, n_features=784, n_informative=10, n_redundant=5, random_state=0)
    Xtr, ytr, Xte, yte = X[:10000], y[:10000], X[10000:], y[10000:]
else:
    X, y = make_classification(n_samples=50_000, n_features=30, n_informative=10, n_redundant=5, random_state=0)
    Xtr, ytr, Xte, yte = X[:30000], y[:30000], X[30000:], y[30000:]
def t(m):
    t0=time.perf_counter(); m.fit(Xtr,ytr); dt=time.perf_counter()-t0
    return dt, (m.predict(Xte)!=yte).mean()
rf = t(RandomForestClassifier(n_jobs=2, random_state=0))
print("RF %.2fs err %.4f" % rf, flush=True)
for v in variants:
    d, e = t(sporf.SPORFClassifier(n_jobs=2, random_state=0, **v))
    print(v, "%.2fs %.2fx err %.4f" % (d, d/rf[0], e), flush=True)
