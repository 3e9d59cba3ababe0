#!/usr/bin/env bash
# End-to-end: real cells through the embedded interpreter plus one fault
# workload per way a cell can end; exit statuses; durability on Ctrl-C and
# SIGKILL; --resume; spec errors. Needs the `base` environment (numpy).
set -u
. "$(dirname "$0")/lib.sh"

SPEC=tests/specs/pipeline.yaml
RUN=$TMP/run1
mkdir -p "$TMP/scratch"

TMPDIR=$TMP/scratch "$BENCHGEN" run "$SPEC" --out "$RUN" >"$TMP/run1.out" 2>"$TMP/run1.err"
rc=$?
check "run with failing cells exits 1" test "$rc" -eq 1
"$BENCHGEN" show "$RUN" --json >"$TMP/run1.json"
check "show --json exits 0" test $? -eq 0
J=$TMP/run1.json
check "format is benchgen-run/1" test "$(jget "$J" 'd["format"]')" = "benchgen-run/1"
check "nine cells recorded" test "$(jget "$J" 'len(d["cells"])')" = 9

expect_status() { # KEY STATUS
  local got
  got=$(cell "$J" "$1" status)
  if [ "$got" = "$2" ]; then ok "$1 ends $2"; else not_ok "$1 ends $2 (got $got)"; fi
}
expect_status mlp/fit/b8/numpy ok
expect_status raises/predict/b1/numpy error
expect_status segfault/predict/b1/numpy crash
expect_status sleeper/predict/b1/numpy timeout
expect_status hog/predict/b1/numpy oom
expect_status silent/predict/b1/numpy error
expect_status declines/predict/b1/numpy unsupported
expect_status echo/predict/b2/numpy ok
expect_status mlp/predict/b16/numpy ok

check "traceback kept for the raising workload" \
  grep -q "deliberate failure" <<<"$(cell "$J" raises/predict/b1/numpy detail)"
check "crash names the signal" grep -q "SIGSEGV" <<<"$(cell "$J" segfault/predict/b1/numpy detail)"
check "silent exit is explained" grep -q "without reporting" <<<"$(cell "$J" silent/predict/b1/numpy detail)"
check "ok cell has 5 timed and 1 warm-up samples" \
  test "$(jget "$J" '[c["samples"] for c in d["cells"] if c["key"]=="mlp/fit/b8/numpy"][0]')" = "{'timed': 5, 'warmup': 1}"
check "ok cell has statistics" \
  test "$(jget "$J" '[c["stats"]["median_ms"] > 0 for c in d["cells"] if c["key"]=="mlp/fit/b8/numpy"][0]')" = True
check "input hash stored" test "$(cell "$J" mlp/fit/b8/numpy input_sha256 | wc -c)" -eq 65
check "numpy version captured per cell" \
  test "$(jget "$J" '"pkg.numpy" in [c for c in d["cells"] if c["key"]=="mlp/fit/b8/numpy"][0]["environment"]')" = True
check "run environment captured" test "$(jget "$J" '"cpu.model" in d["run"]["environment"]')" = True
check "workload sees C inputs (shape, range, const)" test \
  "$(jget "$J" '[ (c["facts"]["ids.shape"], c["facts"]["ids.max_below_1000"], c["facts"]["mask.all_ones"], c["facts"]["img.dtype"]) for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]')" \
  = "('2x16', 'True', 'True', 'float32')"
scratch=$(jget "$J" '[c["facts"]["tmpdir"] for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]')
case "$scratch" in "$TMP/scratch/benchgen-cell-"*) ok "cell ran with its own scratch TMPDIR" ;;
  *) not_ok "cell ran with its own scratch TMPDIR (got $scratch)" ;; esac
check "compile caches point into the cell's scratch" test \
  "$(jget "$J" '[c["facts"]["inductor_cache"] for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]')" = "${scratch%/tmp}/inductor"
check "scratch directories removed after every cell (even failed ones)" test -z "$(ls -A "$TMP/scratch")"
check "workload markers recorded" \
  test "$(jget "$J" '"echo_setup" in [c for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]["markers"]')" = True
check "traceback in the cell log" grep -q "deliberate failure" "$RUN/logs/raises_predict_b1_numpy.log"
check "Python stack of a crash in the cell log" grep -q "segfault.py" "$RUN/logs/segfault_predict_b1_numpy.log"

# Same spec, same seed: byte-identical inputs in a second run.
RUN2=$TMP/run2
"$BENCHGEN" run "$SPEC" --out "$RUN2" --only model=echo,model=mlp >/dev/null 2>&1
"$BENCHGEN" show "$RUN2" --json >"$TMP/run2.json"
check "inputs identical across runs" test "$(cell "$J" echo/predict/b2/numpy input_sha256)" = \
  "$(cell "$TMP/run2.json" echo/predict/b2/numpy input_sha256)"
check "workload saw identical bytes across runs" test \
  "$(jget "$J" '[c["facts"]["bytes.sha256"] for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]')" = \
  "$(jget "$TMP/run2.json" '[c["facts"]["bytes.sha256"] for c in d["cells"] if c["key"]=="echo/predict/b2/numpy"][0]')"
check "--only ran 3 cells" test "$(jget "$TMP/run2.json" 'sum(1 for c in d["cells"])')" = 3

# An existing run directory is never overwritten.
"$BENCHGEN" run "$SPEC" --out "$RUN" --only model=mlp >/dev/null 2>"$TMP/exists.err"
rc=$?
check "refuses to overwrite a run (exit 2)" test "$rc" -eq 2
check "stored run intact after refusal" test "$("$BENCHGEN" show "$RUN" --json | jget /dev/stdin 'len(d["cells"])')" = 9

# Ctrl-C: the cell in flight is recorded as interrupted; --resume finishes.
RUN3=$TMP/run3
"$BENCHGEN" run "$SPEC" --out "$RUN3" --only model=mlp,model=sleeper >"$TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "sleeper.*running" "$TMP/int.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "interrupted run exits 130" test "$rc" -eq 130
"$BENCHGEN" show "$RUN3" --json >"$TMP/run3.json"
check "cell in flight recorded as interrupted" test "$(cell "$TMP/run3.json" sleeper/predict/b1/numpy status)" = interrupted
check "cells before it kept" test "$(cell "$TMP/run3.json" mlp/fit/b8/numpy status)" = ok
check "cells after it pending" test "$(cell "$TMP/run3.json" mlp/predict/b16/numpy status)" = None
"$BENCHGEN" run --resume "$RUN3" >"$TMP/resume.out" 2>&1
"$BENCHGEN" show "$RUN3" --json >"$TMP/run3b.json"
check "--resume reran the interrupted cell" test "$(cell "$TMP/run3b.json" sleeper/predict/b1/numpy status)" = timeout
check "--resume ran the pending cell" test "$(cell "$TMP/run3b.json" mlp/predict/b16/numpy status)" = ok
check "--resume kept finished cells' samples" test \
  "$(jget "$TMP/run3.json" '[c["stats"]["mean_ms"] for c in d["cells"] if c["key"]=="mlp/fit/b8/numpy"][0]')" = \
  "$(jget "$TMP/run3b.json" '[c["stats"]["mean_ms"] for c in d["cells"] if c["key"]=="mlp/fit/b8/numpy"][0]')"

# SIGKILL of the parent loses at most the cell in flight, and no worker survives it.
RUN4=$TMP/run4
"$BENCHGEN" run "$SPEC" --out "$RUN4" --only model=mlp,model=sleeper >"$TMP/kill.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "sleeper.*running" "$TMP/kill.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.5
check "no orphaned worker after SIGKILL" test -z "$(pgrep -f -- "--out $RUN4" || true)"
"$BENCHGEN" show "$RUN4" --json >"$TMP/run4.json"
check "after SIGKILL finished cell kept" test "$(cell "$TMP/run4.json" mlp/fit/b8/numpy status)" = ok
check "after SIGKILL in-flight cell has no status" test "$(cell "$TMP/run4.json" sleeper/predict/b1/numpy status)" = None

# Spec errors: exit 2, file:line:col, nothing created.
cat >"$TMP/bad.yaml" <<'YAML'
name: bad
backends: [numpy]
rows:
  - {model: mlp, task: fit, batch: 0}
YAML
"$BENCHGEN" run "$TMP/bad.yaml" --out "$TMP/badrun" >/dev/null 2>"$TMP/bad.err"
rc=$?
check "bad spec exits 2" test "$rc" -eq 2
check "bad spec message has file:line:col" grep -q "bad.yaml:4:[0-9]*:" "$TMP/bad.err"
check "bad spec creates no run" test ! -e "$TMP/badrun"
"$BENCHGEN" run "$SPEC" --dry-run >"$TMP/dry.out" 2>&1
check "dry run prints the plan and runs nothing" grep -q "plan: 9 cell" "$TMP/dry.out"
"$BENCHGEN" show "$TMP/nonexistent" >/dev/null 2>&1
check "show of a missing run exits 2" test $? -eq 2
"$BENCHGEN" frobnicate >/dev/null 2>&1
check "unknown command exits 2" test $? -eq 2
finish
