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

.PHONY: check-layers dist demo test test-c test-python test-r test-sanitize r-install setup install bench golden clean vignettes vignettes-fast \
        generate check-generated docs docs-fast

demo: install
	$(PY) examples/demo.py

# check-generated comes first: on a fresh clone it fails when a file generated
# from spec/params.toml was not regenerated after the spec changed, or when a
# parameter's name spreads to more hand-written files than allowed.
test: check-generated check-layers install test-c test-r test-python vignettes-fast docs-fast test-sanitize

# The parameter code of every language, from spec/params.toml (tools/gen_params.py).
generate:
	$(PYTHON) tools/gen_params.py

check-generated:
	$(PYTHON) tools/gen_params.py --check
	$(PYTHON) tools/check_param_mentions.py

# The Python package's imports go one way (the C core's: meson test "layers").
check-layers:
	$(PYTHON) tools/check_py_layers.py
	$(PYTHON) tools/check_design_names.py

# System packages (only what is missing), the virtual environment and the
# build and test dependencies.
setup: $(VENV)/.deps-stamp

$(VENV)/.deps-stamp: tools/requirements-dev.txt tools/bootstrap.sh
	bash tools/bootstrap.sh "$(PYTHON)" "$(VENV)"
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r tools/requirements-dev.txt
	touch $@

# Build the extension with meson-python and install it into the venv.
install: setup generate
	$(PIP) install --quiet --no-build-isolation --force-reinstall --no-deps .

test-c: setup generate
	$(VENV)/bin/meson setup build-c -Dpython=false --buildtype=debugoptimized --reconfigure >/dev/null \
	  || $(VENV)/bin/meson setup build-c -Dpython=false --buildtype=debugoptimized >/dev/null
	$(VENV)/bin/meson test -C build-c --print-errorlogs

# Python suites, including the cross-language tests that drive R via rpy2.
test-python: install r-install
	$(PY) -m pytest -q tests/python

# Build the R source tarball (R CMD build copies src/core -> ../../csrc as
# real files) and install it into the project-local library.
r-install: setup generate
	rm -rf build-r && mkdir -p build-r $(RLIB)
	cd build-r && R CMD build ../R
	R CMD INSTALL --library=$(RLIB) build-r/sporf_*.tar.gz

# The packages for installing elsewhere: the Python sdist and wheel
# (meson-python through `build`) and the R source package, in dist/.
dist: setup generate
	rm -rf dist && mkdir -p dist
	$(VENV)/bin/python -m build --sdist --wheel --no-isolation --skip-dependency-check --outdir dist .
	cd dist && R CMD build ../R
	ls -1 dist

# AddressSanitizer + UndefinedBehaviorSanitizer: the C tests on a sanitized
# build, valgrind memcheck on the plain one, then the whole Python suite
# against a sanitized build of the extension (installed into build-san-py and
# put first on PYTHONPATH; the interpreter preloads the sanitizer runtimes).
# Python's own allocations are not leak-checked there; the C tests are.
# libtirpc comes right after ASan's runtime: ASan intercepts the XDR functions
# and binds them when it starts, and R (embedded by the cross-language tests)
# takes them from libtirpc, which would otherwise be loaded too late.
SAN_TIRPC = $(shell ldd "$$(R RHOME)/lib/libR.so" 2>/dev/null | awk '/libtirpc/ {print $$3}')
SAN_RT  = $(shell gcc -print-file-name=libasan.so)$(if $(SAN_TIRPC),:$(SAN_TIRPC)):$(shell gcc -print-file-name=libubsan.so)
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
SAN_PY  = PYTHONPATH=$(CURDIR)/build-san-py/site LD_PRELOAD=$(SAN_RT) \
          ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-sanitize: install r-install test-c
	$(VENV)/bin/meson setup build-san -Dpython=false -Db_sanitize=address,undefined -Db_lundef=false \
	  --buildtype=debugoptimized --reconfigure >/dev/null \
	  || $(VENV)/bin/meson setup build-san -Dpython=false -Db_sanitize=address,undefined -Db_lundef=false \
	  --buildtype=debugoptimized >/dev/null
	$(SAN_ENV) $(VENV)/bin/meson test -C build-san --print-errorlogs
	$(VENV)/bin/meson test -C build-c --print-errorlogs --timeout-multiplier=10 \
	  --wrap='valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect -q'
	rm -rf build-san-py/site
	$(PIP) install --quiet --no-build-isolation --no-deps --target build-san-py/site -Cbuild-dir=build-san-py/build \
	  -Csetup-args=-Db_sanitize=address,undefined -Csetup-args=-Db_lundef=false .
	$(SAN_PY) $(PY) -c "import sporf, sys; sys.exit(0 if 'build-san-py' in sporf.__file__ else 'not the sanitized build: ' + sporf.__file__)"
	$(SAN_PY) $(PY) -m pytest -q tests/python

# The vignettes (vignettes/README.md): Python and R documents rendered to
# Markdown, HTML and PNG figures. `make vignettes` runs them at full size
# (several minutes); `make test` renders the small variant, so a broken
# vignette fails CI.
vignettes: install r-install
	$(PY) tools/render_vignettes.py build-vignettes

vignettes-fast: install r-install
	$(PY) tools/render_vignettes.py build-vignettes-fast --fast

# The documentation site (tools/build_docs.py): Sphinx for Python, pkgdown for
# R, a landing page linking both; open build-docs/index.html. docs-fast (in
# make test) builds it with the vignettes' small sizes and checks it: links,
# every public name, the gallery's figures, Chromium screenshots.
docs: install r-install
	rm -rf build-docs
	$(PY) tools/build_docs.py build-docs
	$(PY) tools/check_docs.py build-docs

docs-fast: install r-install
	rm -rf build-docs-fast
	$(PY) tools/build_docs.py build-docs-fast --fast
	$(PY) tools/check_docs.py build-docs-fast

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
	$(PY) benchmarks/speed/bench_vs_sklearn.py

clean:
	rm -rf dist build build-c build-py build-r build-san build-san-py build-fuzz build-vignettes build-vignettes-fast build-docs build-docs-fast .pytest_cache .rlib
