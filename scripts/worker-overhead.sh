#!/usr/bin/env bash
# worker-overhead.sh [LABEL=BENCHGEN[@HOME] ...] - what the cell worker costs,
# measured side by side: for each benchgen binary given (default: ./benchgen),
# runs scripts/perf/worker-overhead.yaml (5 cells of 20,000 empty steps, numpy
# backend, `base` environment) and prints, per binary, the median over cells of
#   - the median empty step as the C timer records it,
#   - the median of a pure-Python perf_counter_ns loop around the same call,
#     measured by the workload in the same process right after its steps,
#   - the time from cell start (fork) to the interpreter being up (marker
#     `python`) and to the first step (marker `setup`).
# The binaries alternate cell run by cell run, so machine load hits them alike.
# HOME is the checkout whose runners/ that binary uses (default: its folder).
#   scripts/worker-overhead.sh before=/path/old/benchgen after=./benchgen
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
[ $# -gt 0 ] || set -- "current=./benchgen"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/worker-overhead.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for r in $(seq 1 "$ROUNDS"); do
  for arg in "$@"; do
    label=${arg%%=*}
    bin=${arg#*=}
    home=$(cd "$(dirname "${bin%@*}")" && pwd)
    case "$bin" in *@*) home=${bin#*@}; bin=${bin%@*} ;; esac
    sed "s|workload: empty_step.py|workload: $PWD/scripts/perf/empty_step.py|" scripts/perf/worker-overhead.yaml \
      >"$TMP/spec.yaml"
    BENCHGEN_HOME=$home "$bin" run "$TMP/spec.yaml" --out "$TMP/$label-$r" >"$TMP/$label-$r.log" 2>&1 ||
      { echo "$label: run failed, see below" >&2; tail -5 "$TMP/$label-$r.log" >&2; exit 1; }
    BENCHGEN_HOME=$home "$bin" show "$TMP/$label-$r" --json >"$TMP/$label-$r.json"
  done
done
printf '| binary | cells | empty step, C timer (median ns) | perf_counter_ns loop (median ns) | ratio | cell start to interpreter up (ms) | cell start to first step (ms) |\n'
printf '|---|---|---|---|---|---|---|\n'
for arg in "$@"; do
  label=${arg%%=*}
  python3 - "$label" "$TMP"/"$label"-*.json <<'PY'
import json, statistics, sys
label, files = sys.argv[1], sys.argv[2:]
step, loop, up, first = [], [], [], []
for f in files:
    for c in json.load(open(f))["cells"]:
        if c["status"] != "ok":
            continue
        step.append(c["stats"]["median_ms"] * 1e6)
        loop.append(float(c["facts"]["python_loop.median_ns"]))
        up.append(int(c["markers"]["python"]) / 1e6)
        first.append(int(c["markers"]["setup"]) / 1e6)
m = statistics.median
print(f"| {label} | {len(step)} | {m(step):.0f} | {m(loop):.0f} | {m(step) / m(loop):.2f} | {m(up):.1f} | {m(first):.1f} |")
PY
done
