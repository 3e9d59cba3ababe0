#!/usr/bin/env bash
# Headlines only from what was decided (issue 22, item 4), in every format:
# an interleaved A/A of the first-hour spec under a CPU hog, both cells
# ambiguous (tests/fixtures/compare/aa-hog, written by
# tests/fixtures/make-aa-hog-fixture.py), must state no speed-up figure, a
# drift canary that "cannot tell" (its interval reaches past the band) and a
# result line that says nothing was decided, in compare.txt, compare.json,
# compare.html, compare.md, compare.pdf (pdftotext) and compare.xlsx (its
# shared strings); the A and B columns are the statistic the ratio is made of.
set -u
. "$(dirname "$0")/lib.sh"

FIX=tests/fixtures/compare/aa-hog
O=$TMP/out
"$BENCHGEN" compare "$FIX" --out "$O" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
check "the A/A under a hog exits 0 (nothing slower)" test "$rc" -eq 0
python3 - "$O/compare.json" <<'PY' >"$TMP/json.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
p = d["comparisons"][0]
bad = []
if [c["verdict"] for c in p["cells"]] != ["ambiguous", "ambiguous"]:
    bad.append("verdicts %s" % [c["verdict"] for c in p["cells"]])
for g in [p, p["affected"], p["unaffected"]] + p["backends"]:
    if g["speedup"] is not None or g["geomean_ratio"] is not None:
        bad.append("a speed-up figure: %s" % g)
for g in [p["unaffected"]] + p["backends"]:
    if not g["cannot_tell"] or not (g["range_lo"] < 1 < g["range_hi"]):
        bad.append("no cannot-tell range: %s" % g)
if p["canary"]["reading"] != "cannot_tell" or p["canary"]["drift"]:
    bad.append("canary %s" % p["canary"])
if not p["summary"]["nothing_decided"] or not d["result"].startswith("Result: nothing decided"):
    bad.append("result %r / %s" % (d["result"], p["summary"]))
for c in p["cells"]:
    if abs(c["ratio_b_ms"] / c["ratio_a_ms"] - c["ratio"]) > 1e-9 * c["ratio"]:
        bad.append("%s: A %s and B %s are not what ratio %s is made of" % (c["id"], c["ratio_a_ms"], c["ratio_b_ms"], c["ratio"]))
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/json.out"
check "JSON: no speed-up figure, cannot-tell ranges, canary cannot tell, nothing decided, A/B = ratio" test "$rc" -eq 0

# the texts of every other format
cp "$O/compare.txt" "$TMP/txt"
sed -e 's/<[^>]*>//g' "$O/compare.html" >"$TMP/html"
cp "$O/compare.md" "$TMP/md"
sed -i -e 's/\\//g' "$TMP/md"  # Markdown escapes [ and ]
pdftotext -layout "$O/compare.pdf" "$TMP/pdf" 2>/dev/null
check "pdftotext reads compare.pdf" test -s "$TMP/pdf"
python3 -c 'import sys, zipfile
print(zipfile.ZipFile(sys.argv[1]).read("xl/sharedStrings.xml").decode())' "$O/compare.xlsx" >"$TMP/xlsx"
check "the workbook has shared strings" test -s "$TMP/xlsx"
for f in txt html md pdf xlsx; do
  t=$TMP/$f
  # a speed-up stated as a figure: "speed-up 1.421x", "Speed-up: 1.421x", "(speed-up 1.421x)"
  check "$f: no speed-up figure" sh -c "! grep -qiE 'speed-up:? +\(?[0-9.]+x' '$t'"
  check "$f: the speed-up cannot tell" grep -qi 'cannot tell' "$t"
  check "$f: the drift canary cannot tell" grep -q 'cannot tell whether the machine moved' "$t"
  check "$f: the canary does not say the machine did not move" sh -c "! grep -q 'did not move' '$t'"
  check "$f: the result line says nothing was decided" grep -q 'Result: nothing decided' "$t"
  check "$f: no result line says no cell got slower" sh -c "! grep -q 'Result: no cell got slower' '$t'"
done
check "forest plot: the geometric means cannot tell, and draw no speed-up" \
  sh -c "grep -q 'cannot tell: B/A in' '$O/charts/forest-1.svg' && ! grep -qE 'speed-up [0-9.]+x' '$O/charts/forest-1.svg'"
check "HTML: the result is not shown as good news" grep -q '<p class="note"><b>Result: nothing decided' "$O/compare.html"
# the A and B columns: the geometric means of the processes (7.799 and 8.983 ms
# for mlp/fit: 8.983 / 7.799 = 1.1519, the ratio shown beside them)
check "text: A and B columns are what B/A is made of" grep -qE '^mlp/fit/b32/numpy +7\.799 +8\.983 .* 1\.1519 ' "$TMP/txt"
check "HTML: the columns are labelled as geometric means of processes" grep -q 'A ms/step (geomean of processes)' "$O/compare.html"
check "workbook: pooled and geometric means both, labelled" \
  sh -c "grep -q 'A pooled mean ms' '$TMP/xlsx' && grep -q 'A geomean ms (of the ratio)' '$TMP/xlsx'"
finish
