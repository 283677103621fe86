#!/usr/bin/env bash
# Fuzz the model loader and fit with libFuzzer (clang from Debian's clang-14
# and libclang-rt-14-dev), under AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   tools/fuzz.sh LOAD_SECONDS FIT_SECONDS [OUT_DIR]
#
# Seeds: small models of every kind and format (tools/fuzz_seeds.py) for the
# loader; the kept regression inputs (tests/fuzz/regressions/) for both. New
# crashes land in OUT_DIR/crashes-{load,fit}/ -- keep each, once fixed, in
# tests/fuzz/regressions/{load,fit}/ (meson test replays them). The corpus
# grows in OUT_DIR/corpus-*/ and is reused by the next run. Needs the venv
# (make setup) for the seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
LOAD_SECONDS=${1:-60}
FIT_SECONDS=${2:-60}
OUT=${3:-build-fuzz}
CC=${CC:-clang-14}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "fuzz: $CC not found; install clang-14 and libclang-rt-14-dev" >&2
  exit 2
fi
mkdir -p "$OUT"/corpus-load "$OUT"/corpus-fit "$OUT"/crashes-load "$OUT"/crashes-fit
FLAGS=(-g -O1 -fno-omit-frame-pointer -ffp-contract=off -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Icsrc -Icsrc/include)
for target in load fit; do
  "$CC" "${FLAGS[@]}" $(find csrc -name "*.c" | sort) "tests/fuzz/fuzz_$target.c" -lm -lpthread -o "$OUT/fuzz_$target"
done
.venv/bin/python tools/fuzz_seeds.py "$OUT/seeds-load" >/dev/null
run() { # target seconds corpus dirs...
  local target=$1 seconds=$2
  shift 2
  [ "$seconds" -gt 0 ] || return 0
  echo "fuzz: $target for $seconds s"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$OUT/fuzz_$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$OUT/crashes-$target/" "$@" 2>&1 | tee "$OUT/fuzz_$target.log" | \
    grep -E "^#[0-9]+ +(DONE|pulse)|stat::|ERROR|SUMMARY|crash|timeout" || true
}
run load "$LOAD_SECONDS" "$OUT/corpus-load" "$OUT/seeds-load" tests/fuzz/regressions/load
run fit "$FIT_SECONDS" "$OUT/corpus-fit" tests/fuzz/regressions/fit
found=$(find "$OUT"/crashes-load "$OUT"/crashes-fit -type f | wc -l)
echo "fuzz: $found crashing input(s) in $OUT/crashes-*"
[ "$found" -eq 0 ]
