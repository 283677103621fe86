"""How often the suite's loss rule fires by chance: a forest is "below RF" on a
data set when its mean CV score is below scikit-learn RF's by more than one
standard error of RF's CV estimate (suite.py). This grows scikit-learn's RF
again with another seed (random_state=1, same folds) on the development half
and counts the sets where it is "below" the RF of seed 0 -- the same learner,
so every such loss is chance. sporf's defaults with seed 1 are counted the
same way against RF of seed 0, beside sporf of seed 0 (the suite's cached row).

    python benchmarks/suite/suite.py --models "scikit-learn RF,sporf"   # seed 0, cached
    python benchmarks/suite/suite_seed_noise.py

Only the development half is read: the confirmation half is run once.
"""
import json
import os
import sys

import numpy as np

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/
sys.path[:0] = [os.path.join(BENCH, d) for d in ("helpers", "suite", "speed", "papers")]
import suite  # noqa: E402


def main():
    results = json.load(open(suite.RESULTS))
    sets = {n: d for n, d in suite.load_all().items() if suite.half_of(n) == "dev"}
    below = {("scikit-learn RF", 1): [], ("sporf", 0): [], ("sporf", 1): []}
    counted = {"clf": 0, "reg": 0}
    for d in sorted(sets):
        task, X, y = sets[d]
        rf0 = results.get("scikit-learn RF|%s" % d)
        sp0 = results.get("sporf|%s" % d)
        if rf0 is None or sp0 is None:
            print("%-24s no cached seed-0 results: run suite.py first" % d)
            continue
        counted[task] += 1
        fold = suite.folds_for(task, y)
        bar = np.mean(rf0["scores"]) - np.std(rf0["scores"], ddof=1) / np.sqrt(5)
        scores = {("scikit-learn RF", 1): suite.run_model("scikit-learn RF", task, X, y, fold, {}, seed=1)[0],
                  ("sporf", 0): sp0["scores"], ("sporf", 1): suite.run_model("sporf", task, X, y, fold, {}, seed=1)[0]}
        for key, s in scores.items():
            if np.mean(s) < bar:
                below[key].append((task, d))
        print("%-24s RF seed 1 %.4f  sporf seeds 0/1 %.4f %.4f  (RF seed 0 %.4f, bar %.4f)"
              % (d, np.mean(scores[("scikit-learn RF", 1)]), np.mean(sp0["scores"]),
                 np.mean(scores[("sporf", 1)]), np.mean(rf0["scores"]), bar), flush=True)
    print("\nsets below RF (seed 0) by more than one SE:")
    for (name, seed), hits in below.items():
        for task in ("clf", "reg"):
            names = [d for t, d in hits if t == task]
            print("  %-16s seed %d  %-3s %2d of %d: %s" % (name, seed, task, len(names), counted[task], ", ".join(names)))


if __name__ == "__main__":
    main()
