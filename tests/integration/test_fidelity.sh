#!/usr/bin/env bash
# The test-only BENCHGEN_ABLATE knobs (runners/ablate.h) switch off what they
# name, each alone, as a probe workload sees it from inside the cell
# (tests/workloads/fidelity_probe.py); a misspelt knob is refused before a
# run directory exists; input buffers are 64-byte aligned; and
# scripts/fidelity.sh prints a benchgen/plain ratio per cell and per knob,
# with the plain loop's inputs byte-identical to the cell's. Needs the `base`
# environment; about 30 s.
set -u
. "$(dirname "$0")/lib.sh"
STEPS=12
cat >"$TMP/probe.yaml" <<YAML
name: fidelity-probe
steps: $STEPS
warmup: 2
seed: 0
timeout: 120
backends: [numpy]
rows:
  - {model: probe, task: predict, batch: 64, workload: $ROOT/tests/workloads/fidelity_probe.py}
YAML
mkdir -p "$TMP/tmpdir"
# probe NAME KNOBS: one run of the probe with BENCHGEN_ABLATE=KNOBS, in an
# environment where Python's defaults are known: no PYTHON* variable, a
# UTF-8 locale that is not C (which would turn UTF-8 mode on by itself).
probe() {
  env -u PYTHONHASHSEED -u PYTHONUTF8 -u PYTHONUNBUFFERED -u PYTHONNOUSERSITE LC_ALL=C.UTF-8 \
    TMPDIR="$TMP/tmpdir" BENCHGEN_ABLATE="$2" "$BENCHGEN" run "$TMP/probe.yaml" --out "$TMP/$1" >"$TMP/$1.out" 2>&1
  "$BENCHGEN" show "$TMP/$1" --json >"$TMP/$1.json" 2>/dev/null
}
probe base ""
check "the probe cell runs ok" test "$(cell "$TMP/base.json" probe/predict/b64/numpy status 2>/dev/null)" = ok ||
  { sed 's/^/  /' "$TMP/base.out"; finish; }
check "without knobs the cell records no ablate fact" test "$(cells_py "$TMP/base.json" 'f(cells[0], "ablate")')" = ""

# What each knob switches off, as a Python expression over the cell c
# (f: a fact, w: an environment value): true with the knob off (benchgen
# as it is), false with it on. T is the scratch TMPDIR the test gives.
declare -A SAYS=(
  [cgroup]='w(c, "worker.containment") != "tree (subreaper + sweep)"'
  [sampling]='f(c, "contention") != ""'
  [env]='f(c, "probe.utf8_mode") == "1" and f(c, "probe.no_user_site") == "1" and f(c, "probe.write_through") == "True" and f(c, "probe.hashseed") == "0"'
  [inputs-copy]='f(c, "probe.x_writable") == "False"'
  [pipe]="int(f(c, 'probe.timed_writes')) >= $((STEPS - 1))"
  [tmpdir]='f(c, "probe.tmpdir") != T'
)
KNOBS="cgroup sampling env inputs-copy pipe tmpdir"
says() { # FILE KNOB: prints True or False
  python3 -c 'import json,sys
c = json.load(open(sys.argv[1]))["cells"][0]
f = lambda c, k: c["facts"].get(k, "")
w = lambda c, k: c["environment"].get(k, "")
T = sys.argv[3]
print(bool(eval(sys.argv[2])))' "$1" "${SAYS[$2]}" "$TMP/tmpdir"
}
for k in $KNOBS; do
  check "without knobs: $k is on (${SAYS[$k]})" test "$(says "$TMP/base.json" "$k")" = True
done
own=$(grep -m1 ':memory:' /proc/self/cgroup || head -1 /proc/self/cgroup)
case "$(cells_py "$TMP/base.json" 'w(cells[0], "worker.containment")')" in
  cgroup*)
    check "without knobs the cell runs in a cgroup of its own" \
      test "$(cells_py "$TMP/base.json" '"benchgen-" in f(cells[0], "probe.cgroup")')" = True ;;
  *) echo "# containment here: $(cells_py "$TMP/base.json" 'w(cells[0], "worker.containment")') (no cgroup to switch off)" ;;
esac
check "input buffers are 64-byte aligned ($(cells_py "$TMP/base.json" 'f(cells[0], "probe.x_alignment")'))" \
  test "$(cells_py "$TMP/base.json" 'int(f(cells[0], "probe.x_alignment")) >= 64')" = True

for k in $KNOBS; do
  probe "$k" "$k"
  if [ "$(cell "$TMP/$k.json" probe/predict/b64/numpy status 2>/dev/null)" != ok ]; then
    not_ok "BENCHGEN_ABLATE=$k: the probe cell runs ok"
    sed 's/^/  /' "$TMP/$k.out"
    continue
  fi
  check "BENCHGEN_ABLATE=$k: the cell records it (fact ablate)" \
    test "$(cells_py "$TMP/$k.json" 'f(cells[0], "ablate")')" = "$k"
  check "BENCHGEN_ABLATE=$k switches $k off" test "$(says "$TMP/$k.json" "$k")" = False
  others=""
  for o in $KNOBS; do
    [ "$o" = "$k" ] || [ "$(says "$TMP/$k.json" "$o")" = True ] || others="$others $o"
  done
  check "BENCHGEN_ABLATE=$k leaves the others on${others:+ (off:$others)}" test -z "$others"
done
if [ -f "$TMP/cgroup.json" ]; then
  check "BENCHGEN_ABLATE=cgroup: the cell runs in benchgen's own cgroup, none is created" \
    test "$(cells_py "$TMP/cgroup.json" 'f(cells[0], "probe.cgroup")')" = "$own"
fi
check "BENCHGEN_ABLATE=inputs-copy: the copies are 64-byte aligned too" \
  test "$(cells_py "$TMP/inputs-copy.json" 'int(f(cells[0], "probe.x_alignment")) >= 64' 2>/dev/null)" = True
probe all all
check "BENCHGEN_ABLATE=all names every knob" \
  test "$(cells_py "$TMP/all.json" 'f(cells[0], "ablate")' 2>/dev/null)" = "cgroup,sampling,env,inputs-copy,pipe,tmpdir"
"$BENCHGEN" report "$TMP/all" --out "$TMP/all-report" --format md -q
check "the report warns that the cell ran with the test-only knobs" \
  grep -qF 'ran with the test-only BENCHGEN\_ABLATE=cgroup,sampling,env,inputs-copy,pipe,tmpdir: not a measurement to publish' \
  "$TMP/all-report/report.md"
"$BENCHGEN" report "$TMP/base" --out "$TMP/base-report" --format md -q
check "... and a cell without them gets no such warning" bash -c '! grep -q "test-only BENCHGEN" "$1"' _ "$TMP/base-report/report.md"

BENCHGEN_ABLATE=cgroup,bogus "$BENCHGEN" run "$TMP/probe.yaml" --out "$TMP/bogus" >"$TMP/bogus.out" 2>&1
rc=$?
check "a knob that does not exist: exit 2 ($rc)" test "$rc" -eq 2
check "and the message names it" grep -q "BENCHGEN_ABLATE: 'bogus' is no knob" "$TMP/bogus.out"
check "and no run directory is created" test ! -e "$TMP/bogus"

# The tool itself, as small as it gets: one round, a few steps.
ROUNDS=1 STEPS=5 WARMUP=1 "$ROOT/scripts/fidelity.sh" --ablate pipe,cgroup+sampling \
  mlp/predict/32/numpy mlp/fit/32/numpy >"$TMP/fid.out" 2>"$TMP/fid.err"
rc=$?
check "scripts/fidelity.sh runs ($rc)" test "$rc" -eq 0 || sed 's/^/  /' "$TMP/fid.err"
for c in mlp/predict/b32/numpy mlp/fit/b32/numpy; do
  for v in none pipe cgroup+sampling; do
    check "fidelity.sh prints a ratio for $c, ablate $v" \
      grep -Eq "^\| $c \| ${v//+/\\+} \| 1 \| [0-9.]+ \| [0-9.]+ \| [0-9]+\.[0-9]{3} \| n/a \|" "$TMP/fid.out"
  done
done
ROUNDS=1 "$ROOT/scripts/fidelity.sh" bert/predict >"$TMP/fid-bad.out" 2>&1
check "fidelity.sh refuses a cell that is not MODEL/TASK/BATCH/BACKEND (exit 2)" test $? -eq 2
finish
