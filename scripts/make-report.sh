#!/usr/bin/env bash
# make-report.sh SPEC - what `make report` does after building: build every
# Python environment the spec needs, run the matrix, render its report.
set -euo pipefail
SPEC=${1:-data/matrix/cpu-tiny.yaml}
BIN=${BENCHGEN:-./benchgen}

echo "== environments (first time: several GB from PyPI, cached afterwards)"
# The environments cpu-tiny.yaml's backends run in (data/envs/ also holds
# the 2024 stack, which only the upgrade recipes need).
"$BIN" env sync torch keras3 keras2
name=$(sed -n 's/^name:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$SPEC" | head -1)
out="runs/${name}-$(date -u +%Y%m%d-%H%M%S)"
echo "== run $SPEC -> $out"
set +e
"$BIN" run "$SPEC" --out "$out"
rc=$?
set -e
# 1 means some cell failed: the run is complete and its report shows why.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  echo "make report: the run stopped (exit $rc); finish it with: $BIN run --resume $out" >&2
  exit "$rc"
fi
echo "== report"
"$BIN" report "$out"
