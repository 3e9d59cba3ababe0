#!/usr/bin/env bash
# bench-report.sh - how fast `benchgen report` renders, side by side with the
# same charts and workbook made the usual way (matplotlib + XlsxWriter,
# scripts/bench_report_matplotlib.py), on
#   - the published 12-row x 6-backend matrix (tests/fixtures/runs/published, 72 cells)
#   - a synthetic 1,000-cell run (tests/fixtures/make-fixtures.py --synthetic 1000)
# Prints a Markdown table (docs/PERFORMANCE.md, "Report rendering", quotes it).
#
#   scripts/bench-report.sh            # benchgen 3 runs each (median), Python 1 run each
#   REPEAT=5 PY_REPEAT=3 scripts/bench-report.sh
#   RUNS=published scripts/bench-report.sh        # one of: published, synthetic, both (default)
#   PY_REPEAT=0 RUNS=synthetic scripts/bench-report.sh   # benchgen alone (no matplotlib side, no ratio)
#
# Needs a built ./benchgen (or BENCHGEN=...). The Python side runs in a venv
# this script creates under $HOME/.cache/benchgen-tests/bench-venv (BENCH_VENV=...)
# with pinned matplotlib, XlsxWriter and numpy from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHGEN=${BENCHGEN:-./benchgen}
REPEAT=${REPEAT:-3}
PY_REPEAT=${PY_REPEAT:-1}
RUNS=${RUNS:-both}
case $RUNS in published|synthetic|both) ;; *) echo "bench-report: RUNS=$RUNS: expected published, synthetic or both" >&2; exit 2 ;; esac
VENV=${BENCH_VENV:-$HOME/.cache/benchgen-tests/bench-venv}
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

[ -x "$BENCHGEN" ] || { echo "bench-report: $BENCHGEN not found (run make first)" >&2; exit 2; }
if [ "$PY_REPEAT" != 0 ] && { [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import matplotlib, xlsxwriter, numpy' 2>/dev/null; }; then
  echo "bench-report: creating $VENV (matplotlib, XlsxWriter, numpy)" >&2
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q matplotlib==3.8.4 XlsxWriter==3.2.0 numpy==1.26.4
fi

now() { date +%s.%N; }
# median SECONDS... -> the median
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# timed N CMD... -> median wall seconds of N runs (output discarded, failure fatal)
timed() {
  local n=$1 t0 t1; shift
  local ts=()
  for _ in $(seq "$n"); do
    rm -rf "$TMP/out"
    t0=$(now)
    "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; echo "bench-report: failed: $*" >&2; exit 1; }
    t1=$(now)
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
  done
  median "${ts[@]}"
}

runs=()
[ "$RUNS" = synthetic ] || runs+=(tests/fixtures/runs/published)
if [ "$RUNS" != published ]; then
  "$PYTHON" tests/fixtures/make-fixtures.py --synthetic 1000 "$TMP/synthetic-1000"
  runs+=("$TMP/synthetic-1000")
fi
pyver="not run (PY_REPEAT=0)"
[ "$PY_REPEAT" = 0 ] || pyver=$("$VENV/bin/python" -c \
  'import matplotlib, xlsxwriter, sys; print("matplotlib", matplotlib.__version__, "+ XlsxWriter", xlsxwriter.__version__, "on Python", sys.version.split()[0])')

cpus=$(nproc)
echo "Machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $cpus CPUs online;" \
     "$("$BENCHGEN" --version 2>/dev/null | head -1 || true); $pyver; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "benchgen: median of $REPEAT runs; matplotlib + XlsxWriter: median of $PY_REPEAT."
echo
echo "| run | benchgen, everything (HTML, MD, PDF, XLSX, charts) | benchgen, charts + workbook | benchgen, charts + workbook, 1 process | matplotlib + XlsxWriter, charts + workbook | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
for run in "${runs[@]}"; do
  case "$run" in *published) name="published matrix, 12 x 6 = 72 cells" ;; *) name="synthetic, 1,000 cells" ;; esac
  all=$(timed "$REPEAT" "$BENCHGEN" report "$run" --out "$TMP/out" -q)
  cw=$(timed "$REPEAT" "$BENCHGEN" report "$run" --out "$TMP/out" -q --format charts,xlsx)
  cw1=$(timed "$REPEAT" "$BENCHGEN" report "$run" --out "$TMP/out" -q --format charts,xlsx --jobs 1)
  if [ "$PY_REPEAT" = 0 ]; then
    printf '| %s | %.2f s | %.2f s | %.2f s | - | - |\n' "$name" "$all" "$cw" "$cw1"
    continue
  fi
  py=$(timed "$PY_REPEAT" "$VENV/bin/python" scripts/bench_report_matplotlib.py "$run" "$TMP/out")
  ratio=$(awk -v a="$py" -v b="$cw" 'BEGIN { printf "%.4f", a / b }')
  printf '| %s | %.2f s | %.2f s | %.2f s | %.2f s | %.0fx |\n' "$name" "$all" "$cw" "$cw1" "$py" "$ratio"
done
