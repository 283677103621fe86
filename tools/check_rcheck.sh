#!/usr/bin/env bash
# Fail when R CMD check's log reports a WARNING or an ERROR (R CMD check
# itself exits 0 on warnings); list any NOTEs.
set -euo pipefail
log=${1:?usage: check_rcheck.sh path/to/00check.log}
status=$(grep '^Status:' "$log" || true)
echo "R CMD check: ${status:-no status line}"
grep -n 'NOTE$' "$log" || true
if [ -z "$status" ] || grep -Eq 'WARNING|ERROR' <<<"$status"; then
  echo "R CMD check did not pass cleanly; see $log" >&2
  exit 1
fi
