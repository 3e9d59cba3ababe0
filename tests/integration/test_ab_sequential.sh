#!/usr/bin/env bash
# Sequential verdicts of `run --ab` (issue 22, item 1; stats/seqtest.h,
# run/abseq.c, compare/compare_seq.c) on real NumPy processes: a cell whose B
# does four times the work stops as `slower` (usually at the first look; on
# a heavily loaded machine it took 9 a side once, so any look passes: the
# early stop itself is checked deterministically by test_abseq.c); each arm's plan keeps only the processes that ran, both arms record
# how each cell stopped, and compare says it per cell. An A/A cell with a
# one-look design stops at the cap with compare's verdict the run's (its
# false-alarm rate is the unit tests' business, test_seqtest.c: one real
# A/A on a shared machine may be a false alarm by design). Also the options'
# bad input (exit 2, nothing created).
set -u
. "$(dirname "$0")/lib.sh"

cp data/calibration/extra_share.py "$TMP/"
cat >"$TMP/seq.yaml" <<'YAML'
name: seq-test
size: tiny
steps: 8
warmup: 1
timeout: 120
backends: [numpy]
rows:
  - {model: share, task: predict, batch: 1, workload: extra_share.py}
YAML

# ---- a large change: stops at the first look --------------------------------
"$BENCHGEN" run "$TMP/seq.yaml" --ab --b-env BENCHGEN_EXTRA_SHARE=3 --first 3 --cap 9 --out "$TMP/big" \
  >"$TMP/big.out" 2>"$TMP/big.err"
rc=$?
check "run --ab with B doing 4x the work exits 0" test "$rc" -eq 0
check "it announces the sequential design" grep -q "sequential verdicts: 3 processes a side first" "$TMP/big.err"
"$BENCHGEN" compare "$TMP/big" --json >"$TMP/big.json" 2>/dev/null
rc=$?
check "compare exits 3 (slower)" test "$rc" -eq 3
python3 - "$TMP/big.json" "$TMP/big" <<'PY' >"$TMP/big.check" 2>&1
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][0]["cells"][0]
bad = []
s = c["sequential"]
if c["verdict"] != "slower": bad.append("verdict %s (%s)" % (c["verdict"], c["why"]))
n = c["processes_a"]
if not s or s["looks"] != 4 or not s["look"]: bad.append("sequential %s" % s)
if not s or not (s["stopped"] or "").startswith("slower; %d processes a side" % n): bad.append("stopped %r" % (s or {}).get("stopped"))
if n not in (3, 5, 7, 9) or c["processes_b"] != n: bad.append("processes %s/%s" % (n, c["processes_b"]))
for arm in "ab":
    db = sqlite3.connect("file:%s/%s/run.db?mode=ro" % (sys.argv[2], arm), uri=True)
    rows, pending = db.execute("SELECT count(*), sum(status IS NULL) FROM cells").fetchone()
    notes = dict(db.execute("SELECT key, value FROM environment WHERE cell_id = 0 AND key LIKE 'run.seq.%'"))
    if rows != c["processes_a"] or pending: bad.append("arm %s: %d planned cells, %s pending (want %d, none pending)" % (arm, rows, pending, c["processes_a"]))
    if "run.seq.design" not in notes or not notes.get("run.seq.cell.share/predict/b1/numpy", "").startswith("slower"):
        bad.append("arm %s notes %s" % (arm, notes))
print("\n".join(bad) or "slower at look %s of 4, %d processes a side, plans trimmed, notes in both arms" % (s["look"], n))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/big.check"
check "slower at a look (3, 5, 7 or 9 a side), the plans hold only what ran, both arms say why" test "$rc" -eq 0
"$BENCHGEN" compare "$TMP/big" >"$TMP/big.txt" 2>/dev/null
check "compare's text says how the cell stopped" grep -qE "\[sequential run: slower; [3579] processes a side\]" "$TMP/big.txt"

# ---- a forged design note: a clear error, exit 2, the runs untouched ---------
sum_before=$(cat "$TMP/big/a/run.db" "$TMP/big/b/run.db" | sha256sum)
for forged in "first 3, step 1, cap 999, effect 5%, alpha 0.05, spending pocock, noise 2%" \
              "<script>alert(1)</script>"; do
  rm -rf "$TMP/forged" && cp -r "$TMP/big" "$TMP/forged"
  for arm in a b; do
    python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE environment SET value = ? WHERE cell_id = 0 AND key = ?", (sys.argv[2], "run.seq.design")); db.commit()' \
      "$TMP/forged/$arm/run.db" "$forged"
  done
  "$BENCHGEN" compare "$TMP/forged" >"$TMP/forged.out" 2>"$TMP/forged.err"
  rc=$?
  check "a forged run.seq.design ('${forged:0:24}...'): exit 2" test "$rc" -eq 2
  check "... saying which note cannot be read" grep -q "sequential design (run.seq.design)" "$TMP/forged.err"
done
check "the original runs are untouched" test "$(cat "$TMP/big/a/run.db" "$TMP/big/b/run.db" | sha256sum)" = "$sum_before"

# ---- A/A: stops at the cap, compare agrees with the run -----------------------
"$BENCHGEN" run "$TMP/seq.yaml" --ab --first 3 --cap 3 --effect 50 --out "$TMP/aa" >"$TMP/aa.out" 2>"$TMP/aa.err"
rc=$?
check "run --ab A/A exits 0" test "$rc" -eq 0
"$BENCHGEN" compare "$TMP/aa" --json >"$TMP/aa.json" 2>/dev/null
rc=$?
check "compare of the A/A exits 0 or 3" test "$rc" -eq 0 -o "$rc" -eq 3
python3 - "$TMP/aa.json" <<'PY' >"$TMP/aa.check" 2>&1
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]["cells"][0]
s = c["sequential"] or {}
bad = []
stop = (s.get("stopped") or "").split(";")[0]
want = {"same": "same", "slower": "slower", "faster": "faster", "undecided": "ambiguous"}.get(stop)
if c["verdict"] != want: bad.append("verdict %s, the run stopped %r" % (c["verdict"], s.get("stopped")))
if c["processes_a"] != 3 or c["processes_b"] != 3: bad.append("processes %s/%s" % (c["processes_a"], c["processes_b"]))
if s.get("look") != 1 or s.get("looks") != 1: bad.append("sequential %s" % s)
print("\n".join(bad) or "%s after %d a side: %s" % (c["verdict"], c["processes_a"], s.get("stopped")))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/aa.check"
check "the A/A cell stops at the cap (3 a side) and compare's verdict is the run's" test "$rc" -eq 0

# ---- bad input -------------------------------------------------------------------
"$BENCHGEN" run "$TMP/seq.yaml" --ab --first 6 --cap 4 --out "$TMP/bad1" >/dev/null 2>"$TMP/bad1.err"
rc=$?
check "a cap below the first batch: exit 2" test "$rc" -eq 2
check "... and nothing created" test ! -e "$TMP/bad1"
"$BENCHGEN" run "$TMP/seq.yaml" --ab --repeats 4 --cap 8 --out "$TMP/bad2" >/dev/null 2>"$TMP/bad2.err"
check "--repeats with --cap: exit 2" test $? -eq 2
"$BENCHGEN" run "$TMP/seq.yaml" --ab --effect 0 --out "$TMP/bad3" >/dev/null 2>"$TMP/bad3.err"
check "--effect 0: exit 2" test $? -eq 2
printf 'ab_effect: 150%%\n' >>"$TMP/seq.yaml"
"$BENCHGEN" run "$TMP/seq.yaml" --ab --out "$TMP/bad4" >/dev/null 2>"$TMP/bad4.err"
check "spec ab_effect 150%: exit 2" test $? -eq 2
check "... with file:line:col" grep -qE 'seq\.yaml:[0-9]+:[0-9]+: ab_effect' "$TMP/bad4.err"
finish
