#!/usr/bin/env bash
# The report's side-by-side of the two methods (gen/report/methods.c): a spec
# with `method: [published, corrected]` runs each cell twice; the Method
# section lists each such cell once, with each method's mean ms/step equal to
# run.db's, their ratio, and the per-cell table of method.* facts that differ.
# Needs the `base` environment (numpy); a few seconds.
set -u
. "$(dirname "$0")/lib.sh"

"$BENCHGEN" run tests/specs/both-methods.yaml --out "$TMP/run" >"$TMP/run.out" 2>&1
check "a both-methods run exits 0" test $? -eq 0
check "both method cells ran" test "$(grep -c ' ok ' "$TMP/run.out")" -eq 2
"$BENCHGEN" report "$TMP/run" --out "$TMP/rep" -q
check "report exits 0" test $? -eq 0
MD=$TMP/rep/report.md
check "the Method section has the side-by-side table" grep -q '^### Published vs corrected, side by side' "$MD"
check "and the per-cell difference table" grep -q '^### What differs per cell' "$MD"
check "side-by-side means and ratio equal run.db's" python3 - "$TMP/run/run.db" "$MD" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
mean = {}
for key, ms in db.execute("SELECT c.key, AVG(s.ns) / 1e6 FROM samples s JOIN cells c ON c.id = s.cell_id "
                          "WHERE s.phase = 'timed' GROUP BY c.key"):
    mean[key.split("@")[1]] = ms
rows = [l for l in open(sys.argv[2]) if l.startswith("| mlp/predict/b64/numpy |")]
if len(rows) != 1:
    sys.exit("expected one side-by-side row, got %d" % len(rows))
cols = [c.strip() for c in rows[0].strip().strip("|").split("|")]
pub, cor, ratio = float(cols[1]), float(cols[2]), float(cols[3].rstrip("x"))
ok = abs(pub - mean["published"]) < 0.006 and abs(cor - mean["corrected"]) < 0.006
ok = ok and abs(ratio - mean["published"] / mean["corrected"]) < 0.006
sys.exit(0 if ok else "table %s %s %s, run.db %s" % (pub, cor, ratio, mean))
PY
check "report.json's methods: the side-by-side data, equal to run.db's" python3 - "$TMP/run/run.db" "$TMP/rep/report.json" "$MD" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
mean, status = {}, {}
for key, ms in db.execute("SELECT c.key, AVG(s.ns) / 1e6 FROM samples s JOIN cells c ON c.id = s.cell_id "
                          "WHERE s.phase = 'timed' GROUP BY c.key"):
    mean[key] = ms
m = json.load(open(sys.argv[2]))["methods"]
if len(m) != 1:
    sys.exit("expected one methods entry, got %d" % len(m))
e = m[0]
want = {"cell": "mlp/predict/b64/numpy", "model": "mlp", "task": "predict", "batch": 64, "backend": "numpy"}
bad = ["%s: %r != %r" % (k, e.get(k), v) for k, v in want.items() if e.get(k) != v]
for side in ("published", "corrected"):
    s = e[side]
    key = "mlp/predict/b64/numpy@" + side
    if s["key"] != key or s["status"] != "ok" or s["repeats_ok"] != 1:
        bad.append("%s: %r" % (side, s))
    if abs(s["mean_ms"] - mean[key]) > 1e-9 * mean[key]:
        bad.append("%s mean_ms %r, run.db %r" % (side, s["mean_ms"], mean[key]))
ratio = mean["mlp/predict/b64/numpy@published"] / mean["mlp/predict/b64/numpy@corrected"]
if abs(e["ratio"] - ratio) > 1e-9 * ratio:
    bad.append("ratio %r, run.db %r" % (e["ratio"], ratio))
lo, hi = e["ratio_ci95"]
if not lo <= e["ratio"] <= hi:
    bad.append("ratio %r outside its interval %r" % (e["ratio"], e["ratio_ci95"]))
# the report shows the same numbers (to its two decimals)
row = [l for l in open(sys.argv[3]) if l.startswith("| mlp/predict/b64/numpy |")][0]
cols = [c.strip() for c in row.strip().strip("|").split("|")]
if cols[3] != "%.2fx" % e["ratio"] or cols[4] != "%.2f-%.2fx" % (lo, hi):
    bad.append("report row %r against report.json %r" % (cols, e))
sys.exit("\n".join(bad) if bad else 0)
PY

# same_work: true exactly when no method.* fact differs between the two cells
# (computed here from run.db); and when it is, the report says the ratio is
# two processes' difference. The NumPy mlp does the same work under both
# methods; a copy of the run whose corrected cell records one method.* fact
# differently does not.
same_work_of() { # RUN_DB: no method.* fact differs, from run.db alone
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
f = {"published": {}, "corrected": {}}
for key, name, value in db.execute("SELECT c.key, f.name, f.value FROM facts f JOIN cells c ON c.id = f.cell_id "
                                   "WHERE f.name LIKE 'method.%'"):
    f[key.rsplit("@", 1)[1]][name] = value
print("true" if f["published"] == f["corrected"] else "false")
PY
}
check "same_work is true for the mlp, as run.db's facts say" \
  test "$(jget "$TMP/rep/report.json" "str(d['methods'][0]['same_work']).lower()")/$(same_work_of "$TMP/run/run.db")" = true/true
check "the report says the ratio is two processes' difference, with the ratio" \
  grep -q "^1 of these cells did the same work under both methods.*its ratio, $(jget "$TMP/rep/report.json" "'%.2f' % d['methods'][0]['ratio']")x, is the difference between two processes" "$MD"
check "same work: no row in What differs per cell" bash -c '! grep -q "^| mlp/predict/b64/numpy | " <(sed -n "/^### What differs per cell/,\$p" "$1")' _ "$MD"
cp -r "$TMP/run" "$TMP/differ"
sqlite3 "$TMP/differ/run.db" "INSERT OR REPLACE INTO facts(cell_id, name, value)
  SELECT id, 'method.sync', 'something else' FROM cells WHERE key LIKE '%@corrected';"
"$BENCHGEN" report "$TMP/differ" --out "$TMP/rep-differ" --format md -q
check "a method fact differs: same_work is false, as run.db's facts say" \
  test "$(jget "$TMP/rep-differ/report.json" "str(d['methods'][0]['same_work']).lower()")/$(same_work_of "$TMP/differ/run.db")" = false/false
check "a method fact differs: no same-work sentence" bash -c '! grep -q "did the same work under both methods" "$1"' _ "$TMP/rep-differ/report.md"
check "a method fact differs: its row in What differs per cell" bash -c 'sed -n "/^### What differs per cell/,\$p" "$1" | grep -q "^| mlp/predict/b64/numpy | sync | "' _ "$TMP/rep-differ/report.md"

# A run with one method: report.json's methods is empty (the report has no side-by-side).
"$BENCHGEN" run tests/specs/both-methods.yaml --only method=corrected --out "$TMP/one" >"$TMP/one.out" 2>&1
"$BENCHGEN" report "$TMP/one" --out "$TMP/rep1" --format md -q
check "one method: report.json's methods is []" test "$(jget "$TMP/rep1/report.json" "d['methods']")" = "[]"
check "one method: no side-by-side table" bash -c '! grep -q "^### Published vs corrected" "$1"' _ "$TMP/rep1/report.md"
finish
