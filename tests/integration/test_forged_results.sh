#!/usr/bin/env bash
# Result files of cells that ran elsewhere are checked before they merge
# (issue 26, "Why" 1, 6 and 9): every forgery the probe found is reproduced
# here as written and must end quarantined (kept under cells/ID/quarantine/,
# its reason on stderr and in run.db) or refused, with the stored results
# unchanged, while good files beside it still merge. Also: a FIFO, a link or
# a directory among a cell's results hangs nothing; `benchgen cell` runs the
# plan in run.db, not an edited cells/plan.json; a workload that writes a
# result for another cell of its run changes nothing. Needs `base` (numpy)
# and the openssl command (to sign as an attacker holding an issued key).
set -u
. "$(dirname "$0")/lib.sh"
FORGE="python3 $ROOT/tests/integration/forge_result.py"

RUN=$TMP/run
"$BENCHGEN" run tests/specs/forged.yaml --out "$RUN" --cpus-per-cell 1 >"$TMP/run.out" 2>&1
check "a two-cell run through local slots exits 0" test $? -eq 0
G1=$(ls "$RUN"/cells/1/*.json)
G2=$(ls "$RUN"/cells/2/*.json)
T1=$(basename "$G1" .json)
check "each cell wrote one signed result file" \
  test -f "$G1" -a -f "$G2" -a "$(jget "$G1" 'len(d["signature"])')" = 128

# What merging may never change: every cell's status, detail, attempts,
# samples and facts.
stored() {
  sqlite3 "$RUN/run.db" "SELECT id, status, detail, attempts FROM cells ORDER BY id;
    SELECT cell_id, phase, idx, ns FROM samples ORDER BY 1, 2, 3;
    SELECT cell_id, name, value FROM facts ORDER BY 1, 2;" | sha256sum
}
BEFORE=$(stored)

# An attacker's own key, made an issued attempt of cell 1 in run.db: the
# strongest forger (one who could sign) still cannot merge what the plan
# rules out.
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
PUB=$($FORGE pub "$TMP/key.pem")
# (A prefix, as for a Slurm submission: lsigned.1, lsigned.2, ... all match.)
sqlite3 "$RUN/run.db" "INSERT INTO issued(cell_id, seq, tag, pubkey) VALUES (1, 9, 'lsigned.', '$PUB'),
  (2, 9, 'lsigned.', '$PUB')"
n=0
signed() { # signed SRC FIELD=JSON...: a signed forgery of SRC as attempt lsigned.N, file name in $f
  n=$((n + 1))
  f=lsigned.$n.json
  local src=$1; shift
  $FORGE edit "$src" "$(dirname "$src")/$f" --sign "$TMP/key.pem" tag="\"lsigned.$n\"" "$@"
}

# collect_refuses NAME CELL FILE REASON: collect (bounded by timeout) exits
# 1, says it quarantined FILE for REASON, keeps it under quarantine/, notes
# it in run.db, and the stored results are unchanged.
collect_refuses() {
  local name=$1 id=$2 file=$3 reason=$4 rc
  timeout 30 "$BENCHGEN" collect "$RUN" >"$TMP/c.out" 2>"$TMP/c.err"
  rc=$?
  if [ $rc -eq 1 ] && grep -q "quarantined .*/cells/$id/$file.*$reason" "$TMP/c.err" &&
     [ -e "$RUN/cells/$id/quarantine/$file" ] && [ ! -e "$RUN/cells/$id/$file" ] &&
     [ "$(sqlite3 "$RUN/run.db" "SELECT count(*) FROM quarantine WHERE cell_id = $id AND file = '$file'")" = 1 ] &&
     [ "$(stored)" = "$BEFORE" ]; then
    ok "$name: quarantined ($reason), stored results unchanged"
  else
    not_ok "$name: collect exit $rc, $(head -c 400 "$TMP/c.err")"
  fi
}

# 1. A copy of a genuine result, timed_ns [-5, 0, 2^63-1], no warm-up,
#    a finished_ns far in the future.
$FORGE edit "$G1" "$RUN/cells/1/copy-huge.json" warmup_ns='[]' timed_ns='[-5, 0, 9223372036854775807]' \
  finished_ns=9000000000000000000
collect_refuses "copy with negative and huge samples" 1 copy-huge.json "signature is not that of attempt $T1"
signed "$G1" warmup_ns='[]' timed_ns='[-5, 0, 9223372036854775807]'
collect_refuses "signed, negative and huge samples" 1 "$f" "timed sample 0 is -5 ns"
signed "$G1" timed_ns='[1000, 1000, 9223372036854775807, 1000, 1000]'
collect_refuses "signed, one sample past the timeout" 1 "$f" "timed sample 2 is 9223372036854775807 ns"
signed "$G1" timed_ns='[1000, 1000, 1000]'
collect_refuses "signed, ok with 3 of 5 samples" 1 "$f" "status ok with 1 warm-up and 3 timed samples"

# 2. timed_ns [1.5, "NaN", 1e300, null, {}].
signed "$G1" timed_ns='[1.5, "NaN", 1e300, null, {}]'
collect_refuses "signed, samples that are not whole numbers" 1 "$f" "timed sample 0 is 1.5, not a whole number"
$FORGE edit "$G1" "$RUN/cells/1/nan.json" timed_ns='[1.5, "NaN", 1e300, null, {}]'
collect_refuses "a copy with samples that are not whole numbers" 1 nan.json "signature is not that of attempt $T1"

# 3. The same tag with status crash, meant to replace ok: as a copy, and as
#    a verdict of the submitting side on a local attempt.
$FORGE edit "$G1" "$RUN/cells/1/crash.json" status='"crash"' warmup_ns='[]' timed_ns='[]'
collect_refuses "same tag, status crash" 1 crash.json "signature is not that of attempt $T1"
$FORGE edit "$G1" "$RUN/cells/1/$T1.slurm.json" verdict=true status='"crash"' warmup_ns='[]' timed_ns='[]' \
  facts='[]' phases='[]' telemetry='[]'
collect_refuses "same tag, a crash verdict" 1 "$T1.slurm.json" "a verdict on attempt $T1, which was not a Slurm task"
check "cell 1 is still ok, one attempt" \
  test "$(sqlite3 "$RUN/run.db" "SELECT status, attempts FROM cells WHERE id = 1")" = "ok|1"

# 4. cells/plan.json edited (batch 1, 1 step, no warm-up), then `benchgen
#    cell DIR 1`, with and without an attempt key: refused before it runs.
cp "$RUN/cells/plan.json" "$TMP/plan.json.orig"
python3 - "$RUN/cells/plan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cells"][0].update(batch=1, steps=1, warmup=0)
json.dump(d, open(sys.argv[1], "w"))
PY
timeout 30 "$BENCHGEN" cell "$RUN" 1 >"$TMP/cell.out" 2>"$TMP/cell.err"
rc=$?
check "benchgen cell with an edited plan.json exits 2 (got $rc)" test $rc -eq 2
check "... naming the setting that differs from run.db" \
  grep -q "cells/plan.json: cell 1's batch differs from the plan in run.db (mlp/fit/b8/numpy)" "$TMP/cell.err"
BENCHGEN_ATTEMPT_KEY=$(printf '%064d' 7) timeout 30 "$BENCHGEN" cell "$RUN" 1 >"$TMP/cell.out" 2>"$TMP/cell.err"
check "... and with a key as well (exit $?)" grep -q "differs from the plan in run.db" "$TMP/cell.err"
check "... writing no result" test "$(ls "$RUN/cells/1/" | grep -c json)" -eq 1
cp "$TMP/plan.json.orig" "$RUN/cells/plan.json"
timeout 30 "$BENCHGEN" cell "$RUN" 1 >"$TMP/cell.out" 2>"$TMP/cell.err"
rc=$?
check "benchgen cell without an attempt key exits 2 (got $rc)" test $rc -eq 2
check "... saying why" grep -q "no attempt key (BENCHGEN_ATTEMPT_KEY)" "$TMP/cell.err"
# A key nobody issued: the cell runs, its result is not merged.
BENCHGEN_ATTEMPT_KEY=$(printf '%064d' 7) timeout 60 "$BENCHGEN" cell "$RUN" 1 --attempt lmine.0 \
  >"$TMP/cell.out" 2>"$TMP/cell.err"
collect_refuses "a result signed with a key nobody issued" 1 lmine.0.json "attempt lmine.0 was never issued for cell 1"

# 6. A 100 MB detail (and a 2 MB one inside the size limit, signed).
python3 - "$G2" "$RUN/cells/2/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["detail"] = "x" * (100 << 20)
json.dump(d, open(sys.argv[2], "w"))
PY
collect_refuses "a 100 MB detail" 2 big.json "more than a result file can be"
{ printf '"'; head -c 2097152 /dev/zero | tr '\0' x; printf '"'; } >"$TMP/detail.json"
signed "$G2" detail=@"$TMP/detail.json"
collect_refuses "signed, a 2 MB detail" 2 "$f" "detail is 2097152 bytes"
jget "$G2" 'json.dumps(dict(d["plan"], batch=1))' >"$TMP/plan-b1.json"
signed "$G2" plan=@"$TMP/plan-b1.json"
collect_refuses "signed, ran with another batch" 2 "$f" "it ran with batch 1, the plan in run.db says 4"

# 9. A result file holding another cell (wrong key) no longer blocks
#    collect: it is quarantined and a good file beside it still merges.
cp "$G1" "$RUN/cells/2/other-cell.json"
signed "$G2" timed_ns='[11111, 11112, 11113, 11114, 11115]'
timeout 30 "$BENCHGEN" collect "$RUN" >"$TMP/c.out" 2>"$TMP/c.err"
rc=$?
check "a file of another cell: collect exits 1 (got $rc)" test $rc -eq 1
check "... quarantines it, naming both cells" \
  grep -q "quarantined .*cells/2/other-cell.json.*it holds cell 1 (mlp/fit/b8/numpy), this is cell 2" "$TMP/c.err"
check "... and still merges the good file beside it" \
  test "$(sqlite3 "$RUN/run.db" "SELECT group_concat(ns) FROM samples WHERE cell_id = 2 AND phase = 'timed'")" = \
  "11111,11112,11113,11114,11115"
check "... cell 1 untouched" test "$(sqlite3 "$RUN/run.db" "SELECT status, attempts FROM cells WHERE id = 1")" = "ok|1"
BEFORE=$(stored)

# A FIFO, a link and a directory among the results hang nothing:
# status warns, collect quarantines, run --resume finishes.
mkfifo "$RUN/cells/1/fifo.json"
ln -s "$G1" "$RUN/cells/1/link.json"
mkdir "$RUN/cells/1/dir.json"
timeout 20 "$BENCHGEN" status "$RUN" >"$TMP/s.out" 2>"$TMP/s.err"
rc=$?
check "status with a FIFO in cells/1 returns (exit $rc)" test $rc -eq 0
check "... warning that it will not be merged" grep -q "cells/1/fifo.json will not be merged: .*not a regular file (a FIFO)" "$TMP/s.err"
check "... and leaves it in place" test -p "$RUN/cells/1/fifo.json"
collect_refuses "a FIFO" 1 fifo.json "not a regular file (a FIFO)"
check "... the link was quarantined as a link, its target kept" \
  test -L "$RUN/cells/1/quarantine/link.json" -a -f "$G1"
check "... and the directory" test -d "$RUN/cells/1/quarantine/dir.json"
mkfifo "$RUN/cells/2/fifo.json"
timeout 30 "$BENCHGEN" run --resume "$RUN" >"$TMP/r.out" 2>"$TMP/r.err"
rc=$?
check "run --resume with a FIFO in cells/2 finishes (exit $rc)" test $rc -ne 124 -a $rc -ne 137
check "... quarantining it" test -p "$RUN/cells/2/quarantine/fifo.json"
check "... stored results unchanged" test "$(stored)" = "$BEFORE"

# 5. A workload running in cell 1 writes cells/2/forged.json (7 ns steps).
FR=$TMP/forger
"$BENCHGEN" run tests/hostile/forger.yaml --out "$FR" --devices 0 >"$TMP/forger.out" 2>&1
check "the forger's run exits 0" test $? -eq 0
"$BENCHGEN" show "$FR" --json >"$TMP/forger.json"
check "the forging workload wrote cells/2/forged.json" \
  test "$(cells_py "$TMP/forger.json" 'f(cells[0], "forger.wrote")')" = "cells/2/forged.json"
check "... and found no attempt key to sign with" \
  test "$(cells_py "$TMP/forger.json" 'f(cells[0], "forger.key_seen")')" = "no"
check "the file was quarantined" test -f "$FR/cells/2/quarantine/forged.json"
check "... with its reason" grep -q "quarantined .*cells/2/forged.json.*attempt forged was never issued for cell 2" "$TMP/forger.out"
timeout 30 "$BENCHGEN" collect "$FR" >/dev/null 2>"$TMP/c.err"
check "a later collect merges nothing" grep -q "collected 0 result file" "$TMP/c.err"
"$BENCHGEN" show "$FR" --json >"$TMP/forger.json"
check "cell 2 kept its own 5 samples, none of them 7 ns" \
  test "$(cells_py "$TMP/forger.json" '(cells[1]["status"], cells[1]["samples"]["timed"])')|$(sqlite3 "$FR/run.db" \
  "SELECT count(*) FROM samples WHERE cell_id = 2 AND ns = 7")" = "('ok', 5)|0"

check "no benchgen cell process left" test -z "$(pgrep -f -- "cell $TMP/" || true)"
finish
