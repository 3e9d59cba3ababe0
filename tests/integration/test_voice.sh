#!/usr/bin/env bash
# test_voice.sh - one voice for progress and messages (docs/RUN-FORMAT.md,
# "Progress events"): `--quiet` prints nothing but errors on run, report,
# compare, bundle, verify and env sync, and still prints an error;
# `--progress json` writes one JSON object per line on stderr and nothing
# else there: a cell_start, a phase and a cell_end per cell, the run's notes,
# env sync's, report's and bundle's. The same commands without either still
# print their lines, so the quiet checks can fail. Runs the two NumPy cells
# of data/matrix/first-hour.yaml three times.
# Needs the `base` environment (numpy).
set -u
. "$(dirname "$0")/lib.sh"
SPEC=data/matrix/first-hour.yaml

# quiet: nothing on stdout or stderr, exit 0
quiet() { # NAME COMMAND...: runs it, checks silence
  local name=$1; shift
  "$@" >"$TMP/q.out" 2>"$TMP/q.err"
  local rc=$?
  check "$name --quiet exits 0 (got $rc)" test $rc -eq 0
  check "... prints nothing on stdout" test ! -s "$TMP/q.out"
  check "... nor on stderr" test ! -s "$TMP/q.err"
  [ -s "$TMP/q.out" ] && head -3 "$TMP/q.out"
  [ -s "$TMP/q.err" ] && head -3 "$TMP/q.err"
}

quiet "run" "$BENCHGEN" run "$SPEC" --out "$TMP/a" --quiet
check "... and the run is complete (2 cells ok)" \
  test "$("$BENCHGEN" show "$TMP/a" --json | python3 -c 'import json,sys; print(sum(c["status"]=="ok" for c in json.load(sys.stdin)["cells"]))')" = 2
quiet "report" "$BENCHGEN" report "$TMP/a" --out "$TMP/ra" --quiet
check "... the report is written" test -f "$TMP/ra/report.html"
quiet "bundle" "$BENCHGEN" bundle "$TMP/a" --out "$TMP/a.tar.gz" --quiet
quiet "verify" "$BENCHGEN" verify "$TMP/a.tar.gz" --quiet
quiet "env sync" "$BENCHGEN" env sync base --quiet

# the same without --quiet speaks (what the checks above silence)
"$BENCHGEN" env sync base >"$TMP/sync.out" 2>"$TMP/sync.err"
check "env sync without --quiet: 'env base: ready (...)' on stdout, as before" grep -q '^env base: ready' "$TMP/sync.out"
"$BENCHGEN" verify "$TMP/a.tar.gz" >"$TMP/v.out" 2>&1
check "verify without --quiet: its checks on stdout" grep -q '^verified' "$TMP/v.out"

# --quiet still prints errors
"$BENCHGEN" report "$TMP/no-such-run" --quiet >"$TMP/e.out" 2>"$TMP/e.err"
rc=$?
check "report --quiet of a missing run: exit 2 (got $rc)" test $rc -eq 2
check "... and the error on stderr" grep -q '^benchgen report: .*no-such-run' "$TMP/e.err"
"$BENCHGEN" run "$SPEC" --quiet --progress yaml >/dev/null 2>"$TMP/m.err"
rc=$?
check "--progress yaml: usage error, exit 2 (got $rc)" test $rc -eq 2
check "... naming the modes" grep -q 'text or json' "$TMP/m.err"

# --progress json: every stderr line one event; one cell_start, phase(s) and
# cell_end per cell, in order
"$BENCHGEN" run "$SPEC" --out "$TMP/b" --progress json >"$TMP/j.out" 2>"$TMP/j.err"
rc=$?
check "run --progress json exits 0 (got $rc)" test $rc -eq 0
check "... the plan still on stdout" grep -q '^plan: 2 cell(s)' "$TMP/j.out"
python3 - "$TMP/j.err" >"$TMP/j.check" 2>&1 <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]  # every line must parse
cells = {}
for e in events:
    k = e["event"]
    assert k in ("cell_start", "phase", "cell_end", "state", "note", "warning", "progress"), k
    if k == "cell_start":
        assert e["total"] == 2 and e["index"] in (1, 2), e
        cells.setdefault(e["cell"], []).append("start")
    elif k == "phase":
        assert e["phase"] in ("starting", "importing", "inputs", "building", "warmup", "timed"), e
        assert e["elapsed_s"] >= 0 and (e["eta_s"] is None or e["eta_s"] >= 0), e
        if e["phase"] in ("warmup", "timed"):
            assert 1 <= e["step"] <= e["steps"], e
        assert cells[e["cell"]][-1] in ("start", "phase"), e
        cells[e["cell"]].append("phase")
    elif k == "cell_end":
        assert e["status"] == "ok" and e["wall_s"] > 0 and e["mean_ms"] > 0 and e["log"] is None, e
        assert cells[e["cell"]][-1] == "phase", e
        cells[e["cell"]].append("end")
    else:
        assert e["text"], e
assert len(cells) == 2, cells
for key, seq in cells.items():
    assert seq[0] == "start" and seq[-1] == "end" and "phase" in seq, (key, seq)
notes = [e["text"] for e in events if e["event"] == "note"]
assert any(t.startswith("run directory: ") for t in notes), notes
assert any(t.startswith("done: 2 cell(s): 2 ok") for t in notes), notes
print("ok", len(events), "events")
PY
check "run --progress json: each stderr line is an event; start, phase(s), end per cell; the run's notes" \
  grep -q '^ok' "$TMP/j.check"
grep -q '^ok' "$TMP/j.check" || tail -5 "$TMP/j.check"

"$BENCHGEN" run "$SPEC" --out "$TMP/c" >"$TMP/t.out" 2>"$TMP/t.err"
check "run without --progress: the cells' text lines, as before" grep -Eq '^\[2/2\] mlp/.* ok .* s  mean ' "$TMP/t.err"
check "... and the done line" grep -q '^done: 2 cell(s): 2 ok' "$TMP/t.err"

quiet "compare" "$BENCHGEN" compare "$TMP/b" "$TMP/c" --quiet
"$BENCHGEN" compare "$TMP/b" "$TMP/c" >"$TMP/cmp.out" 2>&1
check "compare without --quiet: its text on stdout" test -s "$TMP/cmp.out"

# --wait-idle is passed down as an option, also to `benchgen cell` slot
# processes (--cpus-per-cell), which once read it from BENCHGEN_WAIT_IDLE
"$BENCHGEN" run "$SPEC" --only task=predict --cpus-per-cell 1 --wait-idle 1 --out "$TMP/w" --quiet
check "run --cpus-per-cell 1 --wait-idle 1 exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/w" --json >"$TMP/w.json"
check "... the slot's cell waited for a quiet machine (host.wait_idle_s recorded)" \
  test "$(cells_py "$TMP/w.json" 'f(cells[0], "host.wait_idle_s") != ""')" = True
check "... and nothing sets BENCHGEN_WAIT_IDLE any more" test -z "$(grep -rl BENCHGEN_WAIT_IDLE "$ROOT/gen")"

# the other commands' events
jsonl() { python3 -c 'import json,sys; ev=[json.loads(l) for l in open(sys.argv[1])]; print(sum(eval(sys.argv[2]) for e in ev))' "$@"; }
"$BENCHGEN" env sync base --progress json >"$TMP/se.out" 2>"$TMP/se.err"
check "env sync --progress json: stdout empty (nothing was built)" test ! -s "$TMP/se.out"
check "... one note: topic env, subject base, 'ready (...)'" \
  test "$(jsonl "$TMP/se.err" 'e["event"]=="note" and e["topic"]=="env" and e["subject"]=="base" and e["text"].startswith("ready (")')" = 1
"$BENCHGEN" report "$TMP/b" --out "$TMP/rb" --format md --progress json >"$TMP/re.out" 2>"$TMP/re.err"
check "report --progress json: its progress as events of topic report" \
  test "$(jsonl "$TMP/re.err" 'e["topic"]=="report"')" -ge 2
check "... its last line still on stdout" grep -q "^report: $TMP/rb/: report.md" "$TMP/re.out"
"$BENCHGEN" bundle "$TMP/b" --out "$TMP/b.tar.gz" --progress json >"$TMP/be.out" 2>"$TMP/be.err"
check "bundle --progress json: 'wrote ...' is a note of topic bundle" \
  test "$(jsonl "$TMP/be.err" 'e["event"]=="note" and e["topic"]=="bundle" and e["text"].startswith("wrote ")')" = 1
finish
