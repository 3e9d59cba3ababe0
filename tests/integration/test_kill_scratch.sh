#!/usr/bin/env bash
# SIGKILL of benchgen while a cell runs: the watchdog ends the cell's
# processes and removes its scratch directory ($TMPDIR/benchgen-cell-*),
# which benchgen itself can no longer remove (found by scripts/soak.sh: each
# kill left one). Then --resume runs the cell again and leaves none either.
# Needs the `base` environment; about 10 s.
set -u
. "$(dirname "$0")/lib.sh"
SCRATCH=$TMP/scratch
mkdir -p "$SCRATCH"
cat >"$TMP/hang.yaml" <<YAML
name: kill-scratch
steps: 2
warmup: 1
timeout: 3
backends: [numpy]
rows:
  - {model: hang, task: predict, batch: 1, workload: $ROOT/tests/workloads/sleeps.py}
YAML
TMPDIR=$SCRATCH "$BENCHGEN" run "$TMP/hang.yaml" --out "$TMP/run" >"$TMP/out" 2>&1 &
bg=$!
for _ in $(seq 1 150); do # the cell is running once its scratch directory is
  [ -n "$(ls -A "$SCRATCH")" ] && break
  sleep 0.1
done
check "the cell's scratch directory exists while it runs" test -n "$(ls -A "$SCRATCH")"
sleep 0.5
kill -KILL "$bg"
wait "$bg" 2>/dev/null
for _ in $(seq 1 30); do [ -z "$(ls -A "$SCRATCH")" ] && break; sleep 0.1; done
check "after SIGKILL of benchgen the watchdog removed it ($(ls -A "$SCRATCH" | tr '\n' ' '))" test -z "$(ls -A "$SCRATCH")"
TMPDIR=$SCRATCH "$BENCHGEN" run --resume "$TMP/run" >"$TMP/out2" 2>&1
check "resume ends the cell as timeout" test "$("$BENCHGEN" show "$TMP/run" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cells"][0]["status"])')" = timeout
check "and leaves no scratch directory" test -z "$(ls -A "$SCRATCH")"
finish
