#!/usr/bin/env bash
# Hostile workloads against the cell worker (tests/hostile/): descriptor
# junk, a closed pipe then a hang, a setsid() child holding the pipe, a
# new-session helper, a forged `done` then a segfault, a forged sample, a
# 200 MB stdout flood, a 200 MB fact; then SIGKILL of benchgen with helpers
# running (cgroup and tree containment). Each attack: its status, a wall-time
# bound, no surviving process (by the PIDs the workloads wrote), run.db's
# integrity, and bystander cells untouched. Needs the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

SPEC=tests/hostile/hostile.yaml
PIDS=$TMP/pids
mkdir -p "$PIDS"
export HOSTILE_PIDS=$PIDS

# cgroups PID: the cell groups a benchgen process PID made that still exist
# (their names start with benchgen-PID.; other runs on the machine are not ours).
cgroups() { find /sys/fs/cgroup -maxdepth 6 -type d -name "benchgen-$1.*" 2>/dev/null; }

. "$ROOT/tests/hostile/survivors.sh" # survivors DIR: the recorded processes still alive

# survivors.sh itself: a recorded PID that another process holds now (PIDs
# wrap on a busy machine) is not a survivor; the same PID and start time is.
mkdir -p "$TMP/reuse"
sleep 60 &
other=$!
echo "$other 1" >"$TMP/reuse/recycled.$other" # start time 1: not this sleep's
check "survivors: a reused PID (another start time) is not a survivor" test -z "$(survivors "$TMP/reuse")"
python3 -c 'import sys; sys.path.insert(0, "tests/hostile"); import common; print(sys.argv[1], common.start_time(sys.argv[1]))' \
  "$other" >"$TMP/reuse/recycled.$other"
check "survivors: the same PID and start time is one" test "$(survivors "$TMP/reuse")" = " recycled.$other"
kill "$other"
wait "$other" 2>/dev/null
check "survivors: a dead recorded process is not" test -z "$(survivors "$TMP/reuse")"

integrity() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0])' "$1/run.db" 2>&1; }

RUN=$TMP/run
start=$(date +%s)
"$BENCHGEN" run "$SPEC" --out "$RUN" >"$TMP/run.out" 2>&1 &
bg=$!
wait $bg
rc=$?
took=$(( $(date +%s) - start ))
check "run exits 1 (failing cells are results)" test "$rc" -eq 1
check "run.db passes pragma integrity_check" test "$(integrity "$RUN")" = ok
"$BENCHGEN" show "$RUN" --json >"$TMP/run.json"
check "show --json reads every cell" test "$(jget "$TMP/run.json" 'len(d["cells"])')" = 10
J=$TMP/run.json
field() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]$2"; }

expect() { # KEY STATUS MAX_WALL_S DETAIL_SUBSTRING
  local got wall
  got=$(cell "$J" "$1" status)
  wall=$(cell "$J" "$1" wall_s)
  if [ "$got" = "$2" ]; then ok "$1 ends $2"; else not_ok "$1 ends $2 (got $got: $(cell "$J" "$1" detail | head -c 300))"; fi
  if python3 -c "import sys; sys.exit(0 if float('$wall') <= $3 else 1)"; then ok "$1 took ${wall}s <= $3 s"
  else not_ok "$1 took ${wall}s, over $3 s"; fi
  [ -z "$4" ] || check "$1 says: $4" grep -qF "$4" <<<"$(cell "$J" "$1" detail)"
}
# Bounds: the cell's timeout (6 s, 60 s for the heavy ones) plus a few seconds;
# the attacks that should end at once get the timeout itself as their bound.
expect fdjunk/predict/b1/numpy error 6 "not a JSON object"
expect closedhang/predict/b1/numpy timeout 10 "timeout of 6 s"
expect setsid/predict/b1/numpy ok 6 ""
expect newsession/predict/b1/numpy ok 6 ""
expect forgeddone/predict/b1/numpy crash 6 "SIGSEGV"
expect forgedsample/predict/b1/numpy error 6 "invalid step duration (-5 ns)"
expect flood/predict/b1/numpy ok 60 ""
expect bigfact/predict/b1/numpy error 30 "more than 1048576 bytes"
check "forged done: no samples stored" test "$(field forgeddone/predict/b1/numpy "['samples']")" = "{'timed': 0, 'warmup': 0}"
check "flood: the log is capped at log_limit (8 MiB) plus one note" \
  test "$(stat -c %s "$RUN/logs/flood_predict_b1_numpy.log")" -le $((8 * 1048576 + 300))
check "flood: the log keeps the tail" grep -q "THE-LAST-LINE" "$RUN/logs/flood_predict_b1_numpy.log"
check "flood: the log says how much was dropped" grep -q "bytes of output dropped here" "$RUN/logs/flood_predict_b1_numpy.log"
dropped=$(field flood/predict/b1/numpy "['facts']['log.dropped_bytes']")
check "flood: dropped bytes recorded ($dropped)" test "$dropped" -gt 190000000
check "show lists the dropped bytes" grep -q "flood/predict/b1/numpy: $dropped bytes of output dropped" <<<"$("$BENCHGEN" show "$RUN")"
check "every cell records its containment (cgroup1 here)" \
  test "$(jget "$J" 'sorted(set(c["environment"].get("worker.containment","")[:7] for c in d["cells"]))')" = "['cgroup1']"
check "every cell records its Python" \
  test "$(jget "$J" 'all(c["environment"].get("python.version") for c in d["cells"])')" = True
check "no process of any cell survived ($(ls "$PIDS" | wc -l) recorded)" test -z "$(survivors "$PIDS")"
check "every recorded PID file is there (the attacks ran)" \
  test "$(ls "$PIDS" | sed 's/\..*//' | sort -u | tr '\n' ' ')" = "big_fact closed_hang fd_junk flood forged_done forged_sample helper new_session_worker setsid_child "
check "no cgroup left behind" test -z "$(cgroups $bg)"

# Bystanders: the two mlp cells are ok, with all their samples, and their
# inputs are byte-identical to a clean run of just them.
for k in mlp/fit/b8/numpy mlp/predict/b16/numpy; do
  check "bystander $k ok with 3 timed + 1 warm-up samples" test \
    "$(cell "$J" "$k" status) $(field "$k" "['samples']")" = "ok {'timed': 3, 'warmup': 1}"
done
# Three more runs, side by side (each has its own PID directory and run
# directory; only statuses are checked, no times): a clean run of the
# bystanders, and the attacks that leave processes without cgroups (subreaper
# + sweep) and under cgroup v2.
"$BENCHGEN" run "$SPEC" --only model=mlp --out "$TMP/clean" >/dev/null 2>&1 &
side=($!)
TREE=$TMP/tree
mkdir -p "$TMP/tree-pids"
HOSTILE_PIDS=$TMP/tree-pids BENCHGEN_CONTAINMENT=tree "$BENCHGEN" run "$SPEC" \
  --only model=setsid,model=newsession,model=closedhang --out "$TREE" >/dev/null 2>&1 &
side+=($!)
# cgroup v2: the unified hierarchy (here the hybrid /sys/fs/cgroup/unified,
# which has no memory controller: the group holds and kills, memory is polled).
have_v2=0
if [ -e /sys/fs/cgroup/cgroup.controllers ] || [ -e /sys/fs/cgroup/unified/cgroup.controllers ]; then
  have_v2=1
  V2=$TMP/v2
  mkdir -p "$TMP/v2-pids"
  HOSTILE_PIDS=$TMP/v2-pids BENCHGEN_CONTAINMENT=cgroup2 "$BENCHGEN" run "$SPEC" \
    --only model=setsid,model=newsession,model=closedhang --out "$V2" >/dev/null 2>&1 &
  side+=($!)
fi
wait "${side[@]}"

# Bystanders: inputs byte-identical to the clean run of just them.
"$BENCHGEN" show "$TMP/clean" --json >"$TMP/clean.json"
for k in mlp/fit/b8/numpy mlp/predict/b16/numpy; do
  check "bystander $k: inputs identical to a clean run" test \
    "$(cell "$J" "$k" input_sha256)" = "$(cell "$TMP/clean.json" "$k" input_sha256)"
done

"$BENCHGEN" show "$TREE" --json >"$TMP/tree.json"
check "tree: cells record their containment" \
  test "$(jget "$TMP/tree.json" 'sorted(set(c["environment"].get("worker.containment") for c in d["cells"]))')" = "['tree (subreaper + sweep)']"
check "tree: statuses (ok, ok, timeout)" test "$(jget "$TMP/tree.json" '" ".join(c["status"] for c in d["cells"])')" = "timeout ok ok"
check "tree: no process survived" test -z "$(survivors "$TMP/tree-pids")"
check "tree: run.db intact" test "$(integrity "$TREE")" = ok
if [ "$have_v2" -eq 1 ]; then
  "$BENCHGEN" show "$V2" --json >"$TMP/v2.json"
  check "cgroup2: cells record their containment" \
    grep -q "cgroup2 (" <<<"$(jget "$TMP/v2.json" 'sorted(set(c["environment"].get("worker.containment") for c in d["cells"]))')"
  check "cgroup2: statuses (ok, ok, timeout)" test "$(jget "$TMP/v2.json" '" ".join(c["status"] for c in d["cells"])')" = "timeout ok ok"
  check "cgroup2: no process survived" test -z "$(survivors "$TMP/v2-pids")"
  check "cgroup2: run.db intact" test "$(integrity "$V2")" = ok
else
  echo "# skip: no cgroup v2 hierarchy on this machine"
fi

# SIGKILL of benchgen while a cell's helpers run: the watchdog kills them.
# kill_test NAME MODEL CONTAINMENT PIDFILES (how many PID files mean "all up")
kill_test() {
  local name=$1 model=$2 how=$3 want=$4 dir=$TMP/kill-$3-$2 pid t0 waited=0
  mkdir -p "$dir/pids"
  HOSTILE_PIDS=$dir/pids HOSTILE_HOLD=1 BENCHGEN_CONTAINMENT=$how \
    "$BENCHGEN" run "$SPEC" --only "model=$model" --out "$dir/run" >"$dir/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do # the helper is up once its PID file is
    [ "$(ls "$dir/pids" | wc -l)" -ge "$want" ] && break
    sleep 0.1
  done
  sleep 0.3
  check "$name: helpers running before the kill" test -n "$(survivors "$dir/pids")"
  kill -KILL "$pid"
  t0=$(date +%s%N)
  while [ -n "$(survivors "$dir/pids")" ] && [ $waited -lt 50 ]; do sleep 0.05; waited=$((waited + 1)); done
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  wait "$pid" 2>/dev/null
  sleep 0.3
  check "$name: the watchdog removed the cell's groups" test -z "$(cgroups $pid)"
  # 1 s is the promise; the bound allows for a loaded machine.
  if [ -z "$(survivors "$dir/pids")" ] && [ "$ms" -le 2000 ]; then ok "$name: every helper dead ${ms} ms after SIGKILL of benchgen"
  else not_ok "$name: helpers still alive ${ms} ms after SIGKILL of benchgen:$(survivors "$dir/pids")"; fi
}

kill_test "cgroup, new-session helper" newsession cgroup1 2
kill_test "cgroup, setsid child" setsid cgroup1 1
kill_test "tree, setsid child" setsid tree 1
[ "$have_v2" -eq 1 ] && kill_test "cgroup2, new-session helper" newsession cgroup2 2
echo "# hostile runs took ${took} s"
finish
