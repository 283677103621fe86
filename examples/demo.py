"""sporf demo: the SPORF paper's sparse parity problem, sporf vs scikit-learn.

Sparse parity (p = 20, 3 relevant features): the label is the parity of the
signs of the first three features. Axis-aligned trees cannot see it; sparse
oblique projections can.
"""
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier

import sporf
from sporf.datasets import make_sparse_parity

X, y = make_sparse_parity(2000, n_features=20, random_state=0)
Xt, yt = make_sparse_parity(10_000, n_features=20, random_state=1)

print("Sparse parity: p = 20 (3 relevant), 2,000 training and 10,000 test points, 100 trees, 2 threads\n")
print("%-42s %10s %10s" % ("model", "error", "fit (s)"))
models = [
    ("scikit-learn RandomForestClassifier", RandomForestClassifier(n_jobs=2, random_state=0)),
    ("sporf, axis-aligned (a random forest)", sporf.SPORFClassifier(projection="axis", n_jobs=2, random_state=0)),
    ("sporf, sparse oblique (defaults)", sporf.SPORFClassifier(n_jobs=2, random_state=0)),
    ("sporf, sparse oblique, max_features=p^2", sporf.SPORFClassifier(max_features=400, n_jobs=2, random_state=0)),
]
for name, model in models:
    t0 = time.perf_counter()
    model.fit(X, y)
    elapsed = time.perf_counter() - t0
    error = np.mean(model.predict(Xt) != yt)
    print("%-42s %10.3f %10.2f" % (name, error, elapsed))
