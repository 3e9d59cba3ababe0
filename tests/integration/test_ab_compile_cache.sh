#!/usr/bin/env bash
# Each arm of `run --ab` keeps its own compile caches (issue 22, item 3;
# run/scheduler.c, runners/worker.c): the arm's first process of a cell
# compiles cold, its later processes start warm (fact compile.cache), A and
# B never share a directory, and the caches are gone when the run ends. The
# report, show and compare give the cold process's first call as the compile
# time and never a warm one's. A plain run stays cold in every process.
# Part 1 uses a stand-in compiler on NumPy (seconds); part 2 the real
# jax.jit in the keras3 environment, 2 processes a side.
set -u
. "$(dirname "$0")/lib.sh"

cp tests/workloads/compiles.py "$TMP/"
cat >"$TMP/cc.yaml" <<'YAML'
name: cc-test
size: tiny
steps: 3
warmup: 1
repeats: 3
timeout: 300
backends: [numpy]
rows:
  - {model: cc, task: predict, batch: 1, workload: compiles.py}
YAML


# ---- part 1: run --ab, 3 processes a side, a stand-in compiler ---------------
# ab_run SPEC NAME WHAT: run --ab of SPEC into $TMP/NAME, checked to exit 0
# (its stderr shown when not), and each arm's show --json in $TMP/NAME-{a,b}.json
ab_run() {
  "$BENCHGEN" run "$1" --ab --out "$TMP/$2" >"$TMP/$2.out" 2>"$TMP/$2.err"
  local rc=$?
  check "$3 exits 0" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || sed 's/^/# /' "$TMP/$2.err" | tail -20
  for arm in a b; do
    "$BENCHGEN" show "$TMP/$2/$arm" --json >"$TMP/$2-$arm.json" 2>/dev/null
  done
}
ab_run "$TMP/cc.yaml" ab "run --ab with 3 processes a side"
python3 - "$TMP/ab-a.json" "$TMP/ab-b.json" "$TMP/ab" >"$TMP/ab.check" 2>&1 <<'PY'
import json, os, sys
bad, dirs = [], {}
for arm, path in zip("ab", sys.argv[1:3]):
    cells = sorted(json.load(open(path))["cells"], key=lambda c: c["repeat"])
    if len(cells) != 3:
        bad.append("arm %s: %d processes" % (arm, len(cells)))
        continue
    for c in cells:
        f = c["facts"]
        want = "cold" if c["repeat"] == 1 else "warm"
        if f.get("compile.cache") != want:
            bad.append("arm %s repeat %d: compile.cache %r, want %s" % (arm, c["repeat"], f.get("compile.cache"), want))
        if f.get("test.cache_found") != str(want == "warm"):
            bad.append("arm %s repeat %d: the workload found files: %r" % (arm, c["repeat"], f.get("test.cache_found")))
        if f.get("test.jax_min_compile_secs") != "0":
            bad.append("arm %s: JAX not told to cache every program (%r)" % (arm, f.get("test.jax_min_compile_secs")))
        if not f.get("compile_cache", "").startswith(want + ":"):
            bad.append("arm %s repeat %d: compile_cache %r" % (arm, c["repeat"], f.get("compile_cache")))
        first = c.get("first_call_ms")
        if want == "cold" and not (c["compile_ms"] and c["compile_ms"] >= 350):
            bad.append("arm %s: cold compile_ms %r (the stand-in compiles for 400 ms)" % (arm, c["compile_ms"]))
        if want == "warm" and c["compile_ms"] is not None:
            bad.append("arm %s repeat %d: a warm first call shown as compile_ms %r" % (arm, c["repeat"], c["compile_ms"]))
        dirs.setdefault(arm, set()).add(f.get("test.cache_dir"))
    for d in dirs.get(arm, ()):
        if not d.startswith(os.path.join(sys.argv[3], arm, "compile-cache") + "/"):
            bad.append("arm %s: cache %s is not under its run directory's compile-cache" % (arm, d))
if len(dirs.get("a", ())) != 1 or len(dirs.get("b", ())) != 1:
    bad.append("one cache per arm and cell: %s" % dirs)
elif dirs["a"] == dirs["b"]:
    bad.append("A and B share a cache: %s" % dirs)
print("\n".join(bad) or "both arms: repeat 1 cold (compile %s ms), 2 and 3 warm; A and B caches differ" % "/".join(
    "%.0f" % min(c["compile_ms"] or 0 for c in json.load(open(p))["cells"] if c["repeat"] == 1) for p in sys.argv[1:3]))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/ab.check"
check "first process per arm cold, later ones warm, A and B caches apart (show --json)" test "$rc" -eq 0
check "the arms' compile caches are removed when the run ends" \
  test ! -e "$TMP/ab/a/compile-cache" -a ! -e "$TMP/ab/b/compile-cache" -a -f "$TMP/ab/a/run.db"

# the report of an arm: the cold process's compile time, warm ones labelled
"$BENCHGEN" report "$TMP/ab/a" --out "$TMP/rep" --format md -q >/dev/null 2>"$TMP/rep.err"
rc=$?
check "report of arm A exits 0" test "$rc" -eq 0
md=$TMP/rep/report.md
check "the report's statistics mark the 2 warm first calls" \
  test "$(grep -o 'warm cache (first call [0-9.]*' "$md" 2>/dev/null | wc -l)" -eq 2
check "... and say why in the caption" grep -q 'A process marked "warm cache" started with' "$md"
json=$TMP/rep/report.json
check "report JSON: compile_ms only for the cold process, compile_cache and first_call_ms for each" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cells = [c for c in d["cells"]] if isinstance(d, dict) and "cells" in d else []
ok = len(cells) == 3 and all((c["compile_cache"] == "cold") == (c["compile_ms"] is not None) and c["first_call_ms"] is not None
                             for c in cells) and sum(c["compile_cache"] == "warm" for c in cells) == 2
sys.exit(0 if ok else 1)' "$json"
"$BENCHGEN" show "$TMP/ab/a" >"$TMP/show.txt" 2>/dev/null
check "show's COMPILE_MS column says warm for the warm processes" test "$(grep -c ' warm$' "$TMP/show.txt")" -eq 2

# compare: the cold compile time of each side, the warm processes counted
"$BENCHGEN" compare "$TMP/ab" >"$TMP/cmp.txt" 2>/dev/null
check "compare's text gives each side's cold compile time and counts the warm processes" \
  grep -qE '\[compile \(first call, cold cache\): A [0-9.]+ ms, B [0-9.]+ ms; warm caches in 2 A and 2 B processes' "$TMP/cmp.txt"
"$BENCHGEN" compare "$TMP/ab" --json >"$TMP/cmp.json" 2>/dev/null
check "compare JSON: compile_ms is the cold first call, warm_cache_processes 2 a side" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]["cells"][0]
ok = all(s["compile_ms"] is not None and s["compile_ms"] >= 350 and s["warm_cache_processes"] == 2 for s in (c["a"], c["b"]))
sys.exit(0 if ok else 1)' "$TMP/cmp.json"

# ---- a plain run: cold in every process, caches per cell as before -----------
"$BENCHGEN" run "$TMP/cc.yaml" --repeats 2 --out "$TMP/plain" >/dev/null 2>"$TMP/plain.err"
rc=$?
check "plain run exits 0" test "$rc" -eq 0
"$BENCHGEN" show "$TMP/plain" --json >"$TMP/plain.json" 2>/dev/null
check "plain run: every process cold, its own empty cache (not in the run directory), compile time each" python3 -c '
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
ok = len(cells) == 2 and all(c["facts"].get("compile.cache") == "cold" and c["facts"].get("test.cache_found") == "False"
                             and not c["facts"]["test.cache_dir"].startswith(sys.argv[2]) and c["compile_ms"] >= 350
                             and c["facts"].get("test.jax_min_compile_secs") == "" for c in cells)
sys.exit(0 if ok else 1)' "$TMP/plain.json" "$TMP/plain"
check "plain run leaves no compile-cache directory" test ! -e "$TMP/plain/compile-cache"

# ---- part 2: a real compiler (jax.jit on keras3-jax), 2 processes a side -----
# The function compiles in well under JAX's default threshold of one second,
# so the warm process finds JAX's cache filled only because the worker told
# JAX to cache every program. Times are not compared: compiling and loading
# a program this small both take milliseconds.
sed -e 's/backends: \[numpy\]/backends: [keras3-jax]/' -e 's/repeats: 3/repeats: 2/' "$TMP/cc.yaml" >"$TMP/jx.yaml"
ab_run "$TMP/jx.yaml" jx "run --ab of a jax.jit cell, 2 processes a side,"
python3 - "$TMP/jx-a.json" "$TMP/jx-b.json" >"$TMP/jx.check" 2>&1 <<'PY'
import json, sys
bad, lines = [], []
for arm, path in zip("ab", sys.argv[1:]):
    cells = {c["repeat"]: c for c in json.load(open(path))["cells"]}
    cold, warm = cells.get(1), cells.get(2)
    if not cold or not warm or cold["status"] != "ok" or warm["status"] != "ok":
        bad.append("arm %s: processes %s" % (arm, {k: c["status"] for k, c in cells.items()}))
        continue
    fc, fw = cold["facts"], warm["facts"]
    if (fc.get("compile.cache"), fw.get("compile.cache")) != ("cold", "warm"):
        bad.append("arm %s: compile.cache %s, %s" % (arm, fc.get("compile.cache"), fw.get("compile.cache")))
    if (fc.get("test.cache_found"), fw.get("test.cache_found")) != ("False", "True"):
        bad.append("arm %s: JAX's cache held files: cold %s, warm %s" % (arm, fc.get("test.cache_found"), fw.get("test.cache_found")))
    if cold["compile_ms"] is None or warm["compile_ms"] is not None or warm["first_call_ms"] is None:
        bad.append("arm %s: compile_ms cold %s, warm %s" % (arm, cold["compile_ms"], warm["compile_ms"]))
    lines.append("arm %s: cold compile %.1f ms, warm first call %.1f ms" % (arm, cold["compile_ms"] or 0, warm["first_call_ms"] or 0))
print("\n".join(bad + lines))
sys.exit(1 if bad else 0)
PY
rc=$?
sed 's/^/# /' "$TMP/jx.check"
check "jax.jit: the warm process finds what the cold one compiled in its arm's JAX cache" test "$rc" -eq 0

exit $FAILED
