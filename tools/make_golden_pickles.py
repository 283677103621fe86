"""Write tests/golden/python_pickles.pkl: a pickle of each Python estimator
(SPORF and MORF, classifier and regressor; URerF), with its model bytes and
its predictions (URerF: transform of five rows), so the tests prove that
pickles written by an earlier version load and predict the same.

    python tools/make_golden_pickles.py tests/golden/python_pickles.pkl

Only regenerate it when a pickle of an earlier version may stop loading on
purpose, and say so in NEWS.md.
"""
import pickle
import sys

import sporf
from sporf.datasets import make_trunk


def dense(a):
    return a.toarray() if hasattr(a, "toarray") else a


def main(path):
    X, y = make_trunk(200, 16, random_state=0)
    models = {
        "sporf_clf": sporf.SPORFClassifier(n_estimators=5, random_state=0, oob_score=True).fit(X, y),
        "sporf_reg": sporf.SPORFRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0]),
        "morf_clf": sporf.MORFClassifier(n_estimators=5, random_state=0).fit(X.reshape(200, 4, 4), y),
        "morf_reg": sporf.MORFRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0]),
        "urerf": sporf.URerF(n_estimators=5, random_state=0).fit(X),
    }
    out = {name: (pickle.dumps(m), m.to_bytes(),
                  m.predict(X) if hasattr(m, "predict") else dense(m.transform(X[:5])))
           for name, m in models.items()}
    with open(path, "wb") as fh:
        pickle.dump(out, fh)


if __name__ == "__main__":
    main(sys.argv[1])
