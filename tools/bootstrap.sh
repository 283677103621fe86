#!/usr/bin/env bash
# Create the project's virtual environment, first installing from Debian's
# packages whatever a fresh machine lacks (a C compiler, Python's headers,
# venv, R with its headers, testthat and Matrix, and what renders the vignettes).
# Only runs apt-get when something is missing.
set -euo pipefail
PYTHON=${1:-python3}
VENV=${2:-.venv}

missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v "$PYTHON" >/dev/null 2>&1 || missing+=(python3)
if command -v "$PYTHON" >/dev/null 2>&1; then
  "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
  inc=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [ -f "$inc/Python.h" ] || missing+=(python3-dev)
fi
# R, its headers (for the package and for rpy2) and testthat, from Debian:
# CRAN is not reachable from every machine this runs on.
command -v R >/dev/null 2>&1 && [ -f "$(R RHOME 2>/dev/null)/include/R.h" -o -f /usr/share/R/include/R.h ] \
  || missing+=(r-base-dev)
if ! command -v Rscript >/dev/null 2>&1 || ! Rscript -e 'library(testthat)' >/dev/null 2>&1; then
  missing+=(r-cran-testthat)
fi
# Matrix: the sparse proximity graphs of urerf() and proximity().
if ! command -v Rscript >/dev/null 2>&1 || ! Rscript -e 'library(Matrix)' >/dev/null 2>&1; then
  missing+=(r-cran-matrix)
fi
# The vignettes (make vignettes; make test renders a small variant): knitr and
# rmarkdown with pandoc render the R documents; randomForest and ranger are the R
# peers in their figures; survival builds the survival document's responses (and
# the R tests' Surv objects).
for pkg in knitr rmarkdown randomForest survival ranger caret; do
  if ! command -v Rscript >/dev/null 2>&1 || ! Rscript -e "library($pkg)" >/dev/null 2>&1; then
    missing+=("r-cran-$(echo "$pkg" | tr '[:upper:]' '[:lower:]')")
  fi
done
command -v pandoc >/dev/null 2>&1 || missing+=(pandoc)
# The documentation site (make docs): pkgdown builds the R half, chromium
# takes the screenshots its check looks at.
if ! command -v Rscript >/dev/null 2>&1 || ! Rscript -e 'library(pkgdown)' >/dev/null 2>&1; then
  missing+=(r-cran-pkgdown)
fi
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# make test-sanitize: valgrind memcheck of the C tests.
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
