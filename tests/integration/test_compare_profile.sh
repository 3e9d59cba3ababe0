#!/usr/bin/env bash
# Noise profiles (issue 22, item 2; compare/compare_profile.c) on the
# committed fixture runs: made from an A/A comparison (refused from one that
# is not), used when the host and the drift canary have not moved, refused
# (and said why) when the canary moved or the host differs; a damaged or
# hostile profile file is a clear error, exit 2.
set -u
. "$(dirname "$0")/lib.sh"

F=tests/fixtures/compare
P=$TMP/profile.json
"$BENCHGEN" compare "$F/base" "$F/base" --save-profile "$P" >/dev/null 2>"$TMP/save.err"
check "an A/A comparison saves a profile (exit 0)" test $? -eq 0 -a -s "$P"
check "... a benchgen-noise-profile/1 document" grep -q '"format": "benchgen-noise-profile/1"' "$P"
"$BENCHGEN" compare "$F/base" "$F/upgrade" --save-profile "$TMP/not-aa.json" >/dev/null 2>"$TMP/notaa.err"
check "a comparison that is not an A/A: no profile (exit 2)" test $? -eq 2 -a ! -e "$TMP/not-aa.json"
check "... saying so" grep -q "not an A/A comparison" "$TMP/notaa.err"

"$BENCHGEN" compare "$F/base" "$F/base" --profile "$P" --json >"$TMP/used.json" 2>/dev/null
check "used on the same host with the canary unmoved" \
  test "$(jget "$TMP/used.json" 'd["comparisons"][0]["noise_profile"]["used"] and all(c["noise_from"] == "profile" for c in d["comparisons"][0]["cells"] if c["tested"])')" = True
"$BENCHGEN" compare "$F/base" "$F/base" --profile "$P" >"$TMP/used.txt" 2>/dev/null
check "text: says it was used" grep -q "^noise profile: used for the band and planning of" "$TMP/used.txt"

"$BENCHGEN" compare "$F/base" "$F/later" --profile "$P" >"$TMP/moved.txt" 2>/dev/null
check "refused when the canary moved, and says so" grep -q "^noise profile: refused: the drift canary moved" "$TMP/moved.txt"
"$BENCHGEN" compare "$F/base" "$F/later" --json >"$TMP/plain.json" 2>/dev/null
"$BENCHGEN" compare "$F/base" "$F/later" --profile "$P" --json >"$TMP/moved.json" 2>/dev/null
check "refused: the verdicts are those made without a profile" \
  test "$(jget "$TMP/plain.json" '[c["verdict"] for c in d["comparisons"][0]["cells"]]')" = \
       "$(jget "$TMP/moved.json" '[c["verdict"] for c in d["comparisons"][0]["cells"]]')"
"$BENCHGEN" compare "$F/base" "$F/upgrade" --profile "$P" >"$TMP/host.txt" 2>/dev/null
check "refused on another host" grep -q "^noise profile: refused: made on bench-a" "$TMP/host.txt"

# hostile or damaged profile files
printf '{"format": "benchgen-noise-profile/1", "cells": "x"}' >"$TMP/bad1.json"
printf '<script>alert(1)</script>' >"$TMP/bad2.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"][0]["cv"]=-1; json.dump(d,open(sys.argv[2],"w"))' "$P" "$TMP/bad3.json"
for b in bad1 bad2 bad3; do
  "$BENCHGEN" compare "$F/base" "$F/base" --profile "$TMP/$b.json" >"$TMP/$b.out" 2>"$TMP/$b.err"
  check "profile $b: exit 2" test $? -eq 2
  check "profile $b: nothing on stdout, the error names the file" sh -c "test ! -s '$TMP/$b.out' && grep -q '$b.json' '$TMP/$b.err'"
done
"$BENCHGEN" compare "$F/base" "$F/base" --profile "$TMP/none.json" >/dev/null 2>&1
check "a missing profile: exit 2" test $? -eq 2
finish
