# sporf -- every set-up step lives here, so a fresh Debian 12 machine needs
# only `make demo` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# meson-python finds meson and ninja on PATH: put the venv's first.
export PATH := $(abspath $(VENV))/bin:$(PATH)

# The R package is installed into a project-local library; the R and
# cross-language tests find it (and the golden model files) through these.
RLIB   := $(CURDIR)/.rlib
export SPORF_R_LIB := $(RLIB)
export SPORF_GOLDEN_DIR := $(CURDIR)/tests/golden
# testthat runs its "not on CRAN" tests (Ctrl-C) only with this set.
export NOT_CRAN := true

.PHONY: demo test test-c test-python test-r r-install setup install bench golden clean vignettes vignettes-fast

demo: install
	$(PY) examples/demo.py

test: install test-c test-r test-python vignettes-fast

# System packages (only what is missing), the virtual environment and the
# build and test dependencies.
setup: $(VENV)/.deps-stamp

$(VENV)/.deps-stamp: tools/requirements-dev.txt tools/bootstrap.sh
	bash tools/bootstrap.sh "$(PYTHON)" "$(VENV)"
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r tools/requirements-dev.txt
	touch $@

# Build the extension with meson-python and install it into the venv.
install: setup
	$(PIP) install --quiet --no-build-isolation --force-reinstall --no-deps .

test-c: setup
	$(VENV)/bin/meson setup build-c -Dpython=false --buildtype=debugoptimized --reconfigure >/dev/null \
	  || $(VENV)/bin/meson setup build-c -Dpython=false --buildtype=debugoptimized >/dev/null
	$(VENV)/bin/meson test -C build-c --print-errorlogs

# Python suites, including the cross-language tests that drive R via rpy2.
test-python: install r-install
	$(PY) -m pytest -q tests

# Build the R source tarball (R CMD build copies src/core -> ../../csrc as
# real files) and install it into the project-local library.
r-install: setup
	rm -rf build-r && mkdir -p build-r $(RLIB)
	cd build-r && R CMD build ../R
	R CMD INSTALL --library=$(RLIB) build-r/sporf_*.tar.gz

# The vignettes (vignettes/README.md): Python and R documents rendered to
# Markdown, HTML and PNG figures. `make vignettes` runs them at full size
# (several minutes); `make test` renders the small variant, so a broken
# vignette fails CI.
vignettes: install r-install
	$(PY) tools/render_vignettes.py build-vignettes

vignettes-fast: install r-install
	$(PY) tools/render_vignettes.py build-vignettes-fast --fast

# R CMD check of the built tarball (its tests include the golden files);
# a WARNING or ERROR fails the target. --no-manual: no LaTeX for the PDF manual.
test-r: r-install
	cd build-r && R CMD check --no-manual sporf_*.tar.gz
	bash tools/check_rcheck.sh build-r/sporf.Rcheck/00check.log

# Regenerate the golden model files (see tests/golden/README.md).
golden: install r-install
	$(PY) tools/make_golden.py
	R_LIBS=$(RLIB) Rscript tools/make_golden.R tests/golden

bench: install
	$(PY) benchmarks/bench_vs_sklearn.py

clean:
	rm -rf build build-c build-py build-r build-vignettes build-vignettes-fast .pytest_cache .rlib
