#!/usr/bin/env bash
# bench-big-text.sh - how long `benchgen report` takes on a run whose spec
# has a huge `description` (issue 26, "Why" 7): for each size in SIZES and
# each kind (words: "lorem ipsum ..." with spaces; line: one line of "x"
# without a space), a one-cell NumPy run is made once, then rendered to each
# format alone (--format html, md, pdf, xlsx, charts; report.json is always
# written) and to all of them, REPEAT times (median wall seconds, -j 1).
# A render past TIMEOUT seconds is cut and printed as ">TIMEOUT".
# Prints a Markdown table (docs/PERFORMANCE.md, "A 10 MB description").
#
#   scripts/bench-big-text.sh                        # SIZES="1000000 10000000" REPEAT=3
#   BENCHGEN=/path/to/other/benchgen BENCHGEN_HOME=/its/tree scripts/bench-big-text.sh
#
# Needs a built ./benchgen (or BENCHGEN=...) and the `base` environment (numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHGEN=${BENCHGEN:-./benchgen}
case "$BENCHGEN" in /*) ;; *) BENCHGEN=$PWD/$BENCHGEN ;; esac
export BENCHGEN_HOME=${BENCHGEN_HOME:-$PWD}
SIZES=${SIZES:-1000000 10000000}
REPEAT=${REPEAT:-3}
TIMEOUT=${TIMEOUT:-120}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-bigtext.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[ -x "$BENCHGEN" ] || { echo "bench-big-text: $BENCHGEN not found (run make first)" >&2; exit 2; }

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# render RUN FORMAT -> median wall seconds of REPEAT renders, or ">TIMEOUT"
render() {
  local t=() i t0 rc
  for i in $(seq "$REPEAT"); do
    rm -rf "$TMP/out"
    t0=$(date +%s.%N)
    rc=0
    timeout "$TIMEOUT" "$BENCHGEN" report "$1" --out "$TMP/out" --format "$2" -q -j 1 >/dev/null 2>&1 || rc=$?
    [ "$rc" -eq 124 ] && { echo ">$TIMEOUT"; return; }
    [ "$rc" -eq 0 ] || { echo "bench-big-text: report $1 --format $2 exited $rc" >&2; exit 1; }
    t+=("$(echo "$(date +%s.%N) - $t0" | bc -l)")
  done
  printf '%.2f' "$(median "${t[@]}")"
}

echo "| description | html | md | pdf | xlsx | charts | all |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
  for kind in words line; do
    python3 - "$kind" "$n" "$TMP/spec.yaml" <<'PY'
import sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = ("lorem ipsum dolor sit amet " * (n // 27 + 1))[:n] if kind == "words" else "x" * n
open(path, "w").write('name: big\nsteps: 5\nwarmup: 1\nbackends: [numpy]\ndescription: "%s"\n'
                      'rows:\n  - {model: mlp, task: predict, batch: 8}\n' % d)
PY
    rm -rf "$TMP/run"
    "$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >/dev/null 2>&1 || { echo "bench-big-text: run failed" >&2; exit 1; }
    row="| $n bytes, $kind |"
    for f in html md pdf xlsx charts all; do
      row="$row $(render "$TMP/run" $f) |"
    done
    echo "$row"
  done
done
