#!/usr/bin/env bash
# test_report_out.sh - where `benchgen report` writes: reports/<name of
# RUN_DIR> by default (two runs of one spec never share a directory), a
# directory holding another run's report is refused (exit 2, nothing
# touched) unless --force, a --format subset links only files it wrote, and
# -q prints nothing. Renders the committed fixture runs; no environment.
set -u
. "$(dirname "$0")/lib.sh"
PUB=$ROOT/tests/fixtures/runs/published
TRICKY=$ROOT/tests/fixtures/runs/tricky
W=$TMP/work
mkdir -p "$W/runs"
cp -r "$PUB" "$W/runs/a"
cp -r "$PUB" "$W/runs/b"
cd "$W" || exit 1

"$BENCHGEN" report runs/a --format md -j 1 >"$TMP/a.out" 2>&1
check "report runs/a exits 0" test $? -eq 0
"$BENCHGEN" report runs/b/ --format md -j 1 >/dev/null 2>&1
check "report runs/b/ exits 0" test $? -eq 0
check "runs/a renders into reports/a" test -f reports/a/report.md
check "runs/b renders into reports/b" test -f reports/b/report.md
check "the final line says where" grep -q "^report: reports/a/: report.md$" "$TMP/a.out"
check "each report names its run in .benchgen-report" grep -q "^run: published-a100$" reports/a/.benchgen-report
"$BENCHGEN" report runs/a --format md -j 1 -q >/dev/null 2>&1
check "rendering the same run again into its directory is fine" test $? -eq 0

# another run's directory
before=$(cd reports/a && find . -type f | LC_ALL=C sort | xargs sha256sum)
"$BENCHGEN" report "$TRICKY" --out reports/a --format md -j 1 -q >"$TMP/out" 2>"$TMP/err"
check "rendering another run into reports/a exits 2" test $? -eq 2
check "... naming the run that is there and --force" grep -q "reports/a holds the report of run 'published-a100' (created .*); give --force" "$TMP/err"
check "... and touches nothing" test "$(cd reports/a && find . -type f | LC_ALL=C sort | xargs sha256sum)" = "$before"
"$BENCHGEN" report "$TRICKY" --out reports/a --format html -j 1 -q --force >/dev/null 2>&1
check "--force replaces it" test $? -eq 0
check "... the mark names the new run" grep -q "^run: tricky" reports/a/.benchgen-report
check "... and the old run's documents are gone" test ! -e reports/a/report.md
check "... with its charts" test -z "$(ls reports/a/charts 2>/dev/null)"

# a report benchgen cannot attribute (no mark): refused too
mkdir -p old && echo '<html>' >old/report.html
"$BENCHGEN" report runs/a --out old --format md -j 1 -q >/dev/null 2>"$TMP/err"
check "a directory with report.html but no mark is refused (exit 2)" test $? -eq 2
check "... saying so" grep -q "report of unknown origin" "$TMP/err"
check "... and keeps the file" grep -q '<html>' old/report.html

# format subsets link only what they wrote
links() { grep -o 'href="charts/[^"]*"' "$1" | sed 's/href="//; s/"$//' | sort -u; }
"$BENCHGEN" report runs/a --out html-only --format html -j 1 -q >/dev/null 2>&1
check "--format html writes report.html" test -f html-only/report.html
check "... and links no chart file" test -z "$(links html-only/report.html)"
# report.json and summary.csv, the machine-readable summary, come with every format (docs/REPORT.md)
check "... and writes no other file than the machine-readable summary" \
  test "$(cd html-only && find . -type f | LC_ALL=C sort | tr '\n' ' ')" = "./.benchgen-report ./report.html ./report.json ./summary.csv "
"$BENCHGEN" report runs/a --out html-md --format html,md -j 1 -q >/dev/null 2>&1
n=$(links html-md/report.html | wc -l)
missing=$(cd html-md && links report.html | while read -r f; do [ -f "$f" ] || echo "$f"; done)
check "--format html,md links the PNGs the Markdown needs ($n links), all there" test "$n" -gt 0 -a -z "$missing"
check "... and no SVG or PDF" test -z "$(links html-md/report.html | grep -v '\.png$')"
"$BENCHGEN" report runs/a --out html-charts --format html,charts -j 1 -q >/dev/null 2>&1
n=$(links html-charts/report.html | wc -l)
missing=$(cd html-charts && links report.html | while read -r f; do [ -f "$f" ] || echo "$f"; done)
check "--format html,charts links PNG, SVG and PDF ($n links), every one written" test "$n" -gt 0 -a -z "$missing"
md_missing=$(cd html-md && grep -o '(charts/[^)]*)' report.md | tr -d '()' | while read -r f; do [ -f "$f" ] || echo "$f"; done)
check "every chart report.md links was written" test -z "$md_missing"

# -q is quiet
"$BENCHGEN" report runs/a --out quiet -q -j 1 >"$TMP/q.out" 2>"$TMP/q.err"
check "-q exits 0" test $? -eq 0
check "-q prints nothing on stdout" test ! -s "$TMP/q.out"
check "-q prints nothing on stderr" test ! -s "$TMP/q.err"
# report.pdf: no heading ends a page (a heading goes down with what follows it)
if command -v pdftotext >/dev/null && command -v pdfinfo >/dev/null || { check "poppler (pdftotext, pdfinfo) is installed" false; false; }; then
  "$BENCHGEN" report "$PUB" --out "$TMP/pdf" --format pdf,md -j 1 -q >/dev/null 2>&1
  check "report --format pdf,md exits 0" test $? -eq 0
  sed -n 's/^##\{1,3\} //p' "$TMP/pdf/report.md" | sed 's/\\//g' | LC_ALL=C sort -u >"$TMP/headings"
  pages=$(pdfinfo "$TMP/pdf/report.pdf" | sed -n 's/^Pages: *//p')
  ends=0
  for i in $(seq 1 "$pages"); do
    last=$(pdftotext -f "$i" -l "$i" "$TMP/pdf/report.pdf" - | grep -v '^[[:space:]]*$' | grep -v 'benchgen report$' |
      grep -v '^page [0-9]*$' | tail -1)
    grep -qxF -- "$last" "$TMP/headings" && { echo "# page $i ends with the heading: $last"; ends=$((ends + 1)); }
  done
  check "the headings were read ($(wc -l <"$TMP/headings") of them)" test "$(wc -l <"$TMP/headings")" -ge 10
  check "no page of report.pdf ($pages pages) ends with a heading" test "$ends" -eq 0
  # the ms/step figure prints at full size: its backend labels' boxes are at
  # least 9.5 pt tall (7 pt text; 7.6 when it was drawn 1000 pt wide and
  # shrunk to the page, 5.4 pt text)
  fp=$(for i in $(seq 1 "$pages"); do
    pdftotext -f "$i" -l "$i" "$TMP/pdf/report.pdf" - | grep -q '^ms/step by backend' && { echo "$i"; break; }; done)
  minh=$(pdftotext -bbox -f "${fp:-1}" -l "${fp:-1}" "$TMP/pdf/report.pdf" - | python3 -c '
import re, sys
hs = [float(b) - float(a) for a, b in re.findall(r"yMin=\"([\d.]+)\" xMax=\"[\d.]+\" yMax=\"([\d.]+)\">PyTorch</word>", sys.stdin.read())]
print("%.2f" % min(hs) if hs else 0)')
  check "the ms/step figure (page ${fp:-none}) prints its labels at 7 pt or more (label box ${minh} pt)" \
    python3 -c "import sys; sys.exit(0 if float('$minh') >= 9.5 else 1)"
fi
finish
