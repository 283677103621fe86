# sporf -- every set-up step lives here, so a fresh Debian 12 machine needs
# only `make demo` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# meson-python finds meson and ninja on PATH: put the venv's first.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test test-c test-python setup install bench clean

demo: install
	$(PY) examples/demo.py

test: install test-c test-python

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

test-python: install
	$(PY) -m pytest -q tests

bench: install
	$(PY) benchmarks/bench_vs_sklearn.py

clean:
	rm -rf build build-c build-py .pytest_cache
