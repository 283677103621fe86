# %% [markdown]
# # One model, two languages
#
# sporf's Python and R packages share one C core and one model file format.
# The same data, parameters and integer `random_state` give byte-identical
# model files in both languages, and a model saved by either predicts
# identically in the other. This document trains in R, predicts in Python, and
# back. It runs R through `Rscript` with the sporf R package installed (the
# project's `make test` installs it into `.rlib`; `SPORF_R_LIB` points there).

# %%
import os
import pathlib
import subprocess
import tempfile

import numpy as np

import sporf
from sporf.datasets import make_trunk

# the repository: its vignettes' folder's parent (SPORF_VIGNETTES when the documentation build runs this page)
REPO = pathlib.Path(os.environ.get("SPORF_VIGNETTES") or pathlib.Path(__file__).resolve().parents[1]).resolve().parent
R_LIB = os.environ.get("SPORF_R_LIB", str(REPO / ".rlib"))
work = pathlib.Path(tempfile.mkdtemp(prefix="sporf-xlang-"))


def rscript(code):
    """Run R code with the sporf R package on the library path; return what it prints."""
    env = dict(os.environ, R_LIBS=R_LIB)
    done = subprocess.run(["Rscript", "-e", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return done.stdout


# Data both sides read: float64, row-major, little-endian.
X, y = make_trunk(500, n_features=6, random_state=0)
X.astype("<f8").tofile(work / "x.f64")
np.savetxt(work / "y.txt", y, fmt="%d")

# %% [markdown]
# ## Train in R, predict in Python
#
# R reads the same doubles (`readBin`), fits `sporf()` with seed 7 and saves the
# model. Python loads it with `sporf.load` -- an estimator with the stored
# parameters and classes -- and predicts.

# %%
print(rscript("""
library(sporf)
x <- matrix(readBin('%(w)s/x.f64', 'double', n = 500 * 6, endian = 'little'), ncol = 6, byrow = TRUE)
# factor() of the integer codes: a classifier whose labels are stored as
# integers, as Python's are (an integer y alone grows a regression forest)
y <- factor(as.integer(scan('%(w)s/y.txt', quiet = TRUE)))
fit <- sporf(x, y, n_estimators = 50, random_state = 7)
sporf_save(fit, '%(w)s/from_r.sporf')
p <- predict(fit, x, type = 'prob')
writeBin(as.vector(t(p)), '%(w)s/r_proba.f64', endian = 'little')
print(fit)
""" % {"w": work}))

from_r = sporf.load(work / "from_r.sporf")
print(from_r)
r_proba = np.fromfile(work / "r_proba.f64", dtype="<f8").reshape(-1, 2)
print("Python's probabilities equal R's exactly:", np.array_equal(from_r.predict_proba(X), r_proba))

# %% [markdown]
# The same fit in Python -- same data, parameters and seed -- writes the very
# same bytes:

# %%
mine = sporf.SPORFClassifier(n_estimators=50, random_state=7).fit(X, y)
print("byte-identical model files:", mine.to_bytes() == (work / "from_r.sporf").read_bytes())

# %% [markdown]
# ## Train in Python, predict in R

# %%
clf = sporf.SPORFClassifier(n_estimators=50, projection="axis", random_state=11).fit(X, np.where(y == 1, "yes", "no"))
clf.save(work / "from_python.sporf")
out = rscript("""
library(sporf)
x <- matrix(readBin('%(w)s/x.f64', 'double', n = 500 * 6, endian = 'little'), ncol = 6, byrow = TRUE)
m <- sporf_load('%(w)s/from_python.sporf')
print(m$classes)
writeBin(as.vector(t(predict(m, x, type = 'prob'))), '%(w)s/r_proba2.f64', endian = 'little')
""" % {"w": work})
print(out)
r_proba2 = np.fromfile(work / "r_proba2.f64", dtype="<f8").reshape(-1, 2)
print("R's probabilities equal Python's exactly:", np.array_equal(r_proba2, clf.predict_proba(X)))

# %% [markdown]
# Labels travel with the model: R sees the classes "no" and "yes" as Python
# stored them. Shards grown in the two languages also merge into one forest
# (`sporf.merge_forests` here, `merge_forests()` in R; see the README).
