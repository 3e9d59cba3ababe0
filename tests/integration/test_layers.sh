#!/usr/bin/env bash
# test_layers.sh - scripts/check-layers.py: the source tree passes; fixture
# trees with an upward include, a cycle, an unranked folder, an include that
# names no header, a chart including a higher layer, and a library file that
# prints each fail, naming the file and line. Then two rules includes cannot
# show: crep.c (from the built objects, BUILD=build) calls nothing of the
# comparison writers that include crep.h, and the unit tests keep no copy of
# tests/unit/testutil.h's helpers.
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

# What includes cannot show: compare.h declares functions of several files,
# so crep.c (the comparison report's shared pieces, crep.h) once called
# compare_text.c's words while compare_text.c called crep.c (a two-file
# circle, issue 23). From the built objects: crep.o calls nothing defined in
# a file that includes crep.h, so every writer of the comparison sits above
# it.
OBJ=${BUILD:-build}/gen/compare
if [ -f "$OBJ/crep.o" ] && command -v nm >/dev/null 2>&1; then
  writers=$(grep -l '#include "compare/crep.h"' gen/compare/*.[ch] | sed 's/\.[ch]$/.c/' | grep -v '/crep\.c$' | sort -u)
  check "some writers include crep.h ($(echo $writers | wc -w))" test -n "$writers"
  used=$(nm -u "$OBJ/crep.o" | awk '{print $NF}' | sort -u)
  back=""
  for w in $writers; do
    o=$OBJ/$(basename "$w" .c).o
    [ -f "$o" ] || { back="$back $w(not built)"; continue; }
    for s in $(nm --defined-only -g "$o" | awk '{print $NF}'); do
      grep -qx "$s" <<<"$used" && back="$back $(basename "$w"):$s"
    done
  done
  check "crep.o calls nothing of the files that include crep.h (no circle with compare_text.c)" test -z "$back"
  [ -z "$back" ] || echo "# crep.o uses:$back"
  # the check itself: compare_text.c uses crep.c, so this direction is seen
  text_uses=$(nm -u "$OBJ/compare_text.o" | awk '{print $NF}')
  crep_defs=$(nm --defined-only -g "$OBJ/crep.o" | awk '{print $NF}')
  check "... and it sees the other direction (compare_text.o calls crep.o)" \
    test -n "$(grep -Fxf <(echo "$crep_defs") <<<"$text_uses")"
else
  not_ok "the compare objects are built ($OBJ/crep.o) and nm is installed: run make first"
fi

# The unit tests share tests/unit/testutil.h: a file's text, a zip entry, a
# tree's hashes; trees go with util_rm_rf(). No test keeps its own copy
# (a tree walk, a zip reader, or a helper of one of those names).
copies() { # DIR: the copies in DIR/*.c, one a line
  grep -nE 'nftw\(|archive_read_support_format_zip|^static [^=]*\b(read_text|zip_entry|tree_hashes|rm_entry|rm_cb_?)\(' \
    "$1"/*.c 2>/dev/null
}
out=$(copies tests/unit)
check "tests/unit/*.c keep no copy of testutil.h's helpers or util_rm_rf" test -z "$out"
[ -z "$out" ] || echo "$out"
mkdir -p "$TMP/unit"
printf 'static int rm_cb(const char *p, const struct stat *s, int f, struct FTW *w)\n{\n    return remove(p);\n}\n' \
  >"$TMP/unit/test_x.c"
printf 'static void t(void)\n{\n    nftw(dir, cb, 16, FTW_DEPTH | FTW_PHYS);\n}\n' >"$TMP/unit/test_y.c"
check "... a copy of one is found" test "$(copies "$TMP/unit" | wc -l)" -eq 2
out=$(python3 $CHECK $FIX/prints 2>&1); rc=$?
check "a library file that prints fails" test $rc -eq 1
check "... printf is named with its line" grep -q 'gen/report/speak.c:9: printf(... writes to a standard stream below gen/cli' <<<"$out"
check "... so is fputs to stderr" grep -q 'gen/report/speak.c:15: fputs(buf, stderr)... writes to a standard stream' <<<"$out"
check "... not a caller's stream, a string, a voice-ok line or gen/cli: two problems" \
  grep -q 'check-layers: 2 problem(s)' <<<"$out"
finish
