#!/usr/bin/env bash
# The report channel across a container boundary: cells run through
# tests/container/ns-prefix.sh, a prefix that closes fd 3 and moves the
# interpreter into a new mount namespace where only the cell's directory is
# bind-mounted back (as `docker run -v {cell}:{cell}` would). The worker
# must then report over the Unix socket in the cell's directory, with the
# same samples contract as a direct cell, and the hostile workloads of
# test_hostile_worker.sh must end as they do on fd 3. Socket-only attacks:
# a second connection, an impostor with a wrong token, a prefix that does not
# bind the directory, and a worker the parent cannot kill (it left benchgen's
# cgroups, as a container's process does). Needs root (unshare -m, mount)
# and the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
  echo "# skip: needs root for unshare -m and mount (uid $(id -u))"
  finish
fi
. "$ROOT/tests/container/spec.sh"
base_python
NS=$ROOT/tests/container/ns-prefix.sh
export BENCHGEN_CACHE=$TMP/cache
# The cells' directories (and so the sockets) live here; ns-prefix.sh hides
# this directory behind an empty tmpfs in the worker's namespace.
export TMPDIR=$TMP/cells
mkdir -p "$TMPDIR" "$TMP/pids"
export HOSTILE_PIDS=$TMP/pids

reg() { # reg NAME PREFIX...: env add NAME $PY -- PREFIX...
  local name=$1
  shift
  "$BENCHGEN" env add "$name" "$PY" ${1+--} "$@" >"$TMP/add-$name.out" 2>&1
  check "env add $name" test $? -eq 0
}
reg direct
reg sock "$NS" '{cell}'
reg auto "$NS" -
reg nobind env NS_PREFIX_MODE=nobind "$NS" '{cell}'
reg impostor env NS_PREFIX_MODE=impostor "$NS" '{cell}'
reg escape env NS_PREFIX_MODE=escape "$NS" -
check "env add's probe ran the {cell} prefix with a stand-in directory it then removed" \
  test -z "$(ls "$TMPDIR")"

OKROWS=("{model: mlp, task: fit, batch: 8}"
        "{model: echo, task: predict, batch: 2, workload: $ROOT/tests/workloads/echo_inputs.py}"
        "{model: probe, task: predict, batch: 1, workload: $ROOT/tests/container/probe_channel.py}")
for e in direct sock auto; do spec "ok-$e" "$e" 60 "${OKROWS[@]}"; done
spec nobind nobind 20 "{model: mlp, task: predict, batch: 4}"
spec impostor impostor 20 "{model: mlp, task: predict, batch: 4}"
spec escape escape 4 "{model: hang, task: predict, batch: 1, workload: $ROOT/tests/container/hang_step.py}"
# The hostile spec, its workloads named by absolute path, on the socket.
sed "s|^backends: \[numpy\]|backends: [numpy]\nenvs: {numpy: sock}|; s|workload: \([a-z_]*\.py\)|workload: $ROOT/tests/hostile/\1|" \
  tests/hostile/hostile.yaml >"$TMP/hostile.yaml"

start=$(date +%s)
pids=()
for s in ok-direct ok-sock ok-auto nobind impostor escape hostile; do
  "$BENCHGEN" run "$TMP/$s.yaml" --out "$TMP/run-$s" >"$TMP/$s.out" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
took=$(( $(date +%s) - start ))
for s in ok-direct ok-sock ok-auto nobind impostor escape hostile; do
  "$BENCHGEN" show "$TMP/run-$s" --json >"$TMP/$s.json" 2>"$TMP/$s.show.err"
done

# ---- the samples contract, direct and through the prefix ----------------------
contract() { # one line per cell: key status samples markers inputs bytes
  cells_py "$1" '"\n".join(" ".join([c["key"], c["status"], str(c["samples"]), ",".join(sorted(c["markers"])),
    c["input_sha256"], f(c, "bytes.sha256")]) for c in cells)'
}
contract "$TMP/ok-direct.json" >"$TMP/contract-direct"
check "direct: every cell ok with 1 warm-up and 3 timed samples" \
  test "$(cells_py "$TMP/ok-direct.json" '" ".join(c["status"] + str(c["samples"]["timed"]) + str(c["samples"]["warmup"]) for c in cells)')" = "ok31 ok31 ok31"
for e in sock auto; do
  contract "$TMP/ok-$e.json" >"$TMP/contract-$e"
  check "$e: statuses, sample counts, markers, input and bytes hashes equal the direct run's" \
    cmp -s "$TMP/contract-direct" "$TMP/contract-$e"
  check "$e: every cell records its channel (worker.channel: unix socket)" \
    test "$(cells_py "$TMP/ok-$e.json" 'all(w(c, "worker.channel").startswith("unix socket (pid ") for c in cells)')" = True
  J=$TMP/ok-$e.json
  pf() { cells_py "$J" "[f(c, '$1') for c in cells if c['model'] == 'probe'][0]"; }
  check "$e: the worker's fd 3 is the socket (the prefix closed the pipe)" test "$(pf probe.fd3)" = socket
  check "$e: the worker ran in another mount namespace" test "$(pf probe.mnt_ns)" != "$(readlink /proc/self/ns/mnt)"
  check "$e: it saw its own cell's directory and no other ($(pf probe.siblings))" \
    test "$(pf probe.siblings)" = "$(pf probe.cell_dir)"
  check "$e: the workload does not see the token" test "$(pf probe.token_visible)" = False
  check "$e: a second connection is refused (the socket is gone: ENOENT)" test "$(pf probe.second_connection)" = ENOENT
  check "$e: the cell's env file was there" test "$(pf probe.env_file)" = True
done
check "direct: no worker.channel recorded (fd 3, as before)" \
  test "$(cells_py "$TMP/ok-direct.json" 'any(w(c, "worker.channel") for c in cells)')" = False

# ---- socket-only attacks -------------------------------------------------------
expect() { # FILE KEY STATUS MAX_WALL_S DETAIL_SUBSTRING
  local got wall
  got=$(cell "$1" "$2" status)
  wall=$(cell "$1" "$2" wall_s)
  if [ "$got" = "$3" ]; then ok "$2 ends $3"; else not_ok "$2 ends $3 (got $got: $(cell "$1" "$2" detail | head -c 300))"; fi
  if python3 -c "import sys; sys.exit(0 if float('$wall') <= $4 else 1)"; then ok "$2 took ${wall}s <= $4 s"
  else not_ok "$2 took ${wall}s, over $4 s"; fi
  [ -z "$5" ] || check "$2 says: $5" grep -qF "$5" <<<"$(cell "$1" "$2" detail)"
}
expect "$TMP/nobind.json" mlp/predict/b4/numpy error 15 "never connected to the report socket"
check "nobind: the cell log says what to bind" grep -q "bind-mount the cell's directory {cell}" "$TMP/run-nobind/logs/"*.log
expect "$TMP/impostor.json" mlp/predict/b4/numpy error 15 "did not present this cell's token"
check "impostor: its forged done stored no samples" \
  test "$(cell "$TMP/impostor.json" mlp/predict/b4/numpy samples)" = "{'timed': 0, 'warmup': 0}"
expect "$TMP/escape.json" hang/predict/b1/numpy timeout 10 "timeout of 4 s"
escaped=$(ls "$TMP/pids" | sed -n 's/^hang_step\.//p')
check "escape: the worker had left the cell's cgroup" test -n "$escaped"
alive=""
for p in $escaped; do
  for _ in $(seq 1 50); do { [ -e "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; } || break; sleep 0.1; done
  [ -e "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && { alive="$alive $p"; kill -KILL "$p"; }
done
check "escape: the worker out of benchgen's reach ended itself when the parent closed the socket" test -z "$alive"

# ---- the hostile workloads on the socket end as on fd 3 -------------------------
J=$TMP/hostile.json
expect "$J" fdjunk/predict/b1/numpy error 6 "not a JSON object"
expect "$J" closedhang/predict/b1/numpy timeout 10 "timeout of 6 s"
expect "$J" setsid/predict/b1/numpy ok 6 ""
expect "$J" newsession/predict/b1/numpy ok 6 ""
expect "$J" forgeddone/predict/b1/numpy crash 6 "SIGSEGV"
expect "$J" forgedsample/predict/b1/numpy error 6 "invalid step duration (-5 ns)"
expect "$J" flood/predict/b1/numpy ok 60 ""
expect "$J" bigfact/predict/b1/numpy error 30 "more than 1048576 bytes"
check "forged done: no samples stored" test "$(cell "$J" forgeddone/predict/b1/numpy samples)" = "{'timed': 0, 'warmup': 0}"
check "flood: the log is capped at log_limit (8 MiB) plus one note" \
  test "$(stat -c %s "$TMP/run-hostile/logs/flood_predict_b1_numpy.log")" -le $((8 * 1048576 + 300))
check "flood: the log keeps the tail" grep -q "THE-LAST-LINE" "$TMP/run-hostile/logs/flood_predict_b1_numpy.log"
dropped=$(cell "$J" flood/predict/b1/numpy facts | python3 -c 'import ast,sys; print(ast.literal_eval(sys.stdin.read()).get("log.dropped_bytes", 0))')
check "flood: dropped bytes recorded ($dropped)" test "$dropped" -gt 190000000
for k in mlp/fit/b8/numpy mlp/predict/b16/numpy; do
  check "bystander $k ok with 3 timed + 1 warm-up samples" test \
    "$(cell "$J" "$k" status) $(cell "$J" "$k" samples)" = "ok {'timed': 3, 'warmup': 1}"
done
check "every hostile cell reported over the socket (or was cut off before it could)" \
  test "$(cells_py "$J" 'all(w(c, "worker.channel").startswith("unix socket") for c in cells if c["model"] not in ("closedhang",))')" = True
. "$ROOT/tests/hostile/survivors.sh"
check "no process of any cell survived ($(ls "$TMP/pids" | wc -l) recorded)" test -z "$(survivors "$TMP/pids")"
check "no cell directory (socket, env file, caches) left behind" test -z "$(ls "$TMPDIR")"
echo "# container-channel runs took ${took} s"
finish
