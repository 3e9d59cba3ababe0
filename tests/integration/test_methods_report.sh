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
finish
