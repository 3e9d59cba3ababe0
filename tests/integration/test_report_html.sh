#!/usr/bin/env bash
# report.html as a reader uses it (docs/REPORT.md, "HTML"), in headless
# Chromium: one self-contained file whose only script is report.js, pinned by
# its Content-Security-Policy hash; every table of several rows sorts by a
# click (numbers by value, NA last); every in-page link (a cell's name ->
# its log) resolves; every bar and point of the inline charts has a <title>
# hover value, and the pointer on a bar finds it; dark mode and the printed A4 PDF keep the Summary whole.
set -u
. "$(dirname "$0")/lib.sh"

PUB=tests/fixtures/runs/published
"$BENCHGEN" report "$PUB" --out "$TMP/r" --format html -q >/dev/null 2>"$TMP/r.err"
check "report --format html exits 0" test $? -eq 0
H=$TMP/r/report.html

python3 - "$H" >"$TMP/static.out" 2>&1 <<'PY'
import base64, hashlib, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
bad = []
scripts = re.findall(r"<script([^>]*)>(.*?)</script>", s, re.S)
if len(scripts) != 1 or scripts[0][0]:
    bad.append("%d script elements (want one inline)" % len(scripts))
else:
    h = base64.b64encode(hashlib.sha256(scripts[0][1].encode()).digest()).decode()
    if "script-src &#39;sha256-%s&#39;" % h not in s:
        bad.append("the CSP does not pin the script's hash %s" % h)
if re.search(r'(src|href)="(https?:)?//', s):
    bad.append("an external resource")
ids = set(re.findall(r' id="([^"]+)"', s))
links = re.findall(r'href="#([^"]+)"', s)
missing = sorted({l for l in links if l not in ids})
if missing:
    bad.append("links to missing anchors: %s" % missing[:5])
tables = re.findall(r"<table[^>]*>.*?</table>", s, re.S)
nsort = sum('class="sortable"' in t[:40] for t in tables)
multi = sum(t.count("<tr>") > 2 for t in tables)
if nsort != multi:
    bad.append("%d sortable tables of %d with several rows" % (nsort, multi))
stats = [t for t in tables if "Compile (first call) ms" in t][0]
nlog = len(re.findall(r'<td><a href="#log-', stats))
if nlog != 72:
    bad.append("%d of 72 Statistics rows link their cell's log" % nlog)
for b in bad:
    print(b)
print("%d links, %d tables (%d sortable), %d cell-log links" % (len(links), len(tables), nsort, nlog))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/static.out"
check "one inline script pinned by the CSP, no external resource, every link resolves, tables sortable" test $rc -eq 0

# a hover value on every bar and point: the inline SVG's <title>s
python3 - "$H" "$TMP/r/report.json" >"$TMP/hover.out" 2>&1 <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
cells = json.load(open(sys.argv[2]))["cells"]
figs = dict(re.findall(r'<figure id="([^"]+)">(.*?)</figure>', s, re.S))
bad = []
def titles(name):
    return re.findall(r"<rect [^>]*><title>([^<]*)</title></rect>", figs.get(name, ""))
for name in ("fig-ms-per-step", "fig-heatmap"):
    t = titles(name)
    if len(t) != len(cells):
        bad.append("%s: %d hover values for %d cells" % (name, len(t), len(cells)))
bars = " | ".join(titles("fig-ms-per-step"))
for c in cells:
    want = ("%s ms/step" % format(c["stats"]["mean_ms"], ",.2f")) if c["status"] == "ok" else "NA"
    if want not in bars:
        bad.append("%s: no hover value %r" % (c["key"], want))
for name, body in figs.items():
    if "<svg" in body and not titles(name) and "cells-" not in name:
        bad.append("%s: no hover values" % name)
for b in bad[:10]:
    print(b)
print("%d figures, %d hover values" % (len(figs), sum(len(titles(n)) for n in figs)))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/hover.out"
check "every bar and point of the inline charts has a <title> hover value (each cell's mean in the ms/step chart)" test $rc -eq 0

chrome() { # chrome ARGS...: headless, no sandbox (root in CI)
  timeout 300 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$TMP/chrome-profile" --enable-logging=stderr --v=0 "$@"
}
if ! command -v chromium >/dev/null 2>&1; then
  not_ok "chromium is installed (run scripts/install-report-deps.sh)"
  finish
fi
# one launch: the loaded DOM on stdout and the page printed to an A4 PDF (checked below)
chrome --no-pdf-header-footer --print-to-pdf="$TMP/print.pdf" --dump-dom "file://$H" >"$TMP/dom.html" 2>"$TMP/chrome.err"
check "Chromium loads report.html" test -s "$TMP/dom.html"
check "no console message (a CSP refusal would be one)" sh -c "! grep -q ':CONSOLE' '$TMP/chrome.err'"
check "report.js ran: column heads are focusable" grep -q '<th[^>]*tabindex="0"' "$TMP/dom.html"

# sorting: a copy whose extra script (allowed by dropping the CSP) clicks the
# Summary's "Keras 3 (JAX)" head once and the Batch head twice
python3 - "$H" "$TMP/click.html" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", s)
s = s.replace("</body>", """<script>
var t = document.querySelector("#summary table.sortable");
var h = t.tHead.rows[0].cells;
for (var i = 0; i < h.length; i++) if (h[i].textContent === "Keras 3 (JAX)") h[i].click();
var d = document.querySelectorAll("#summary table.sortable")[1];
d.tHead.rows[0].cells[1].click(); d.tHead.rows[0].cells[1].click();
var bar = document.querySelector("#fig-ms-per-step g.hover rect");
bar.scrollIntoView();
var b = bar.getBoundingClientRect();
var hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
document.body.setAttribute("data-hover", hit && hit.firstChild ? hit.firstChild.textContent : "none");
</script></body>""")
open(sys.argv[2], "w", encoding="utf-8").write(s)
PY
chrome --dump-dom "file://$TMP/click.html" >"$TMP/sorted.html" 2>/dev/null
python3 - "$TMP/sorted.html" >"$TMP/sorted.out" 2>&1 <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
sec = s[s.index('<section id="summary">'):]
tables = re.findall(r"<table.*?</table>", sec, re.S)
def column(t, k):
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", t.split("<tbody>")[1], re.S):
        td = re.findall(r"<td([^>]*)>", row)[k]
        m = re.search(r'data-v="([^"]+)"', td)
        out.append(float(m.group(1)) if m else None)
    return out
head = re.findall(r"<th[^>]*>(.*?)</th>", tables[0])
k = head.index("Keras 3 (JAX)")
jax = column(tables[0], k)
nums = [v for v in jax if v is not None]
ok1 = nums == sorted(nums) and jax[len(nums):] == [None] * (len(jax) - len(nums)) and 'aria-sort="ascending"' in tables[0]
batch = column(tables[1], 1)
ok2 = batch == sorted(batch, reverse=True) and 'aria-sort="descending"' in tables[1]
print("Keras 3 (JAX) ascending, NA last:", ok1, jax)
print("Batch descending after two clicks:", ok2, batch)
hover = re.search(r'<body[^>]* data-hover="([^"]*)"', s)
ok3 = bool(hover) and hover.group(1).startswith("SegmentAnything (fit), batch 1, PyTorch (eager): 1,304.59 ms/step [")
print("under the pointer on the first ms/step bar:", ok3, hover.group(1) if hover else None)
sys.exit(0 if ok1 and ok2 and ok3 else 1)
PY
rc=$?
sed 's/^/# /' "$TMP/sorted.out"
check "a click sorts by value (NA last), a second click reverses; the pointer on a bar finds its hover value" test $rc -eq 0

# dark mode and print: screenshots and an A4 PDF to look at, checked for what a reader needs
chrome --force-dark-mode --blink-settings=preferredColorScheme=0 --window-size=1280,2000 --hide-scrollbars \
  --screenshot="$TMP/dark.png" "file://$H" >/dev/null 2>&1
check "Chromium takes a dark-mode screenshot" test -s "$TMP/dark.png"
check "Chromium prints report.html to PDF" test -s "$TMP/print.pdf"
if command -v pdftotext >/dev/null 2>&1; then
  pdftotext -layout "$TMP/print.pdf" "$TMP/print.txt"
  # the Summary's header row and a full data row, all 9 columns on one line
  check "printed: the Summary keeps every column (header)" \
    grep -qE 'Model \(task\) +Batch +PyTorch \(eager\) .*Keras 3 \(PyTorch\) +Keras 3 \(best\)' "$TMP/print.txt"
  check "printed: a Summary row keeps its last column (Keras 3 (best))" \
    grep -qE 'SegmentAnything \(predict\) +4 +1,572\.12 +1,469\.84 +1,857\.97 +437\.88 +378\.37 +1,728\.97 +378\.37' "$TMP/print.txt"
fi
[ -n "${KEEP_SHOTS:-}" ] && cp "$TMP/dark.png" "$TMP/print.pdf" "$KEEP_SHOTS/"
finish
