#!/usr/bin/env bash
# `benchgen compare ... --out DIR` end to end on the committed fixture runs
# (tests/fixtures/compare/), checked with the readers people use: every file
# rendered twice must have the same SHA-256; the PDF must pass pdfinfo and
# render with pdftoppm; LibreOffice (headless) converts the workbook's
# Verdicts sheet to CSV and its rows must equal compare.json; the HTML must
# load in headless Chromium without console errors and its screenshot must
# show the forest plot; a <script> tag and quotes in run metadata must come
# out escaped everywhere. The readers come from scripts/install-report-deps.sh.
set -u
. "$(dirname "$0")/lib.sh"

FIX=tests/fixtures/compare

need() { # need BINARY: a missing reader is a failure, never a skip
  if command -v "$1" >/dev/null 2>&1; then return 0; fi
  not_ok "$1 is installed (run scripts/install-report-deps.sh)"
  return 1
}

# ---- render twice, compare every file ---------------------------------------
A=$TMP/a
B=$TMP/b
"$BENCHGEN" compare "$FIX/base" "$FIX/upgrade" "$FIX/later" --out "$A" >"$TMP/a.out" 2>"$TMP/a.err"
rc=$?
check "three-run comparison exits 3 (a cell got slower)" test "$rc" -eq 3
check "compare says where it wrote" grep -q "wrote $A/: compare.txt compare.json compare.html" "$TMP/a.err"
"$BENCHGEN" compare "$FIX/base" "$FIX/upgrade" "$FIX/later" --out "$B" >/dev/null 2>&1
(cd "$A" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$TMP/a.sha"
(cd "$B" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$TMP/b.sha"
nfiles=$(wc -l <"$TMP/a.sha")
# 15 outputs and the mark, .benchgen-compare (report/outdir.h)
check "every format was written ($nfiles files)" test "$nfiles" -eq 16
check "two renders: same SHA-256 for every file" cmp -s "$TMP/a.sha" "$TMP/b.sha"
for f in compare.txt compare.json compare.html compare.md compare.pdf compare.xlsx; do
  check "$f exists" test -s "$A/$f"
done
for c in forest-1 forest-2 trend-1; do
  check "chart $c in PNG, SVG and PDF" test -s "$A/charts/$c.png" -a -s "$A/charts/$c.svg" -a -s "$A/charts/$c.pdf"
done
check "Markdown links the forest plots and the trend as PNG" \
  sh -c "grep -q '](charts/forest-1.png)' '$A/compare.md' && grep -q '](charts/trend-1.png)' '$A/compare.md'"

T2=$TMP/two
"$BENCHGEN" compare "$FIX/base" "$FIX/upgrade" --out "$T2" >/dev/null 2>&1
check "two-run comparison: a forest plot" test -s "$T2/charts/forest-1.png"
check "two-run comparison: no trend chart" sh -c "! ls '$T2'/charts/trend-* >/dev/null 2>&1"

# ---- the overall speed-up's cells, the host-change flag, the trend's mismatches -----
# [1]: the numpy cells' environment did not change (a control); mlp/predict
# moved 15% with only the host changed (bench-a -> bench-b)
python3 - "$A/compare.json" >"$TMP/scope.out" 2>&1 <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))["comparisons"][0]
bad = []
cells = {c["id"]: c for c in p["cells"]}
aff = [c for c in p["cells"] if c["tested"] and c["affected"]]
una = [c for c in p["cells"] if c["tested"] and not c["affected"]]
if sorted(c["id"] for c in una) != ["mlp/fit/b32/numpy", "mlp/predict/b32/numpy"]:
    bad.append("unaffected: %s" % [c["id"] for c in una])
# the overall speed-up is over the decided cells only (same, faster, slower)
dec = [c for c in aff if c["verdict"] in ("same", "faster", "slower")]
g = math.exp(sum(math.log(c["ratio"]) for c in dec) / len(dec))
if p["affected"]["cells"] != len(aff) or p["affected"]["decided"] != len(dec) or not math.isclose(p["affected"]["geomean_ratio"], g, rel_tol=1e-12):
    bad.append("affected geomean %s, want %d cells %.15g" % (p["affected"], len(aff), g))
if p["unaffected"]["cells"] != 2:
    bad.append("unaffected %s" % p["unaffected"])
hosts = {k: c["host_changed"] for k, c in cells.items() if c["host_changed"]}
if hosts != {"mlp/predict/b32/numpy": "bench-a -> bench-b"}:
    bad.append("host_changed: %s" % hosts)
print("\n".join(bad) or "affected %d, unaffected %d, host changed %s" % (len(aff), len(una), hosts))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/scope.out"
check "JSON: overall speed-up over the affected cells, the control apart; a 15% move with only the host changed is flagged" test "$rc" -eq 0
check "text: the flag on the cell's line" grep -qE '^mlp/predict/b32/numpy .*\[host changed: bench-a -> bench-b\]' "$TMP/a.out"
check "text: overall and unaffected geometric means" \
  sh -c "grep -qE '^  overall +5 cells' '$TMP/a.out' && grep -qE '^  unaffected +2 cells' '$TMP/a.out'"
check "HTML: the flag in the verdict table's note" grep -q 'host changed: bench-a -&gt; bench-b' "$A/compare.html"
check "text trend: a mismatched cell shows no number" grep -qE '^sam/predict/b1/torch-eager +400\.29 +mismatch ' "$TMP/a.out"

# ---- PDF: pdfinfo, pdftoppm ------------------------------------------------------
if need pdfinfo && need pdftoppm; then
  pdfinfo "$A/compare.pdf" >"$TMP/pdfinfo.out" 2>&1
  check "pdfinfo accepts compare.pdf" test $? -eq 0
  pages=$(sed -n 's/^Pages: *//p' "$TMP/pdfinfo.out")
  check "compare.pdf has several pages (${pages:-0})" test "${pages:-0}" -ge 4
  check "PDF creation date is the baseline run's" grep -q "CreationDate: *Thu Jan  1 00:00:00 2026" "$TMP/pdfinfo.out"
  check "PDF title names the comparison" grep -q "Title: *Benchmark comparison: 2 runs against diffusers-base" \
    "$TMP/pdfinfo.out"
  pdftoppm -r 40 -png "$A/compare.pdf" "$TMP/page" >"$TMP/pdftoppm.out" 2>&1
  rc=$?
  n=$(ls "$TMP"/page-*.png 2>/dev/null | wc -l)
  check "pdftoppm renders every page ($n)" test "$rc" -eq 0 -a "$n" -eq "${pages:-0}"
  check "pdftoppm reports no errors" test ! -s "$TMP/pdftoppm.out"
  for c in forest-1 trend-1; do
    pdfinfo "$A/charts/$c.pdf" >/dev/null 2>&1
    check "chart $c.pdf passes pdfinfo" test $? -eq 0
  done
  if need pdftotext; then
    pdftotext -layout "$A/compare.pdf" "$TMP/layout.txt"
    check "PDF: the host-change flag" grep -q 'host changed: bench-a -> bench-b' "$TMP/layout.txt"
    check "PDF: no cell name breaks at a hyphen (\"torch-\" / \"eager\")" sh -c "! grep -qE '(torch|keras3)-\$' '$TMP/layout.txt'"
  fi
fi

# ---- workbook: LibreOffice -> CSV (Verdicts) == compare.json ------------------------
if need soffice; then
  mkdir -p "$TMP/lo" "$TMP/lohome"
  HOME=$TMP/lohome timeout 180 soffice --headless --norestore --nolockcheck \
    --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,1' \
    --outdir "$TMP/lo" "$A/compare.xlsx" >"$TMP/lo.out" 2>&1
  csv=$(ls "$TMP"/lo/*.csv 2>/dev/null | head -1)
  check "LibreOffice opens compare.xlsx and converts Verdicts to CSV" test -n "$csv" -a -s "${csv:-/nonexistent}"
  if [ -n "$csv" ]; then
    python3 - "$csv" "$A/compare.json" >"$TMP/cmp.out" 2>&1 <<'PY'
import csv, json, math, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
doc = json.load(open(sys.argv[2]))
head_i = next(i for i, r in enumerate(rows) if r and r[0] == "Comparison")
head = rows[head_i]
col = {name: i for i, name in enumerate(head)}
body = [r for r in rows[head_i + 1:] if r and r[0]]
want = [(p["run"], c) for p in doc["comparisons"] for c in p["cells"]]
bad = 0
if len(body) != len(want):
    print("Verdicts has %d rows, compare.json %d cells" % (len(body), len(want))); bad += 1
names = {r["index"]: r["name"] for r in doc["runs"]}
for r, (run, c) in zip(body, want):
    def fail(msg):
        global bad
        print("%s %s: %s" % (r[0], c["id"], msg)); bad += 1
    if r[col["Comparison"]] != "[%d] %s" % (run, names[run]) or r[col["Cell"]] != c["id"]:
        fail("row order: %r %r" % (r[0], r[1]))
    if r[col["Match"]] != c["match"]:
        fail("match %r" % r[col["Match"]])
    if c["tested"]:
        for key, name in (("ratio", "Ratio B/A"), ("ci_lo", "CI low"), ("ci_hi", "CI high"), ("p_adj", "q (BH)")):
            try:
                got = float(r[col[name]])
            except ValueError:
                fail("%s %r is not a number" % (name, r[col[name]])); continue
            if not math.isclose(got, c[key], rel_tol=1e-6):
                fail("%s %.15g != %.15g" % (name, got, c[key]))
        if r[col["Verdict"]] != c["verdict"]:
            fail("verdict %r != %r" % (r[col["Verdict"]], c["verdict"]))
    elif not r[col["Ratio B/A"]].startswith("NA ("):
        fail("untested cell has ratio %r (want NA and the reason)" % r[col["Ratio B/A"]])
    if r[col["Affected"]] != ("yes" if c["affected"] else "no") or r[col["Host changed"]] != (c["host_changed"] or ""):
        fail("affected %r, host changed %r" % (r[col["Affected"]], r[col["Host changed"]]))
    for cell in r:
        if cell.lower() in ("nan", "inf", "-inf", "#num!", "#value!"):
            fail("cell %r" % cell)
print("checked %d rows, %d problems" % (len(body), bad))
sys.exit(1 if bad or len(body) < 20 else 0)
PY
    rc=$?
    sed 's/^/# /' "$TMP/cmp.out"
    check "Verdicts (via LibreOffice) equal compare.json; NA cells as text" test "$rc" -eq 0
  fi
fi

# ---- HTML: headless Chromium -------------------------------------------------------
chrome() { # chrome ARGS... : headless, no sandbox (root in CI), logs on stderr; 240 s (one launch does the DOM and the screenshot)
  timeout 240 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$TMP/chrome-profile" --enable-logging=stderr --v=0 "$@"
}
if need chromium; then
  # one launch: the loaded DOM on stdout and a screenshot of the page
  chrome --window-size=1280,3200 --hide-scrollbars --screenshot="$TMP/shot.png" \
    --dump-dom "file://$(cd "$A" && pwd)/compare.html" >"$TMP/dom.html" 2>"$TMP/chrome.err"
  check "Chromium loads compare.html" test $? -eq 0 -a -s "$TMP/dom.html"
  if grep -q ":CONSOLE" "$TMP/chrome.err"; then
    grep ":CONSOLE" "$TMP/chrome.err" | head -5 | sed 's/^/# /'
    not_ok "compare.html loads without console errors"
  else
    ok "compare.html loads without console errors"
  fi
  nsvg=$(grep -o "<svg" "$TMP/dom.html" | wc -l)
  check "the loaded DOM holds the three charts as inline SVG ($nsvg)" test "$nsvg" -eq 3
  check "Chromium takes a screenshot" test -s "$TMP/shot.png"
  # the forest plot draws its geometric means in blue and the slower / faster cells in their colours
  python3 "$(dirname "$0")/png_palette.py" "$TMP/shot.png" 40 "faster blue=0,114,178" "slower orange=184,74,0" "geomean ink=34,34,34" >"$TMP/shot.out" 2>&1
  rc=$?
  sed 's/^/# /' "$TMP/shot.out"
  check "the screenshot shows the forest plot (verdict and geomean colours)" test "$rc" -eq 0
fi

# ---- escaping: <script> and quotes in run metadata -----------------------------------
H=$TMP/hostile
"$BENCHGEN" compare "$FIX/base" "$FIX/hostile" --out "$H" >/dev/null 2>"$TMP/hostile.err"
check "comparison with the hostile fixture exits 0" test $? -eq 0
check "HTML: the one <script> is report.js (no injected tag)" sh -c "test \$(grep -o '<script' '$H/compare.html' | wc -l) -eq 1 && grep -q '<script>/\* report.js' '$H/compare.html'"
check "HTML: no raw <img> tag" sh -c "! grep -q '<img' '$H/compare.html'"
check "HTML: run name escaped" \
  grep -qF "diffusers-&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&amp;&#39;q&#39;|*_" "$H/compare.html"
check "HTML: package version escaped" grep -qF "0.30.0&quot;&lt;script&gt;alert(&#39;pkg&#39;)" "$H/compare.html"
python3 - "$H/compare.md" >"$TMP/md.out" 2>&1 <<'PY'
import re, sys
code = False
bad = 0
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        code = not code
        continue
    if not code and re.search(r"(?<!\\)<(script|img|b>)", line):
        print("unescaped:", line.strip()); bad += 1
sys.exit(1 if bad else 0)
PY
check "Markdown: every tag outside code blocks is escaped" test $? -eq 0
check "Markdown: run name escaped" grep -qF 'diffusers-\<script\>alert("name")\</script\>\&'"'"'q'"'"'\|\*\_' "$H/compare.md"
unzip_cat() { # unzip_cat ZIP PREFIX: every entry whose name starts with PREFIX, concatenated
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
sys.stdout.write("".join(z.read(n).decode("utf-8") for n in sorted(z.namelist()) if n.startswith(sys.argv[2])))' "$1" "$2"
}
unzip_cat "$H/compare.xlsx" xl/sharedStrings.xml >"$TMP/sst.xml"
check "XLSX: no raw <script> in the strings" sh -c "! grep -q '<script' '$TMP/sst.xml'"
check "XLSX: package version escaped" grep -qF "0.30.0\"&lt;script&gt;alert('pkg')" "$TMP/sst.xml"
unzip_cat "$A/compare.xlsx" xl/worksheets/ >"$TMP/sheets.xml"
check "XLSX: sheets read back" test -s "$TMP/sheets.xml"
check "XLSX: no NaN or Inf anywhere" sh -c "! grep -qiE '<v>-?(nan|inf)' '$TMP/sheets.xml'"
if need pdftotext; then
  pdftotext "$H/compare.pdf" "$TMP/hostile.txt"
  check "PDF: the name is drawn as plain text, tag and quotes included" \
    grep -qF "diffusers-<script>alert(\"name\")</script>&'q'|*_" "$TMP/hostile.txt"
  pdfinfo "$H/compare.pdf" >/dev/null 2>&1
  check "PDF with hostile outline entries passes pdfinfo" test $? -eq 0
fi
if command -v chromium >/dev/null 2>&1; then
  chrome --dump-dom "file://$(cd "$H" && pwd)/compare.html" >"$TMP/hdom.html" 2>"$TMP/hchrome.err"
  check "hostile HTML: no script element in the loaded DOM but report.js" sh -c "test \$(grep -o '<script' '$TMP/hdom.html' | wc -l) -eq 1"
  check "hostile HTML: no console messages" sh -c "! grep -q ':CONSOLE' '$TMP/hchrome.err'"
fi

finish
