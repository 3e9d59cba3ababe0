#!/usr/bin/env bash
# Hostile tests of run directories (issue 8 item 5): a second writer on a
# live run (--resume or --out) is refused with exit 2 naming the holder's
# pid; two runs racing for one --out leave the winner intact; a SIGKILL at
# any moment of the creation leaves a directory that --resume continues or a
# new --out replaces; benchgen never deletes a file it did not create.
# Every case checks exit status, a wall-time bound, that no process of the
# test survives (by PID), PRAGMA integrity_check, and that the other cells
# are untouched. Needs the `base` environment (numpy); cells sleep 0.1 s/step.
set -u
. "$(dirname "$0")/lib.sh"

SPEC=tests/specs/rundir.yaml
ONE="--only batch=1"

# db_check DIR: "ok" from PRAGMA integrity_check, then "key status attempts" per cell.
db_check() {
  python3 - "$1/run.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("PRAGMA integrity_check").fetchone()[0])
for k, s, a in db.execute("SELECT key, status, attempts FROM cells ORDER BY id"):
    print(k, s, a)
PY
}
# all_ok DIR N: integrity ok and N cells, each ok exactly once (no cell ran twice).
all_ok() {
  local out; out=$(db_check "$1" 2>&1) || return 1
  [ "$(head -1 <<<"$out")" = ok ] || return 1
  [ "$(tail -n +2 <<<"$out" | wc -l)" -eq "$2" ] || return 1
  [ -z "$(tail -n +2 <<<"$out" | awk '$2 != "ok" || $3 != 1')" ]
}
# gone PID...: none of them is alive.
gone() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
# no_survivor: no process at all whose command line mentions this test's directory.
no_survivor() { [ -z "$(pgrep -f -- "$TMP/" || true)" ]; }
# wait_for FILE PATTERN [SECONDS]: until FILE contains PATTERN.
wait_for() {
  for _ in $(seq $((${3:-30} * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# timed SECONDS CMD...: runs CMD with a wall-time bound; sets rc and secs.
timed() {
  local limit=$1 t0; shift
  t0=$(date +%s.%N)
  timeout -k 2 "$limit" "$@"
  rc=$?
  secs=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$(date +%s.%N)")
}

# wait_bounded SECONDS PID: waits for a background job with a wall-time bound
# (killing it when over); sets rc and secs like timed.
wait_bounded() {
  local limit=$1 pid=$2 t0; t0=$(date +%s.%N)
  for _ in $(seq $((limit * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  wait "$pid"
  rc=$?
  secs=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$(date +%s.%N)")
}

# ---- 1. a second `run --resume` on a live run ---------------------------------
D=$TMP/live
"$BENCHGEN" run "$SPEC" --out "$D" >"$TMP/live.out" 2>&1 &
P=$!
wait_for "$TMP/live.out" "nap/predict/b2/numpy: running"
timed 20 "$BENCHGEN" run --resume "$D" >"$TMP/r1.out" 2>"$TMP/r1.err"
check "resume of a live run refused with exit 2" test "$rc" -eq 2
check "refusal names the holder's pid ($P)" grep -q "in use by benchgen pid $P on host" "$TMP/r1.err"
check "refusal is quick ($secs s < 10 s)" python3 -c "import sys; sys.exit(not float('$secs') < 10)"
check "the refused resume ran nothing" test ! -s "$TMP/r1.out"
wait_bounded 60 $P
check "the live run still exits 0" test "$rc" -eq 0
check "every cell ran exactly once; integrity ok" all_ok "$D" 4
check "no process left (pid $P)" gone $P

# ---- 2. a second `run --resume` on a resuming run -----------------------------
D=$TMP/resumed
"$BENCHGEN" run "$SPEC" --out "$D" >"$TMP/k.out" 2>&1 &
P=$!
wait_for "$TMP/k.out" "nap/predict/b2/numpy: running"
kill -KILL $P
wait $P 2>/dev/null
"$BENCHGEN" run --resume "$D" >"$TMP/res.out" 2>&1 &
R1=$!
wait_for "$TMP/res.out" "running"
timed 20 "$BENCHGEN" run --resume "$D" >"$TMP/r2.out" 2>"$TMP/r2.err"
check "second resume refused with exit 2" test "$rc" -eq 2
check "refusal names the resuming pid ($R1)" grep -q "in use by benchgen pid $R1 on host" "$TMP/r2.err"
check "refusal is quick ($secs s < 10 s)" python3 -c "import sys; sys.exit(not float('$secs') < 10)"
wait_bounded 60 $R1
check "the first resume exits 0" test "$rc" -eq 0
check "no cell ran twice; integrity ok" all_ok "$D" 4
check "no process left (pids $P $R1)" gone $P $R1

# ---- 3. two runs racing for one --out ------------------------------------------
for round in 1 2; do
  D=$TMP/race$round
  "$BENCHGEN" run "$SPEC" $ONE --out "$D" >"$TMP/a$round.out" 2>&1 &
  A=$!
  [ "$round" -eq 2 ] && sleep 0.3 # the second one sees the first one's temporary directory
  "$BENCHGEN" run "$SPEC" $ONE --out "$D" >"$TMP/b$round.out" 2>&1 &
  B=$!
  wait_bounded 60 $A; ra=$rc
  wait_bounded 60 $B; rb=$rc
  if [ "$ra" -eq 0 ]; then W=$A; L=$B; rl=$rb; lo=$TMP/b$round.out; else W=$B; L=$A; rl=$ra; lo=$TMP/a$round.out; fi
  check "race $round: one winner exits 0 (got $ra and $rb)" test "$ra" -eq 0 -o "$rb" -eq 0
  check "race $round: the loser is refused with exit 2" test "$rl" -eq 2
  if grep -q "pid $W" "$lo"; then ok "race $round: the refusal names the winner (pid $W)"; else
    not_ok "race $round: the refusal names the winner (pid $W): $(tail -1 "$lo")"; fi
  check "race $round: the winner's run.db intact (integrity ok, its cell ok once)" all_ok "$D" 1
  check "race $round: the winner's run is its own" grep -q "pid=$W " "$D/run.lock"
  check "race $round: no temporary directory left" test -z "$(ls -A "$TMP" | grep "^\.race$round\.creating\." || true)"
  check "race $round: no process left" gone $A $B
done

# The loser passed every early check and loses only at the final rename: it
# stops (SIGSTOP) just before creating its temporary directory, the winner
# runs, the loser continues while the winner's cell runs.
D=$TMP/race4
BENCHGEN_FAULT=stop:checked "$BENCHGEN" run "$SPEC" $ONE --out "$D" >"$TMP/l4.out" 2>&1 &
L=$!
for _ in $(seq 100); do [ "$(ps -o stat= -p $L 2>/dev/null | cut -c1)" = T ] && break; sleep 0.1; done
"$BENCHGEN" run "$SPEC" $ONE --out "$D" >"$TMP/w4.out" 2>&1 &
W=$!
wait_for "$TMP/w4.out" "nap/predict/b1/numpy: running"
kill -CONT $L
wait_bounded 30 $L; rl=$rc
wait_bounded 60 $W; rw=$rc
check "rename race: the loser is refused with exit 2 (got $rl)" test "$rl" -eq 2
check "rename race: the refusal names the winner (pid $W)" grep -q "created meanwhile by benchgen pid $W" "$TMP/l4.out"
check "rename race: the winner exits 0 (got $rw)" test "$rw" -eq 0
check "rename race: the winner's run.db intact" all_ok "$D" 1
check "rename race: the loser's temporary directory is gone" \
  test -z "$(ls -A "$TMP" | grep "^\.race4\.creating\." || true)"
check "rename race: no process left" gone $L $W

# ---- 4. SIGKILL at each point of the creation -----------------------------------
for stage in checked mkdir locked plan-written committed published; do
  D=$TMP/kill-$stage
  timed 30 env BENCHGEN_FAULT=$stage "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>&1
  check "SIGKILL at $stage: the run died by SIGKILL" test "$rc" -eq 137
  if [ "$stage" = published ]; then
    check "SIGKILL at $stage: the directory holds the plan" test "$(db_check "$D" | head -2 | tr '\n' ' ')" = "ok nap/predict/b1/numpy None 0 "
    timed 60 "$BENCHGEN" run --resume "$D" >/dev/null 2>"$TMP/kr.err"
    check "SIGKILL at $stage: --resume continues it (exit 0)" test "$rc" -eq 0
  else
    check "SIGKILL at $stage: no half-made run directory" test ! -e "$D"
    timed 60 "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>"$TMP/kn.err"
    check "SIGKILL at $stage: a new --out replaces it (exit 0)" test "$rc" -eq 0
    check "SIGKILL at $stage: the dead creation's temporary directory is gone" \
      test -z "$(ls -A "$TMP" | grep "^\.kill-$stage\.creating\." || true)"
  fi
  check "SIGKILL at $stage: the run completes, integrity ok" all_ok "$D" 1
done

# ---- 5. SIGKILL at arbitrary moments -------------------------------------------
for delay in 0.02 0.1 0.25 0.5; do
  D=$TMP/sweep-$delay
  "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>&1 &
  P=$!
  sleep "$delay"
  kill -KILL $P 2>/dev/null
  wait $P 2>/dev/null
  if [ -e "$D" ]; then
    timed 60 "$BENCHGEN" run --resume "$D" >/dev/null 2>"$TMP/sw.err"; how="--resume"
  else
    timed 60 "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>"$TMP/sw.err"; how="a new --out"
  fi
  check "SIGKILL after ${delay}s: $how works (exit $rc)" test "$rc" -eq 0
  check "SIGKILL after ${delay}s: complete run, integrity ok" all_ok "$D" 1
  check "SIGKILL after ${delay}s: nothing left beside it" \
    test -z "$(ls -A "$TMP" | grep "^\.sweep-$delay\.creating\." || true)"
done

# ---- 6. never delete what benchgen did not create -------------------------------
D=$TMP/mine
mkdir -p "$D"
echo "precious" >"$D/notes.txt"
timed 20 "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>"$TMP/m.err"
check "a non-empty directory is refused (exit 2)" test "$rc" -eq 2
check "and says so" grep -q "exists and is not empty" "$TMP/m.err"
check "its file is untouched" test "$(cat "$D/notes.txt")" = precious
# A dead creation's temporary directory that also holds a stranger's file.
D=$TMP/odd
T=$TMP/.odd.creating.999999
mkdir -p "$T/logs"
: >"$T/run.lock"
echo "precious" >"$T/notes.txt"
timed 60 "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>"$TMP/o.err"
check "a leftover with foreign files does not block the run (exit 0)" test "$rc" -eq 0
check "the foreign file in it survives" test "$(cat "$T/notes.txt")" = precious
check "and benchgen says it left it alone" grep -q "left alone" "$TMP/o.err"
# An existing empty directory becomes the run.
D=$TMP/empty
mkdir -p "$D"
timed 60 "$BENCHGEN" run "$SPEC" $ONE --out "$D" >/dev/null 2>&1
check "an existing empty directory is accepted (exit 0)" test "$rc" -eq 0
check "and holds the run" all_ok "$D" 1

check "no process of this test survives" no_survivor
finish
