#!/usr/bin/env bash
# Create the project's virtual environment, first installing from Debian's
# packages whatever a fresh machine lacks (a C compiler, Python's headers,
# venv). Only runs apt-get when something is missing.
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
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
