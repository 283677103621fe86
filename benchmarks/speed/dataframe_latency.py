"""One-row prediction latency from a numpy row and from a one-row pandas
DataFrame, for a model fitted on a DataFrame (its feature names kept).

    python benchmarks/speed/dataframe_latency.py

SPORFClassifier(n_estimators=100) on make_trunk(1000, 10); the median of 2,000
calls of predict_proba (and predict) on one row, after 100 warm-up calls.
"""
import time

import numpy as np
import pandas as pd

import sporf
from sporf.datasets import make_trunk


def median_us(fn, calls=2000):
    for _ in range(100):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e6 * float(np.median(times))


def main():
    X, y = make_trunk(1000, 10, random_state=0)
    df = pd.DataFrame(X, columns=["f%d" % i for i in range(10)])
    named = sporf.SPORFClassifier(n_estimators=100, random_state=0).fit(df, y)
    plain = sporf.SPORFClassifier(n_estimators=100, random_state=0).fit(X, y)
    row, frame = X[:1], df.iloc[[0]]
    print("| input | predict_proba (us) | predict (us) |")
    print("|---|---:|---:|")
    print("| numpy row, model fitted on an array | %.1f | %.1f |"
          % (median_us(lambda: plain.predict_proba(row)), median_us(lambda: plain.predict(row))))
    print("| one-row DataFrame, model fitted on a DataFrame | %.1f | %.1f |"
          % (median_us(lambda: named.predict_proba(frame)), median_us(lambda: named.predict(frame))))


if __name__ == "__main__":
    main()
