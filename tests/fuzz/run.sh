#!/usr/bin/env bash
# run.sh PREFIX [TARGET...] - runs the libFuzzer targets PREFIX_<target>
# (built by `make fuzz-bins` as build/fuzz/fuzz/fuzz_<target>), one at a
# time, each for FUZZ_SECONDS, and prints per target its execs/s, coverage
# (cov: edges, ft: features), corpus size and any crash with the command that
# reproduces it. Exit status 1 when a target crashed (or its corpus did).
#
# FUZZ_CI=1 (make fuzz-ci, make test): first every committed input of the
# target is replayed (a regression on a known input fails here), then it
# fuzzes from them into a temporary directory, so nothing in the tree
# changes. Otherwise (make fuzz): new inputs go to build/fuzz/corpus/<target>
# (kept between runs, not committed; minimise the interesting ones into
# tests/fuzz/corpus/ with -merge=1). Crashes go to build/fuzz/crashes/<target>/
# either way.
set -u
PREFIX=${1:?usage: run.sh PREFIX [TARGET...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-180}
CI=${FUZZ_CI:-0}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(spec channel cellfile reference text rundb runsql bundle)
OUT=$(dirname "$(dirname "$PREFIX")") # build/fuzz for build/fuzz/fuzz/fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()

dict_of() {
  case $1 in
    spec) echo yaml ;; channel) echo channel ;; cellfile) echo json ;; reference) echo csv ;;
    text) echo text ;; rundb) echo sqlite ;; runsql) echo runsql ;; bundle) echo tar ;;
  esac
}
max_len_of() {
  case $1 in rundb | bundle) echo 131072 ;; spec | reference | cellfile) echo 16384 ;; *) echo 4096 ;; esac
}

for t in "${TARGETS[@]}"; do
  bin=${PREFIX}_$t
  seeds=$HERE/corpus/$t
  [ -x "$bin" ] || { echo "fuzz $t: $bin is not built (make fuzz-bins)"; failed+=("$t"); continue; }
  echo "== fuzz $t (${SECONDS_EACH}s)"
  log=$(mktemp "${TMPDIR:-/tmp}/benchgen-fuzz-$t.XXXXXX")
  if [ "$CI" = 1 ]; then
    # Replay: every committed input once, as a regression test.
    if ! "$bin" -runs=0 "$seeds" >"$log" 2>&1; then
      echo "not ok - fuzz $t: a committed input fails"; tail -40 "$log"; failed+=("$t"); rm -f "$log"; continue
    fi
    echo "   replayed $(ls "$seeds" | wc -l) committed input(s)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-fuzz-corpus.XXXXXX")
  else
    work=$OUT/corpus/$t
  fi
  crashes=$OUT/crashes/$t
  mkdir -p "$work" "$crashes"
  "$bin" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2560 -max_len="$(max_len_of "$t")" \
    -dict="$HERE/dict/$(dict_of "$t").dict" -artifact_prefix="$crashes/" -print_final_stats=1 \
    "$work" "$seeds" >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  eps=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
  ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
  corp=$(echo "$last" | grep -oE 'corp: [0-9]+' | grep -oE '[0-9]+')
  printf '   %s: %s runs, %s exec/s, cov: %s ft: %s corpus: %s\n' "$t" "${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
  if [ "$rc" -ne 0 ]; then
    art=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/Test unit written to //')
    echo "not ok - fuzz $t: exit $rc"
    grep -E 'ERROR: |runtime error|SUMMARY|==[0-9]+==|#[0-9]+ 0x' "$log" | head -30
    [ -n "$art" ] && echo "   reproduce: $bin $art"
    failed+=("$t")
  else
    echo "ok - fuzz $t"
  fi
  [ "$CI" = 1 ] && rm -rf "$work"
  rm -f "$log"
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: failed: ${failed[*]}"; exit 1; }
