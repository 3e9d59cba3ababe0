#!/usr/bin/env bash
# test_layers.sh - scripts/check-layers.py: the source tree passes; fixture
# trees with an upward include, a cycle, an unranked folder, an include that
# names no header, a chart including a higher layer, and a library file that
# prints each fail, naming the file and line.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
FIX=tests/fixtures/layers
CHECK=scripts/check-layers.py

out=$(python3 $CHECK 2>&1); rc=$?
check "the source tree: every include points down, no cycle" test $rc -eq 0
[ $rc -eq 0 ] || echo "$out"

out=$(python3 $CHECK $FIX/clean 2>&1); rc=$?
check "a clean fixture tree passes" test $rc -eq 0

out=$(python3 $CHECK $FIX/up 2>&1); rc=$?
check "an upward include fails" test $rc -eq 1
check "... naming file, line and both layers" grep -q \
  'gen/base/util.c:3: #include "store/store.h" points up the layer chain: base (rank 0) may not include store (rank 4)' <<<"$out"

out=$(python3 $CHECK $FIX/cycle 2>&1); rc=$?
check "a cycle within one folder fails" test $rc -eq 1
check "... naming the cycle and the includes that make it" grep -q \
  'include cycle gen/report/figures -> gen/report/rctx -> gen/report/figures: gen/report/figures.h:1 includes gen/report/rctx.h; gen/report/rctx.c:2 includes gen/report/figures.h' <<<"$out"

out=$(python3 $CHECK $FIX/misc 2>&1); rc=$?
check "unranked folder, unresolved include, chart over base: fails" test $rc -eq 1
check "... an unranked folder is named" grep -q "gen/shiny/new.c: folder 'shiny' has no layer rank" <<<"$out"
check "... an include naming no header is named" grep -q 'gen/base/util.c:1: #include "util.h" names no header' <<<"$out"
check "... charts may include only base" grep -q 'charts/chart.c:1: #include "plan/spec.h" points up the layer chain' <<<"$out"
check "... three problems counted" grep -q 'check-layers: 3 problem(s)' <<<"$out"

out=$(python3 $CHECK $FIX/prints 2>&1); rc=$?
check "a library file that prints fails" test $rc -eq 1
check "... printf is named with its line" grep -q 'gen/report/speak.c:9: printf(... writes to a standard stream below gen/cli' <<<"$out"
check "... so is fputs to stderr" grep -q 'gen/report/speak.c:15: fputs(buf, stderr)... writes to a standard stream' <<<"$out"
check "... not a caller's stream, a string, a voice-ok line or gen/cli: two problems" \
  grep -q 'check-layers: 2 problem(s)' <<<"$out"
finish
