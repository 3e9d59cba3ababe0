#!/usr/bin/env bash
# test_report_shapes.sh - every run shape renders well (issue 27): the
# committed runs (published, tricky) and shape fixtures (tests/fixtures/runs/shape-*: one cell, one
# backend, one row, all cells failed, no repeats, repeats, both methods, a
# Slurm run with cells lost) in every format, checked by
# report_shapes_check.py (no empty table or bare "None." in HTML, Markdown,
# PDF or workbook; no PDF page that ends with a heading; byte counts in
# binary units; workbook number formats that fit the values), and in
# headless Chromium at 1280 px: no table wider than its page.
set -u
. "$(dirname "$0")/lib.sh"
FIX=$ROOT/tests/fixtures/runs
CHECK=$ROOT/tests/integration/report_shapes_check.py
# the shapes, and the two committed runs the other report tests render
SHAPES="shape-one-cell shape-one-backend shape-one-row shape-all-failed shape-no-repeats shape-repeats
  shape-both-methods shape-slurm-lost published tricky"

for s in $SHAPES; do
  "$BENCHGEN" report "$FIX/$s" --out "$TMP/$s" --format html,md,pdf,xlsx -j 1 -q >/dev/null 2>"$TMP/$s.err"
  check "$s: report exits 0" test $? -eq 0
done

if command -v pdftotext >/dev/null && command -v pdfinfo >/dev/null; then
  for s in $SHAPES; do
    mkdir -p "$TMP/$s.txt"
    pages=$(pdfinfo "$TMP/$s/report.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
    for i in $(seq 1 "${pages:-0}"); do
      pdftotext -layout -f "$i" -l "$i" "$TMP/$s/report.pdf" "$TMP/$s.txt/page-$i.txt"
    done
    python3 "$CHECK" "$TMP/$s" "$TMP/$s.txt" >"$TMP/$s.check" 2>&1
    rc=$?
    sed 's/^/# /' "$TMP/$s.check"
    check "$s ($pages PDF pages): no empty table, no bare 'None.', no page ending with a heading, bytes in binary units, number formats that fit" test $rc -eq 0
  done
else
  not_ok "poppler (pdftotext, pdfinfo) is installed (run scripts/install-report-deps.sh)"
fi

# the checker itself fails on what it must find: a report rendered with an
# empty table, a bare "None.", a raw byte count and a stranded heading
mkdir -p "$TMP/bad/txt"
cat >"$TMP/bad/report.html" <<'EOF'
<table><thead><tr><th>Cell</th></tr></thead><tbody></tbody></table>
<table><thead><tr><th>Model (task)</th><th>Batch</th></tr></thead><tbody><tr><td>x</td><td>1</td></tr></tbody></table>
<p><em>None.</em></p>
EOF
printf '## Failures\n\n_None._\n\n| Key | Value |\n|---|---|\n| mem.total\\_bytes | 25324961792 |\n\n| Cell |\n|---|\n\n## Spec\n' >"$TMP/bad/report.md"
cp "$TMP/shape-one-cell/report.xlsx" "$TMP/bad/report.xlsx"
printf 'some text\n\nFailures\n\n\n   page 1\n' >"$TMP/bad/txt/page-1.txt"
python3 "$CHECK" "$TMP/bad" "$TMP/bad/txt" >"$TMP/bad.out" 2>&1
check "the checker fails on a crafted bad report" test $? -eq 1
for want in "report.html: table 1 (Cell) has no rows" "report.html: table 2 holds row labels alone" \
  "report.html: a bare 'None.'" "report.md:3: a bare 'None.'" "report.md:9: a table with no rows" \
  "report.md:7: a byte count shown raw" "report.pdf: page 1 ends with the heading 'Failures'"; do
  check "... it names: $want" grep -qF "$want" "$TMP/bad.out"
done

# HTML at 1280 px: a copy whose extra script (allowed by dropping the CSP)
# writes, into the DOM Chromium dumps, every table wider than the page body
# (its scroll box) and the page's own scroll width
if ! command -v chromium >/dev/null 2>&1; then
  not_ok "chromium is installed (run scripts/install-report-deps.sh)"
  finish
fi
for s in $SHAPES; do
  python3 - "$TMP/$s/report.html" "$TMP/$s/measure.html" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", s)
s = s.replace("</body>", """<script>
var W = document.documentElement.clientWidth, out = [];
document.querySelectorAll("table").forEach(function (t, i) {
  var box = t.parentElement, sec = t.closest("section");
  var room = Math.min(box.clientWidth, document.body.clientWidth);
  if (t.offsetWidth > room + 1)
    out.push((sec ? sec.id : "?") + " table " + i + ": " + t.offsetWidth + " px in " + room + " px");
});
if (document.documentElement.scrollWidth > W + 1)
  out.push("page: " + document.documentElement.scrollWidth + " px wide at " + W + " px");
document.body.setAttribute("data-wide", out.length ? out.join("; ") : "none");
document.body.setAttribute("data-width", String(W));
</script></body>""")
open(sys.argv[2], "w", encoding="utf-8").write(s)
PY
done
# one Chromium per shape (each dumps one DOM); 1280 px wide, as a laptop shows it
for s in $SHAPES; do
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$TMP/chrome-profile" --window-size=1280,900 --hide-scrollbars \
    --dump-dom "file://$TMP/$s/measure.html" >"$TMP/$s.dom" 2>/dev/null
  wide=$(sed -n 's/.*<body[^>]* data-wide="\([^"]*\)".*/\1/p' "$TMP/$s.dom" | head -1)
  width=$(sed -n 's/.*<body[^>]* data-width="\([^"]*\)".*/\1/p' "$TMP/$s.dom" | head -1)
  [ "$wide" = none ] || echo "# $s: $wide"
  check "$s: report.html at 1280 px (viewport ${width:-?} px): no table wider than its page" test "$wide" = none
done
finish
