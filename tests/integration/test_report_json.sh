#!/usr/bin/env bash
# report.json and summary.csv beside the documents, throughput, and the
# workbook's print setup (docs/REPORT.md, docs/RUN-FORMAT.md):
#   - both files are byte-reproducible (two renders, 1 and 2 processes);
#   - every statistic, status and environment in report.json equals
#     `benchgen show --json`; every row's mean equals AVG(ns)/1e6 in run.db;
#     summary.csv holds exactly show --json's means, blank for NA;
#   - throughput = work per step / mean step time, in the task's unit;
#   - report.xlsx prints sensibly: every visible sheet A4 landscape, one page
#     wide, a print area and repeated header rows (read from the XLSX XML),
#     and LibreOffice prints the 72-cell workbook in at most 20 pages.
set -u
. "$(dirname "$0")/lib.sh"

PUB=tests/fixtures/runs/published
TRICKY=tests/fixtures/runs/tricky

"$BENCHGEN" report "$PUB" --out "$TMP/a" --format xlsx -q >/dev/null 2>"$TMP/a.err"
check "report of the published fixture exits 0" test $? -eq 0
"$BENCHGEN" report "$PUB" --out "$TMP/b" --format md --jobs 1 -q >/dev/null 2>"$TMP/b.err"
check "second render (--format md, 1 process) exits 0" test $? -eq 0
for f in report.json summary.csv; do
  check "$f written" test -s "$TMP/a/$f"
  check "$f: same bytes on every render" cmp -s "$TMP/a/$f" "$TMP/b/$f"
done
"$BENCHGEN" show "$PUB" --json >"$TMP/show.json"
check "show --json exits 0" test $? -eq 0

compare() { # compare RUN_DIR REPORT_DIR SHOW_JSON: report.json + summary.csv against show --json and run.db
  python3 - "$1/run.db" "$2/report.json" "$2/summary.csv" "$3" <<'PY'
import csv, json, math, sqlite3, sys
db, rep, summ, show = sys.argv[1:]
r = json.load(open(rep))
s = json.load(open(show))
bad = []
assert r["format"] == "benchgen-report/1", r["format"]
scells = {c["key"]: c for c in s["cells"]}
if [c["key"] for c in r["cells"]] != [c["key"] for c in s["cells"]]:
    bad.append("report.json cells are not show --json's, in plan order")
UNIT = {"fit": "samples/s", "predict": "samples/s", "generate": "tokens/s"}
for c in r["cells"]:
    sc = scells[c["key"]]
    for k in ("model", "task", "batch", "backend", "repeat", "status", "stats", "environment", "compile_ms",
              "precision", "steps", "warmup", "env", "size"):
        if c[k] != sc[k]:
            bad.append("%s: %s %r != show --json %r" % (c["key"], k, c[k], sc[k]))
    tp = c["throughput"]
    unit = "images/s" if c["model"] == "sd" else UNIT[c["task"]]
    if tp["unit"] != unit:
        bad.append("%s: unit %s, expected %s" % (c["key"], tp["unit"], unit))
    if c["stats"] and c["status"] == "ok":
        want = tp["per_step"] * 1000 / c["stats"]["mean_ms"]
        if abs(tp["mean"] - want) > 1e-9 * want:
            bad.append("%s: throughput %r != %r" % (c["key"], tp["mean"], want))
        lo, hi = tp["ci95"]
        if not lo <= tp["mean"] <= hi:
            bad.append("%s: throughput interval %r misses %r" % (c["key"], tp["ci95"], tp["mean"]))
    elif tp["mean"] is not None:
        bad.append("%s: throughput without a result" % c["key"])
# rows: the pooled mean of the ok repeats' timed steps, straight from run.db
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
mean = {}
for m, t, b, be, v in con.execute(
        "SELECT c.model, c.task, c.batch, c.backend, AVG(s.ns) / 1e6 FROM cells c JOIN samples s "
        "ON s.cell_id = c.id AND s.phase = 'timed' WHERE c.status = 'ok' GROUP BY c.model, c.task, c.batch, c.backend"):
    mean[(m, t, b, be)] = v
nrows = 0
for row in r["rows"]:
    for be, cell in row["backends"].items():
        key = (row["model"], row["task"], row["batch"], be)
        want = mean.get(key)
        got = cell["stats"]["mean_ms"] if cell["stats"] else None
        if (want is None) != (got is None) or (want is not None and abs(got - want) > 1e-12 * want):
            bad.append("row %s: mean %r, run.db %r" % (key, got, want))
        nrows += 1
# summary.csv: the published table's layout, show --json's means
rows = list(csv.reader(open(summ, newline="", encoding="utf-8")))
head = rows[0]
if head[:4] != ["model", "task", "batch", "label"]:
    bad.append("summary.csv header %r" % head[:4])
one = {}
for c in s["cells"]:
    if c["status"] == "ok" and c["stats"] and c["repeat"] == 1:
        one[(c["model"], c["task"], c["batch"], c["backend"])] = c["stats"]["mean_ms"]
ncsv = 0
for line in rows[1:]:
    m, t, b = line[0], line[1], int(line[2])
    k3 = []
    for be, text in zip(head[4:], line[4:]):
        want = min(k3) if be == "keras3-best" and k3 else None if be == "keras3-best" else one.get((m, t, b, be))
        if be.startswith("keras3-") and be != "keras3-best" and want is not None:
            k3.append(want)
        got = float(text) if text else None
        if got != want:
            bad.append("summary.csv %s/%s/b%d %s: %r != show --json %r" % (m, t, b, be, text, want))
        ncsv += 1
for b in bad[:20]:
    print(b)
print("compared %d cells, %d row cells, %d summary.csv values: %d differ" % (len(r["cells"]), nrows, ncsv, len(bad)))
sys.exit(1 if bad or not r["cells"] or not ncsv else 0)
PY
}
compare "$PUB" "$TMP/a" "$TMP/show.json" >"$TMP/cmp.out" 2>&1
rc=$?
sed 's/^/# /' "$TMP/cmp.out"
check "published: report.json and summary.csv equal show --json and run.db" test $rc -eq 0

"$BENCHGEN" report "$TRICKY" --out "$TMP/t" --format md -q >/dev/null 2>&1
check "report of the tricky fixture exits 0" test $? -eq 0
"$BENCHGEN" show "$TRICKY" --json >"$TMP/tshow.json"
compare "$TRICKY" "$TMP/t" "$TMP/tshow.json" >"$TMP/tcmp.out" 2>&1
rc=$?
sed 's/^/# /' "$TMP/tcmp.out"
check "tricky (a failed cell, hostile text): report.json and summary.csv equal show --json" test $rc -eq 0
check "tricky: the failed cell has null statistics and throughput" \
  test "$(jget "$TMP/t/report.json" '[(c["stats"], c["throughput"]["mean"]) for c in d["cells"] if c["status"] == "error"][0]')" = "(None, None)"

# ---- throughput in the documents ---------------------------------------------------
check "report.md has a throughput table in samples/s, tokens/s and images/s" \
  sh -c "grep -q '| BERT (fit) | 32 | samples/s |' '$TMP/b/report.md' && grep -q '| tokens/s |' '$TMP/b/report.md' && grep -q '| images/s |' '$TMP/b/report.md'"
want=$(python3 -c "import json; d=json.load(open('$TMP/show.json'))
c=[c for c in d['cells'] if c['key']=='bert/fit/b32/torch-eager'][0]
v=32000/c['stats']['mean_ms']
print(format(v, ',.%df' % (0 if v >= 100 else 1 if v >= 10 else 2 if v >= 1 else 3)))")
check "report.md: BERT (fit) torch-eager throughput is 32 / mean step ($want samples/s)" \
  grep -q "| BERT (fit) | 32 | samples/s | $want |" "$TMP/b/report.md"

# ---- workbook print setup: XML and LibreOffice ---------------------------------------
python3 - "$TMP/a/report.xlsx" >"$TMP/print.out" 2>&1 <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
wb = z.read("xl/workbook.xml").decode()
rels = z.read("xl/_rels/workbook.xml.rels").decode()
target = dict(re.findall(r'Id="(rId\d+)"[^>]*Target="([^"]+)"', rels))
target.update({a: b for b, a in re.findall(r'Target="([^"]+)"[^>]*Id="(rId\d+)"', rels)})
names = re.findall(r'<definedName name="(_xlnm\.[A-Za-z_]+)" localSheetId="(\d+)">([^<]*)<', wb)
bad = 0
sheets = re.findall(r'<sheet name="([^"]+)" sheetId="\d+"( state="hidden")? r:id="(rId\d+)"', wb)
for i, (name, hidden, rid) in enumerate(sheets):
    if hidden:
        continue
    xml = z.read("xl/" + target[rid]).decode()
    have = {n for n, sid, _ in names if int(sid) == i}
    probs = []
    if 'orientation="landscape"' not in xml: probs.append("not landscape")
    if 'paperSize="9"' not in xml: probs.append("not A4")
    if '<pageSetUpPr fitToPage="1"/>' not in xml or 'fitToHeight="0"' not in xml: probs.append("not fit to width")
    if "_xlnm.Print_Area" not in have: probs.append("no print area")
    if "_xlnm.Print_Titles" not in have: probs.append("no repeated header rows")
    print("%-12s %s" % (name, ", ".join(probs) or "A4 landscape, one page wide, print area, header rows repeated"))
    bad += bool(probs)
sys.exit(1 if bad or len(sheets) < 8 else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/print.out"
check "report.xlsx: every visible sheet has the print setup" test $rc -eq 0
if command -v soffice >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1; then
  mkdir -p "$TMP/lo" "$TMP/lohome"
  HOME=$TMP/lohome timeout 300 soffice --headless --norestore --nolockcheck --convert-to pdf \
    --outdir "$TMP/lo" "$TMP/a/report.xlsx" >"$TMP/lo.out" 2>&1
  pages=$(pdfinfo "$TMP/lo/report.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
  echo "# LibreOffice prints the 72-cell workbook in ${pages:-?} pages"
  check "LibreOffice prints report.xlsx in 5 to 20 pages (${pages:-none})" test "${pages:-0}" -ge 5 -a "${pages:-99}" -le 20
else
  not_ok "soffice and pdfinfo are installed (run scripts/install-report-deps.sh)"
fi

finish
