#!/usr/bin/env bash
# soak.sh N [KILLS] - a fault soak (issue 28, item 4): a run of about N cells
# drawn from the fault workloads (tests/workloads, tests/hostile: raise,
# segfault, hang past the timeout, allocate past the limit, exit without a
# report, decline, flood the log, fork children that outlive the worker,
# forge report lines) mixed with ok cells, with benchgen SIGKILLed KILLS
# times (default 1 + N/50) at random moments and resumed with
# `run --resume`. Afterwards it checks: every cell has exactly one final
# status, the one its workload earns; nothing lost (every cell in run.db and
# show --json, ok cells with all their samples) or duplicated (one row per
# key, one sample row per step); PRAGMA integrity_check ok; no process, cell
# cgroup or scratch directory left; and the parent's open descriptors and
# resident memory in the last (uninterrupted) segment, at its first cells
# and at its end. Needs the `base` environment. Prints `ok - ` / `not ok - `
# lines and a summary; exit 1 on any failure.
#
#   BENCHGEN=./benchgen scripts/soak.sh 100
#   SOAK_SEED=7 (the kill moments), SOAK_KEEP=1 (keep the temporary directory),
#   SOAK_SAMPLES=FILE (keep the parent samples: "cells_final fds rss_KiB" each 0.5 s)
set -u
N=${1:?usage: soak.sh N [KILLS]}
KILLS=${2:-$((1 + N / 50))}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCHGEN=${BENCHGEN:-$ROOT/benchgen}
export BENCHGEN_HOME=${BENCHGEN_HOME:-$ROOT}
RANDOM=${SOAK_SEED:-7}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-soak.XXXXXX")
[ "${SOAK_KEEP:-0}" = 1 ] || trap 'rm -rf "$TMP"' EXIT
RUN=$TMP/run
PIDS=$TMP/pids
SCRATCH=$TMP/scratch       # the workers' TMPDIR: every benchgen-cell-* dir is here
mkdir -p "$PIDS" "$SCRATCH"
export HOSTILE_PIDS=$PIDS
fails=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

# The kinds: model name, workload (empty: built-in), expected status.
W=$ROOT/tests/workloads
H=$ROOT/tests/hostile
KINDS=(
  "mlp||ok"
  "raises|$W/raises.py|error"
  "segfault|$W/segfault.py|crash"
  "hang|$W/sleeps.py|timeout"
  "alloc|$W/allocates.py|oom"
  "silent|$W/silent_exit.py|error"
  "declines|$W/declines.py|unsupported"
  "flood|$H/flood.py|ok"
  "setsid|$H/setsid_pipe.py|ok"
  "forgedsample|$H/forged_sample.py|error"
  "forgeddone|$H/forged_done.py|crash"
  "naps|$W/naps.py|ok"
)
K=${#KINDS[@]}
REPEATS=$(( (N + K - 1) / K ))
CELLS=$((REPEATS * K))
SPEC=$TMP/soak.yaml
{
  echo "name: soak"
  echo "steps: 3"
  echo "warmup: 1"
  echo "seed: 3"
  echo "timeout: 4"
  echo "memory_limit: 512MiB"
  echo "log_limit: 1MiB"
  echo "repeats: $REPEATS"
  echo "backends: [numpy]"
  echo "rows:"
  for k in "${KINDS[@]}"; do
    IFS='|' read -r model wl _ <<<"$k"
    if [ -z "$wl" ]; then echo "  - {model: $model, task: fit, batch: 8}"
    elif [ "$model" = alloc ]; then echo "  - {model: $model, task: predict, batch: 1, workload: $wl, timeout: 60}"
    else echo "  - {model: $model, task: predict, batch: 1, workload: $wl}"; fi
  done
} >"$SPEC"
echo "# soak: $CELLS cells ($K kinds x $REPEATS repeats), $KILLS SIGKILL(s), in $TMP"

. "$ROOT/tests/hostile/survivors.sh" # survivors DIR: recorded processes still alive (PID and start time)
cgroups_of() { find /sys/fs/cgroup -maxdepth 6 -type d -name "benchgen-$1.*" 2>/dev/null; }
finished() { sqlite3 "file:$RUN/run.db?mode=ro" "SELECT count(*) FROM cells WHERE status IS NOT NULL AND status != ''" 2>/dev/null || echo 0; }
# sample PID FILE: every 0.5 s, "cells_done fds rss_kib" of process PID
sample() {
  while [ -e "/proc/$1" ]; do
    local fds rss
    fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$(finished) $fds $rss" >>"$2"
    sleep 0.5
  done
}
pids_all=()
segment() { # ARGS...: one benchgen run in the background; sets $bg
  TMPDIR=$SCRATCH "$BENCHGEN" "$@" >>"$TMP/run.out" 2>&1 &
  bg=$!
  pids_all+=("$bg")
}
t0=$SECONDS
kills_done=0
segment run "$SPEC" --out "$RUN"
while :; do
  if [ "$kills_done" -lt "$KILLS" ]; then
    # a random moment: 2 to 2 + 20 s into this segment
    wait_s=$((2 + RANDOM % 20))
    for _ in $(seq 1 $((wait_s * 10))); do [ -e "/proc/$bg" ] || break; sleep 0.1; done
    if [ -e "/proc/$bg" ]; then
      kill -KILL "$bg"
      wait "$bg" 2>/dev/null
      kills_done=$((kills_done + 1))
      echo "# SIGKILL $kills_done after ${wait_s}s, $(finished)/$CELLS cells final"
      sleep 2 # the watchdog's time to end the cell's processes
      check "after SIGKILL $kills_done: no cgroup of that benchgen left" test -z "$(cgroups_of "$bg")"
      check "after SIGKILL $kills_done: no recorded process alive" test -z "$(survivors "$PIDS")"
      segment run --resume "$RUN"
      continue
    fi
  fi
  # the last segment: measured to the end
  sample "$bg" "$TMP/samples" &
  sampler=$!
  wait "$bg"
  rc=$?
  wait "$sampler" 2>/dev/null
  break
done
echo "# $((SECONDS - t0)) s; last segment exit $rc"
check "the run finished (exit 1: failing cells are results)" test "$rc" -eq 1

# Statuses: exactly one row per cell, each the status its workload earns.
"$BENCHGEN" show "$RUN" --json >"$TMP/show.json" 2>>"$TMP/run.out"
python3 - "$TMP/show.json" "$RUN/run.db" "$CELLS" "${KINDS[@]}" >"$TMP/judge.out" <<'PY'
import collections, json, sqlite3, sys
show, db, cells, kinds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
want = {k.split("|")[0]: k.split("|")[2] for k in kinds}
d = json.load(open(show))
keys = [c["key"] for c in d["cells"]]
print("cells", len(keys), len(set(keys)) == len(keys))
wrong = [(c["key"], c["status"], (c.get("detail") or "")[:120]) for c in d["cells"] if c["status"] != want[c["model"]]]
print("wrong", len(wrong))
for w in wrong[:20]:
    print("  ", *w)
counts = collections.Counter(c["status"] for c in d["cells"])
print("statuses", " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
short = [c["key"] for c in d["cells"] if c["status"] == "ok" and c["samples"] != {"timed": 3, "warmup": 1}]
print("short", len(short), short[:5])
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
print("integrity", con.execute("pragma integrity_check").fetchone()[0])
print("dbcells", con.execute("select count(*), count(distinct key) from cells").fetchone())
# ok cells: exactly warm-up + steps sample rows in run.db (none lost, none twice)
bad = con.execute("select count(*) from cells c where status = 'ok' and "
                  "(select count(*) from samples s where s.cell_id = c.id) != warmup + steps").fetchone()[0]
print("dupsamples", bad)
PY
cat "$TMP/judge.out" | sed 's/^/# /'
j() { grep "^$1 " "$TMP/judge.out" | cut -d' ' -f2-; }
check "show --json lists every cell once ($CELLS)" test "$(j cells)" = "$CELLS True"
check "every cell has the status its workload earns ($(j statuses))" test "$(j wrong)" = 0
check "ok cells hold all their samples (3 timed + 1 warm-up)" test "$(j short | cut -d' ' -f1)" = 0
check "PRAGMA integrity_check ok" test "$(j integrity)" = ok
check "run.db: one row per cell ($(j dbcells))" test "$(j dbcells)" = "($CELLS, $CELLS)"
check "run.db: each ok cell has warm-up + steps sample rows" test "$(j dupsamples)" = 0
sleep 1
check "no recorded process alive ($(ls "$PIDS" | wc -l) recorded)" test -z "$(survivors "$PIDS")"
left_cg=""
for p in "${pids_all[@]}"; do left_cg="$left_cg$(cgroups_of "$p")"; done
check "no cell cgroup left" test -z "$left_cg"
check "no scratch directory left ($(ls "$SCRATCH" | wc -l) in the workers' TMPDIR)" test -z "$(ls -A "$SCRATCH")"
# The parent in its last segment: its open descriptors and resident memory
# go up and down with each cell (pipes, log, cgroup files while one runs),
# so the highest of each in the first third of the samples is compared with
# the highest in the last third: a leak per cell shows as growth.
if [ "$(wc -l <"$TMP/samples" 2>/dev/null || echo 0)" -ge 6 ]; then
  n=$(wc -l <"$TMP/samples")
  third=$((n / 3))
  read -r c1 f1 r1 <<<"$(head -n "$third" "$TMP/samples" | awk '{if ($2 > f) f = $2; if ($3 > r) r = $3; c = $1} END {print c, f, r}')"
  read -r c2 f2 r2 <<<"$(tail -n "$third" "$TMP/samples" | awk '{if ($2 > f) f = $2; if ($3 > r) r = $3; c = $1} END {print c, f, r}')"
  echo "# parent (last segment, $n samples): highest fds/RSS up to $c1 cells final: $f1 / $r1 KiB; last third, to $c2 cells: $f2 / $r2 KiB"
  check "parent descriptors did not grow (highest $f1 early, $f2 late)" test "$f2" -le "$f1"
  check "parent RSS did not grow more than 4 MiB (highest $r1 KiB early, $r2 KiB late)" test "$r2" -le "$((r1 + 4096))"
  cp "$TMP/samples" "${SOAK_SAMPLES:-/dev/null}" 2>/dev/null
else
  not_ok "too few samples of the parent's last segment ($(wc -l <"$TMP/samples" 2>/dev/null || echo 0))"
fi
echo "# soak $CELLS cells, $KILLS kill(s): $fails failure(s), $((SECONDS - t0)) s"
[ "$fails" -eq 0 ]
