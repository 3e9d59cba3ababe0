#!/usr/bin/env bash
# slurm-overhead.sh [REPEATS] - the orchestration cost per cell on the Slurm
# path (submit to merged result) against the local path, on this machine.
# Starts the test cluster of tests/slurm/ (root, Debian's Slurm and munge),
# runs tests/specs/tiny1.yaml (12 one-step NumPy cells) REPEATS times (3) each
# way, one cell at a time (--max-parallel 1), and prints per run:
#   overhead per cell = (run wall time - sum of the cells' own wall_s) / 12
# where a cell's wall_s is its worker's fork to reap. Then the medians.
# BENCHGEN=./benchgen by default; BENCHGEN_SLURM_POLL_MS as the run sees it.
set -euo pipefail
N=${1:-3}
B=${BENCHGEN:-./benchgen}
W=$(mktemp -d "${TMPDIR:-/tmp}/slurm-overhead.XXXXXX")
trap 'tests/slurm/stop-cluster.sh "$W/cluster"; rm -rf "$W"' EXIT
eval "$(tests/slurm/start-cluster.sh "$W/cluster")"
export SLURM_CONF
sum_wall() { "$B" show "$1" --json | python3 -c 'import json,sys; print(sum(c["wall_s"] for c in json.load(sys.stdin)["cells"]))'; }
measure() { # NAME ARGS...
  local name=$1; shift
  for i in $(seq "$N"); do
    local out=$W/$name-$i
    local t0 t1
    t0=$(date +%s.%N)
    if ! "$B" run tests/specs/tiny1.yaml --out "$out" "$@" >"$out.log" 2>&1; then
      echo "slurm-overhead: $name run $i failed:" >&2
      tail -5 "$out.log" >&2
      continue
    fi
    t1=$(date +%s.%N)
    python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); c=float(sys.argv[3]); print('%s %.3f %.3f %.3f' % (sys.argv[4], t, c, (t-c)/12))" \
      "$t0" "$t1" "$(sum_wall "$out")" "$name"
  done
}
echo "# name wall_s sum_cell_wall_s overhead_per_cell_s"
{
  measure local
  measure slurm-poll2000 --executor slurm --max-parallel 1
  BENCHGEN_SLURM_POLL_MS=200 measure slurm-poll200 --executor slurm --max-parallel 1
} | tee "$W/all.txt"
python3 - "$W/all.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
by = {}
for name, wall, cells, per in rows:
    by.setdefault(name, []).append(float(per))
for name, v in by.items():
    print(f"median overhead per cell, {name}: {statistics.median(v):.3f} s (n={len(v)})")
PY
