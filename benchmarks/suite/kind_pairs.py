"""Two kinds of trees grown as separate forests and averaged, each with its own
leaf rule: on the development half's small sets of continuous measurements
(SETS_FILE: comma-separated names; TASK clf or reg), per fold of the suite, a
50-tree best-cut forest (leaf size chosen out of bag) averaged with 50
random-cut trees on subsamples of 0.8 of the rows with leaves of one row
("A+B08_1"), with their own leaf size chosen out of bag ("A+B08_auto"), or on
every row with leaves of one row ("A+Ball_1"); held-out kappa or R^2.

    python benchmarks/suite/kind_pairs.py SETS_FILE [clf|reg]
"""
import sys, os, json, numpy as np
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here); sys.path.insert(0, os.path.join(here, "..", "helpers"))
import suite, sporf

task_wanted = sys.argv[2] if len(sys.argv) > 2 else "clf"
sets = {n: d for n, d in suite.load_all().items() if suite.half_of(n) == "dev"}
names = [n for n in open(sys.argv[1]).read().strip().split(",") if n in sets and sets[n][0] == task_wanted]
Model = sporf.SPORFClassifier if task_wanted == "clf" else sporf.SPORFRegressor


def answer(m, X):
    return m.predict_proba(X) if task_wanted == "clf" else m.predict(X)


out = {}
for name in names:
    task, X, y = sets[name]
    fold = suite.folds_for(task, y)
    res = {k: [] for k in ["A", "B08_1", "Ball_1", "A+B08_1", "A+Ball_1", "A+B08_auto"]}
    for f in range(5):
        tr, te = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        A = Model(n_estimators=50, splitter="best", random_state=0, n_jobs=2).fit(X[tr], y[tr])
        B1 = Model(n_estimators=50, splitter="random", bootstrap=False, max_samples=0.8, min_samples_leaf=1, random_state=1, n_jobs=2).fit(X[tr], y[tr])
        Ba = Model(n_estimators=50, splitter="random", bootstrap=False, max_samples=0.8, random_state=1, n_jobs=2).fit(X[tr], y[tr])
        C1 = Model(n_estimators=50, splitter="random", bootstrap=False, min_samples_leaf=1, random_state=1, n_jobs=2).fit(X[tr], y[tr])
        pa, pb1, pba, pc1 = (answer(m, X[te]) for m in (A, B1, Ba, C1))
        if task == "clf":
            lab = A.classes_
            k = lambda p: suite.score(task, y[te], lab[p.argmax(1)])
        else:
            k = lambda p: suite.score(task, y[te], p)
        half = 1.0 if task == "clf" else 0.5
        res["A"].append(k(pa)); res["B08_1"].append(k(pb1)); res["Ball_1"].append(k(pc1))
        res["A+B08_1"].append(k(half * (pa + pb1))); res["A+Ball_1"].append(k(half * (pa + pc1)))
        res["A+B08_auto"].append(k(half * (pa + pba)))
    out[name] = {k: float(np.mean(v)) for k, v in res.items()}
    print(name, json.dumps(out[name]), flush=True)
new = ['ape_skull_group', 'mouse_vertebra_line', 'sand_grain_origin', 'brain_landmarks_sex', 'body_dimensions_sex',
       'exam_grade', 'midwest_metro', 'seatac_month', 'water_level_sex', 'seattle_weather_kind']
for grp, ns in [("all", list(out)), ("new10", [n for n in new if n in out]), ("other", [n for n in out if n not in new])]:
    if not ns:
        continue
    r = {k: np.mean([out[n][k] for n in ns]) for k in out[ns[0]]}
    print(grp, len(ns), " ".join("%s %.4f" % kv for kv in r.items()))
