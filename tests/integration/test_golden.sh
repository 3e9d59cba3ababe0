#!/usr/bin/env bash
# test_golden.sh - the rendered outputs of the committed fixture runs (report
# and compare, every format; the published and tricky runs and the run shapes
# of tests/fixtures/runs/shape-*) against SHA-256 values recorded in
# tests/golden/outputs.sha256. Refactoring must not change a byte; a
# deliberate output change updates that file in a commit of its own:
#
#     tests/integration/test_golden.sh --update
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
GOLD=tests/golden/outputs.sha256
FIX=tests/fixtures
REF=data/reference/keras-benchmarks.csv

render() { # render OUT_DIR: every golden output under OUT_DIR
  "$BENCHGEN" report "$FIX/runs/published" --out "$1/report-published" --reference "$REF" -q >/dev/null 2>&1 || return 1
  "$BENCHGEN" report "$FIX/runs/tricky" --out "$1/report-tricky" --reference "$REF" -q >/dev/null 2>&1 || return 1
  # the run shapes (issue 27): one cell, one backend, one row, all failed,
  # no repeats, repeats, both methods, a Slurm run with cells lost
  local s
  for s in one-cell one-backend one-row all-failed no-repeats repeats both-methods slurm-lost; do
    "$BENCHGEN" report "$FIX/runs/shape-$s" --out "$1/report-shape-$s" -q >/dev/null 2>&1 || return 1
  done
  "$BENCHGEN" compare "$FIX/compare/base" "$FIX/compare/upgrade" "$FIX/compare/later" --out "$1/compare" >/dev/null 2>&1
  [ $? -le 3 ] || return 1
}

render "$TMP/out"
rc=$?
hashes=$(cd "$TMP/out" && find . -type f | LC_ALL=C sort | xargs sha256sum)
if [ "${1:-}" = "--update" ]; then
  [ $rc -eq 0 ] || { echo "render failed; $GOLD not updated"; exit 1; }
  echo "$hashes" >"$GOLD"
  echo "wrote $GOLD ($(wc -l <"$GOLD") files)"
  exit 0
fi
check "fixture outputs render" test $rc -eq 0
diffs=$(diff <(echo "$hashes") "$GOLD")
check "every rendered fixture output is byte-identical to $GOLD" test -z "$diffs"
[ -z "$diffs" ] || echo "$diffs" | head -20
finish
