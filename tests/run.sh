#!/usr/bin/env bash
# run.sh BUILD_DIR - runs every unit test binary and integration script and
# prints one closing "N passed, N failed" line. Exit status 1 when anything
# failed. Builds the Python environments the tests use when they are missing
# (on a fresh machine that downloads several GB from PyPI; cached after).
set -u
BUILD=${1:-build}
export BENCHGEN=${BENCHGEN_BIN:-$(pwd)/benchgen}
case "$BENCHGEN" in /*) ;; *) BENCHGEN=$(pwd)/$BENCHGEN ;; esac
export BENCHGEN_HOME=$(pwd)
passed=0
failed=0
failures=()

echo "== environments"
"$BENCHGEN" env sync base torch keras3 keras2 || { echo "cannot build the test environments"; exit 1; }

echo "== unit tests"
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d) continue ;; esac
  out=$("$t" 2>&1)
  rc=$?
  echo "$out" | grep -E '^\[  (FAILED|PASSED|SKIPPED) +\]|^\[==========\]' | sed "s|^|$(basename "$t"): |"
  p=$(echo "$out" | grep -c '^\[       OK \]')
  f=$(echo "$out" | grep -c '^\[  FAILED  \] [a-z_]')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$out" | tail -20; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || { failures+=("$(basename "$t")"); echo "$out" | grep -B2 -A8 'FAILED\|error'; }
done

echo "== integration tests"
for s in tests/integration/test_*.sh; do
  [ -x "$s" ] || continue
  echo "-- $s"
  out=$("$s" 2>&1)
  rc=$?
  echo "$out"
  p=$(echo "$out" | grep -c '^ok - ')
  f=$(echo "$out" | grep -c '^not ok - ')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || failures+=("$s")
done

[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
