#!/usr/bin/env bash
# `benchgen report` end to end on the committed fixture runs, checked with the
# readers people use: every file rendered twice must have the same SHA-256;
# LibreOffice (headless) converts the workbook's Summary to CSV and its values
# must equal the statistics recomputed from run.db with sqlite3; the PDF must
# pass pdfinfo and render with pdftoppm; the HTML must load in headless
# Chromium without console errors and its screenshot must show the charts; a
# <script> tag and quotes in run metadata must come out escaped everywhere.
# The readers come from scripts/install-report-deps.sh (make test runs it).
set -u
. "$(dirname "$0")/lib.sh"

PUB=tests/fixtures/runs/published
TRICKY=tests/fixtures/runs/tricky
REF=data/reference/keras-benchmarks.csv

need() { # need BINARY: a missing reader is a failure, never a skip
  if command -v "$1" >/dev/null 2>&1; then return 0; fi
  not_ok "$1 is installed (run scripts/install-report-deps.sh)"
  return 1
}

# ---- command line -----------------------------------------------------------
"$BENCHGEN" report --help >"$TMP/help.out" 2>&1
check "report --help exits 0" test $? -eq 0
check "report --help documents --reference" grep -q -- "--reference FILE.csv" "$TMP/help.out"
"$BENCHGEN" report "$TMP/no-such-run" >"$TMP/missing.out" 2>&1
rc=$?
check "missing run directory exits 2" test "$rc" -eq 2
check "missing run directory is named in the message" grep -q "no such run directory" "$TMP/missing.out"

# --jobs defaults to the CPUs the process may use (its affinity: taskset,
# cpusets), not the machine's: the progress line says how many processes drew
check "report --help states the --jobs default" grep -q "default: the CPUs this process may use" "$TMP/help.out"
if need taskset; then
  cpus=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
  one=${cpus%%,*}
  taskset -c "$one" "$BENCHGEN" report tests/fixtures/runs/shape-one-cell --out "$TMP/aff1" --format md \
    >/dev/null 2>"$TMP/aff1.err"
  check "under taskset -c $one, report draws with 1 process" grep -q "^report: drawing .*(1 process)$" "$TMP/aff1.err"
  case $cpus in
  *,*)
    two=$(echo "$cpus" | cut -d, -f1-2)
    taskset -c "$two" "$BENCHGEN" report tests/fixtures/runs/shape-one-cell --out "$TMP/aff2" --format md \
      >/dev/null 2>"$TMP/aff2.err"
    check "under taskset -c $two, with 2 processes" grep -q "^report: drawing .*(2 processes)$" "$TMP/aff2.err"
    ;;
  *) echo "# one CPU here ($cpus): the affinity and the machine agree, nothing more to tell" ;;
  esac
fi

# ---- render twice, compare every file ---------------------------------------
A=$TMP/a
B=$TMP/b
t0=$(date +%s.%N)
"$BENCHGEN" report "$PUB" --out "$A" --reference "$REF" >"$TMP/a.out" 2>"$TMP/a.err"
check "report of the published fixture exits 0" test $? -eq 0
t1=$(date +%s.%N)
echo "# published 72-cell report rendered in $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
"$BENCHGEN" report "$PUB" --out "$B" --reference "$REF" --jobs 1 -q >/dev/null 2>"$TMP/b.err"
check "second render exits 0" test $? -eq 0
(cd "$A" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$TMP/a.sha"
(cd "$B" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$TMP/b.sha"
check "render prints progress lines" grep -q "^report: drawing" "$TMP/a.err"
nfiles=$(wc -l <"$TMP/a.sha")
check "every format was written ($nfiles files)" test "$nfiles" -ge 60
check "two renders: same SHA-256 for every file" cmp -s "$TMP/a.sha" "$TMP/b.sha"
for f in report.html report.md report.pdf report.xlsx; do
  check "$f exists" test -s "$A/$f"
done
np=$(ls "$A"/charts/*.png | wc -l); ns=$(ls "$A"/charts/*.svg | wc -l); nd=$(ls "$A"/charts/*.pdf | wc -l)
check "charts in PNG, SVG and PDF ($np each)" test "$np" -ge 18 -a "$np" -eq "$ns" -a "$np" -eq "$nd"
for c in ms-per-step speedup-vs-torch-eager keras3-best-vs-torch-eager heatmap cells-bert_fit_b32 reference-rev5; do
  check "chart $c" test -s "$A/charts/$c.png"
done
check "Markdown links the charts as PNG" grep -q '](charts/ms-per-step.png)' "$A/report.md"

# ---- workbook: LibreOffice -> CSV == statistics from run.db --------------------
if need soffice; then
  mkdir -p "$TMP/lo" "$TMP/lohome"
  HOME=$TMP/lohome timeout 180 soffice --headless --norestore --nolockcheck \
    --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,2' \
    --outdir "$TMP/lo" "$A/report.xlsx" >"$TMP/lo.out" 2>&1
  csv=$(ls "$TMP"/lo/*.csv 2>/dev/null | head -1)
  check "LibreOffice opens report.xlsx and converts Summary (sheet 2, after Answer) to CSV" test -n "$csv" -a -s "${csv:-/nonexistent}"
  if [ -n "$csv" ]; then
    python3 - "$csv" "$PUB/run.db" >"$TMP/cmp.out" 2>&1 <<'PY'
import csv, sqlite3, sys
MODEL = {"SegmentAnything": "sam", "StableDiffusion": "sd", "BERT": "bert", "Gemma": "gemma",
         "Mistral": "mistral", "MLP (NumPy)": "mlp"}
BACKEND = {"PyTorch (eager)": "torch-eager", "PyTorch (compiled)": "torch-compiled",
           "Keras 2 (TensorFlow)": "keras2-tensorflow", "Keras 3 (TensorFlow)": "keras3-tensorflow",
           "Keras 3 (JAX)": "keras3-jax", "Keras 3 (PyTorch)": "keras3-torch", "NumPy (CPU reference)": "numpy"}
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
db = sqlite3.connect(sys.argv[2])
# the statistic the Summary shows: mean of the timed steps, in ms, per cell
mean = dict(((m, t, b, be), v) for m, t, b, be, v in db.execute(
    "SELECT c.model, c.task, c.batch, c.backend, AVG(s.ns) / 1e6 FROM cells c JOIN samples s "
    "ON s.cell_id = c.id AND s.phase = 'timed' WHERE c.status = 'ok' GROUP BY c.id"))
status = dict(((m, t, b, be), s) for m, t, b, be, s in db.execute(
    "SELECT model, task, batch, backend, status FROM cells"))
head_i = next(i for i, r in enumerate(rows) if r and r[0] == "Model (task)")
head = rows[head_i]
checked = bad = 0
for r in rows[head_i + 1:]:
    if not r or not r[0]:
        break
    name, task = r[0].rsplit(" (", 1)
    model, task, batch = MODEL[name], task.rstrip(")"), int(r[1])
    k3 = []
    for col, text in zip(head[2:], r[2:]):
        if col == "Keras 3 (best)":
            want = min(k3) if k3 else None
        else:
            key = (model, task, batch, BACKEND[col])
            want = mean.get(key)
            if want is not None and BACKEND[col].startswith("keras3-"):
                k3.append(want)
        checked += 1
        if want is None:
            st = status.get((model, task, batch, BACKEND.get(col, ""))) or "missing"
            if col == "Keras 3 (best)" or text == "NA (%s)" % st:
                continue
            print("cell %s %s: %r, expected NA (%s)" % (r[0], col, text, st)); bad += 1
            continue
        try:
            got = float(text)
        except ValueError:
            print("cell %s %s: %r is not a number (expected %.6f)" % (r[0], col, text, want)); bad += 1
            continue
        if abs(got - want) > 1e-9 * max(1.0, abs(want)):
            print("cell %s %s: %.12g != %.12g" % (r[0], col, got, want)); bad += 1
print("checked %d cells, %d differ" % (checked, bad))
sys.exit(1 if bad or checked < 72 else 0)
PY
    rc=$?
    cat "$TMP/cmp.out" | sed 's/^/# /'
    check "Summary values (via LibreOffice) equal the statistics in run.db" test "$rc" -eq 0
  fi
fi

# ---- PDF: pdfinfo, pdftoppm ------------------------------------------------------
if need pdfinfo && need pdftoppm; then
  pdfinfo "$A/report.pdf" >"$TMP/pdfinfo.out" 2>&1
  check "pdfinfo accepts report.pdf" test $? -eq 0
  pages=$(sed -n 's/^Pages: *//p' "$TMP/pdfinfo.out")
  check "report.pdf has several pages (${pages:-0})" test "${pages:-0}" -ge 5
  check "PDF creation date is the run's" grep -q "CreationDate: *Wed Apr  3 12:00:00 2024" "$TMP/pdfinfo.out"
  check "PDF title names the run" grep -q "Title: *Benchmark report: published-a100" "$TMP/pdfinfo.out"
  pdftoppm -r 40 -png "$A/report.pdf" "$TMP/page" >"$TMP/pdftoppm.out" 2>&1
  rc=$?
  n=$(ls "$TMP"/page-*.png 2>/dev/null | wc -l)
  check "pdftoppm renders every page ($n)" test "$rc" -eq 0 -a "$n" -eq "${pages:-0}"
  check "pdftoppm reports no errors" test ! -s "$TMP/pdftoppm.out"
  pdfinfo "$A/charts/heatmap.pdf" >/dev/null 2>&1
  check "chart PDFs pass pdfinfo" test $? -eq 0
fi

# ---- HTML: headless Chromium -------------------------------------------------------
chrome() { # chrome ARGS... : headless, no sandbox (root in CI), logs on stderr; 240 s (one launch does the DOM and the screenshot)
  timeout 240 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$TMP/chrome-profile" --enable-logging=stderr --v=0 "$@"
}
if need chromium; then
  # one launch: the loaded DOM on stdout and a screenshot of the page
  chrome --window-size=1280,5200 --hide-scrollbars --screenshot="$TMP/shot.png" \
    --dump-dom "file://$(cd "$A" && pwd)/report.html" >"$TMP/dom.html" 2>"$TMP/chrome.err"
  check "Chromium loads report.html" test $? -eq 0 -a -s "$TMP/dom.html"
  if grep -q ":CONSOLE" "$TMP/chrome.err"; then
    grep ":CONSOLE" "$TMP/chrome.err" | head -5 | sed 's/^/# /'
    not_ok "report.html loads without console errors"
  else
    ok "report.html loads without console errors"
  fi
  check "the loaded DOM holds inline SVG charts" grep -q "<svg" "$TMP/dom.html"
  check "Chromium takes a screenshot" test -s "$TMP/shot.png"
  # the ms/step chart's bars are drawn in the backends' palette colours: count them
  python3 "$(dirname "$0")/png_palette.py" "$TMP/shot.png" 300 "wine=136,34,85" "rose=204,102,119" "teal=68,170,153" >"$TMP/shot.out" 2>&1
  rc=$?
  sed 's/^/# /' "$TMP/shot.out"
  check "the screenshot shows the charts (bars in the backend colours)" test "$rc" -eq 0
fi

# ---- escaping: <script> and quotes in run metadata -----------------------------------
T=$TMP/tricky
"$BENCHGEN" report "$TRICKY" --out "$T" --reference "$REF" -q >/dev/null 2>"$TMP/tricky.err"
check "report of the tricky fixture exits 0" test $? -eq 0
check "HTML: the one <script> is report.js (no injected tag)" sh -c "test \$(grep -o '<script' '$T/report.html' | wc -l) -eq 1 && grep -q '<script>/\* report.js' '$T/report.html'"
check "HTML: run name escaped" grep -q 'tricky&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&#39;q&#39;' "$T/report.html"
check "HTML: package version escaped" grep -q '1.26.4&quot;&lt;script&gt;alert(&#39;pkg&#39;)' "$T/report.html"
check "HTML: states that the hardware differs" grep -q "The hardware differs" "$T/report.html"
python3 - "$T/report.md" >"$TMP/md.out" 2>&1 <<'PY'
import re, sys
code = False
bad = 0
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        code = not code
        continue
    if not code and re.search(r"(?<!\\)<script", line):
        print("unescaped:", line.strip()); bad += 1
sys.exit(1 if bad else 0)
PY
check "Markdown: every <script> outside code blocks is escaped" test $? -eq 0
check "Markdown: package version escaped" grep -qF "1.26.4\"\\<script\\>alert('pkg')\\</script\\>" "$T/report.md"
unzip_cat() { # unzip_cat ZIP PREFIX: every entry whose name starts with PREFIX, concatenated
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
sys.stdout.write("".join(z.read(n).decode("utf-8") for n in sorted(z.namelist()) if n.startswith(sys.argv[2])))' "$1" "$2"
}
unzip_cat "$T/report.xlsx" xl/sharedStrings.xml >"$TMP/sst.xml"
check "XLSX: no raw <script> in the strings" sh -c "! grep -q '<script' '$TMP/sst.xml'"
check "XLSX: package version escaped" grep -qF "1.26.4\"&lt;script&gt;alert('pkg')" "$TMP/sst.xml"
unzip_cat "$A/report.xlsx" xl/worksheets/ >"$TMP/sheets.xml"
check "XLSX: sheets read back" test -s "$TMP/sheets.xml"
check "XLSX: no NaN or Inf anywhere" sh -c "! grep -qiE '<v>-?(nan|inf)' '$TMP/sheets.xml'"
if need pdftotext; then
  pdftotext "$T/report.pdf" "$TMP/tricky.txt"
  check "PDF: the name is drawn as plain text, tag and quotes included" \
    grep -qF "tricky<script>alert(\"name\")</script>'q'" "$TMP/tricky.txt"
fi
if command -v chromium >/dev/null 2>&1; then
  chrome --dump-dom "file://$(cd "$T" && pwd)/report.html" >"$TMP/tdom.html" 2>"$TMP/tchrome.err"
  check "tricky HTML: no script element in the loaded DOM but report.js" sh -c "test \$(grep -o '<script' '$TMP/tdom.html' | wc -l) -eq 1"
  check "tricky HTML: no console messages" sh -c "! grep -q ':CONSOLE' '$TMP/tchrome.err'"
fi

finish
