#!/usr/bin/env bash
# run.sh BUILD_DIR [--unit] - runs every unit test binary and integration
# script and prints one closing "N passed, N failed" line. Exit status 1 when
# anything failed. Builds the Python environments the tests use when they are
# missing (on a fresh machine that downloads several GB from PyPI; cached
# after). With --unit (`make check`): the unit tests only, side by side, no
# environment, no network.
set -u
BUILD=${1:-build}
UNIT_ONLY=0
[ "${2:-}" = "--unit" ] && UNIT_ONLY=1
export BENCHGEN=${BENCHGEN_BIN:-$(pwd)/benchgen}
case "$BENCHGEN" in /*) ;; *) BENCHGEN=$(pwd)/$BENCHGEN ;; esac
export BENCHGEN_HOME=$(pwd)
passed=0
failed=0
failures=()

if [ "$UNIT_ONLY" -eq 0 ]; then
echo "== environments"
"$BENCHGEN" env sync base torch keras3 keras2 || { echo "cannot build the test environments"; exit 1; }
fi

echo "== unit tests"
# Side by side (each binary writes its output to a file), reported in order.
UNIT_OUT=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-unit.XXXXXX")
JOBS=${JOBS:-1}
[ "$UNIT_ONLY" -eq 1 ] && [ "$JOBS" -eq 1 ] && JOBS=$(nproc 2>/dev/null || echo 2)
unit_bins=()
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d) continue ;; esac
  unit_bins+=("$t")
done
running=0
for t in "${unit_bins[@]}"; do
  ( "$t" >"$UNIT_OUT/$(basename "$t").out" 2>&1; echo $? >"$UNIT_OUT/$(basename "$t").rc" ) &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait
for t in "${unit_bins[@]}"; do
  out=$(cat "$UNIT_OUT/$(basename "$t").out")
  rc=$(cat "$UNIT_OUT/$(basename "$t").rc")
  echo "$out" | grep -E '^\[  (FAILED|PASSED|SKIPPED) +\]|^\[==========\]' | sed "s|^|$(basename "$t"): |"
  p=$(echo "$out" | grep -c '^\[       OK \]')
  f=$(echo "$out" | grep -c '^\[  FAILED  \] [a-z_]')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$out" | tail -20; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || { failures+=("$(basename "$t")"); echo "$out" | grep -B2 -A8 'FAILED\|error'; }
done
rm -rf "$UNIT_OUT"

if [ "$UNIT_ONLY" -eq 1 ]; then
  [ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi

echo "== integration tests"
times=()
for s in tests/integration/test_*.sh; do
  [ -x "$s" ] || continue
  echo "-- $s"
  t0=$SECONDS
  out=$("$s" 2>&1)
  rc=$?
  echo "$out"
  echo "   ($((SECONDS - t0)) s)"
  times+=("$((SECONDS - t0)) $s")
  p=$(echo "$out" | grep -c '^ok - ')
  f=$(echo "$out" | grep -c '^not ok - ')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || failures+=("$s")
done

echo "== slowest integration tests (seconds)"
printf '%s\n' "${times[@]}" | sort -rn | head -8 | sed 's/^/   /'
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
