#!/usr/bin/env bash
# run.sh BUILD_DIR [--unit] - runs every unit test binary and integration
# script and prints one closing "N passed, N failed" line. Exit status 1 when
# anything failed. Builds the Python environments the tests use when they are
# missing (on a fresh machine that downloads several GB from PyPI; cached
# after). Unit tests run side by side (JOBS, default one per core); the
# integration scripts that may share the machine run TEST_JOBS at a time
# (below). With --unit (`make check`): the unit tests only, no environment,
# no network.
set -u
BUILD=${1:-build}
UNIT_ONLY=0
[ "${2:-}" = "--unit" ] && UNIT_ONLY=1
export BENCHGEN=${BENCHGEN_BIN:-$(pwd)/benchgen}
case "$BENCHGEN" in /*) ;; *) BENCHGEN=$(pwd)/$BENCHGEN ;; esac
export BENCHGEN_HOME=$(pwd)
passed=0
failed=0
failures=()

if [ "$UNIT_ONLY" -eq 0 ]; then
echo "== environments"
"$BENCHGEN" env sync base torch keras3 keras2 || { echo "cannot build the test environments"; exit 1; }
fi

echo "== unit tests"
# Side by side (each binary writes its output to a file), reported in order.
UNIT_OUT=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-unit.XXXXXX")
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
unit_bins=()
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.d) continue ;; esac
  unit_bins+=("$t")
done
running=0
for t in "${unit_bins[@]}"; do
  ( "$t" >"$UNIT_OUT/$(basename "$t").out" 2>&1; echo $? >"$UNIT_OUT/$(basename "$t").rc" ) &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait
for t in "${unit_bins[@]}"; do
  out=$(cat "$UNIT_OUT/$(basename "$t").out")
  rc=$(cat "$UNIT_OUT/$(basename "$t").rc")
  echo "$out" | grep -E '^\[  (FAILED|PASSED|SKIPPED) +\]|^\[==========\]' | sed "s|^|$(basename "$t"): |"
  p=$(echo "$out" | grep -c '^\[       OK \]')
  f=$(echo "$out" | grep -c '^\[  FAILED  \] [a-z_]')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$out" | tail -20; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || { failures+=("$(basename "$t")"); echo "$out" | grep -B2 -A8 'FAILED\|error'; }
done
rm -rf "$UNIT_OUT"

if [ "$UNIT_ONLY" -eq 1 ]; then
  [ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi

count_checks() { # OUTPUT RC NAME: adds its "ok - " / "not ok - " lines to the totals
  local p f
  p=$(echo "$1" | grep -c '^ok - ')
  f=$(echo "$1" | grep -c '^not ok - ')
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$f" -eq 0 ] || failures+=("$3")
}
if [ -n "${FUZZ_PREFIX:-}" ]; then
  # make test: every libFuzzer target replays its committed corpus (a known
  # crash that comes back fails here), then fuzzes FUZZ_CI_SECONDS from it,
  # alone (one core; tests/fuzz/run.sh). make asan leaves FUZZ_PREFIX unset.
  echo "== fuzz (short)"
  t_fuzz=$SECONDS
  fout=$(FUZZ_SECONDS=${FUZZ_CI_SECONDS:-4} FUZZ_CI=1 tests/fuzz/run.sh "$FUZZ_PREFIX" 2>&1)
  frc=$?
  echo "$fout"
  count_checks "$fout" "$frc" tests/fuzz
  echo "   (fuzz: $((SECONDS - t_fuzz)) s)"
fi

echo "== integration tests"
# Scripts that time nothing, judge no contention and share no state (their
# own temporary directories, ports and profiles) run side by side, TEST_JOBS
# at a time (default 2; 1 runs everything one by one), longest first, while
# nothing else runs. Every other script runs alone after them: those that
# measure or bound times (hostile_worker, telemetry, compare_calibration,
# rundir, pipeline, local_slots, fidelity), use every core (workloads, method) or run
# README's walkthrough (first_hour); a new script runs alone until it is
# added here. Environments the side-by-side ones build are their own
# (BENCHGEN_CACHE under TMP, py3.X, base+numpy-2.2.6).
# Each side-by-side script with its declared cost: seconds on the idle 2-CPU
# CI machine (make test's own per-script times). They start in order of
# cost, longest first (LPT), so that the lanes end close together and no
# long script starts last; a script not listed runs alone.
SHARED="test_kit:170 test_bisect:115 test_slurm:96 test_report:65 test_device_guard:60 test_params:54 test_flops:43 test_report_shapes:37 test_report_html:31
  test_compare:30 test_compare_headlines:1 test_compare_profile:2 test_container_podman:25 test_envs_uv:16 test_forged_results:14 test_verify_hostile:13 test_pythons:12 test_bundle_repro:12 test_report_out:9
  test_readers_ro:8 test_outputs_safe:8 test_big_text:7 test_workload_errors:8 test_sam_dtype:6 test_report_json:6 test_with:5 test_methods_report:4
  test_progress:4 test_kill_scratch:6 test_failures_upfront:2 test_audit:3 test_cli:3 test_env_add_needs:3
  test_envs_size:3 test_envs_variant:3 test_readme_workload:3 test_golden:6 test_layers:1 test_voice:15"
TEST_JOBS=${TEST_JOBS:-2}
INT_OUT=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-integration.XXXXXX")
times=()
shared=()
alone=()
for n in $(printf '%s\n' $SHARED | sort -t: -k2,2nr -k1,1 | cut -d: -f1); do
  [ -x "tests/integration/$n.sh" ] && shared+=("tests/integration/$n.sh")
done
for s in tests/integration/test_*.sh; do
  [ -x "$s" ] || continue
  case " ${shared[*]} " in *" $s "*) ;; *) alone+=("$s") ;; esac
done
run_one() { # SCRIPT: its output, exit status and seconds into INT_OUT
  local n t0=$SECONDS
  n=$(basename "$1" .sh)
  "$1" >"$INT_OUT/$n.out" 2>&1
  echo $? >"$INT_OUT/$n.rc.tmp"
  echo $((SECONDS - t0)) >"$INT_OUT/$n.s"
  mv "$INT_OUT/$n.rc.tmp" "$INT_OUT/$n.rc"
}
report_one() { # SCRIPT: prints its output and time, counts its checks
  local n out rc sec
  n=$(basename "$1" .sh)
  out=$(cat "$INT_OUT/$n.out")
  rc=$(cat "$INT_OUT/$n.rc")
  sec=$(cat "$INT_OUT/$n.s")
  echo "-- $1"
  echo "$out"
  echo "   ($sec s)"
  times+=("$sec $1")
  count_checks "$out" "$rc" "$1"
}
running=()
reap() { # reports the side-by-side scripts that have finished
  local keep=() s
  for s in "${running[@]}"; do
    if [ -f "$INT_OUT/$(basename "$s" .sh).rc" ]; then report_one "$s"; else keep+=("$s"); fi
  done
  running=("${keep[@]}")
}
echo "   ${#shared[@]} script(s) side by side, $TEST_JOBS at a time, then ${#alone[@]} alone"
t_int=$SECONDS
for s in "${shared[@]}"; do
  while [ ${#running[@]} -ge "$TEST_JOBS" ]; do wait -n; reap; done
  run_one "$s" &
  running+=("$s")
done
wait
reap
for s in "${alone[@]}"; do
  run_one "$s"
  report_one "$s"
done
rm -rf "$INT_OUT"
echo "   (integration tests: $((SECONDS - t_int)) s)"

echo "== slowest integration tests (seconds)"
printf '%s\n' "${times[@]}" | sort -rn | head -8 | sed 's/^/   /'
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
