#!/usr/bin/env bash
# `benchgen bisect` (issue 25), offline: a package index on 127.0.0.1 (PEP
# 503 pages served by python -m http.server) holds ten releases of small
# packages whose wheels this script builds, plus a yanked 1.0.5.1 and a
# pre-release 1.0.6rc1; the spec's one NumPy cell calls the package's work()
# each step, which sleeps 100 or 130 ms (a sleep, so the machine's load
# does not blur it). bgbisect-probe costs 100 ms up to 1.0.5 and 130 ms
# from 1.0.5.1 (yanked) and 1.0.6rc1 on (30% slower); bgbisect-fast 130 ms
# up to 1.0.2 and 100 ms from 1.0.3 on. Every step stops as `run --ab` does
# (sequential verdicts: 4 processes a side first, up to 12). Checked: the
# endpoints are confirmed and 1.0.6 is named in at most 5 steps, each
# stopped before the cap and recorded as run --ab records it (compare reads
# it, with the step's verdict); --faster names 1.0.3 of bgbisect-fast;
# --pre lists and tests 1.0.6rc1 and names it, --yanked lists and tests
# 1.0.5.1 and names it (without them: 1.0.6, both left out); with a release
# that has no wheel, it is skipped with its reason and the answer is still
# found, and Ctrl-C during a step then --resume gives that same answer with
# no finished step run again (and no process of the interrupted step but
# the one stopped), the step stopping where it would have; a range without
# a change stops after the endpoints ("nothing to bisect", exit 0); the
# --yanked bisect runs a fixed --repeats 5 a side instead. Its verdicts
# rest on the steps' sleeps, not on CPU time, so it runs side by side with
# one other script in `make test` (SHARED in tests/run.sh), and runs three
# of its bisects side by side. Times in docs/BISECT.md ("Tested").
# The environments are the test's own (BENCHGEN_CACHE under TMP): its `base`
# is the shared cache's ready one, linked in (read only: a derived venv
# hard-links its files), and uv's cache is the test's too.
set -u
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/container/spec.sh"
base_python
SHARED=$("$BENCHGEN" info 2>/dev/null | sed -n 's/.*cached in \(.*\)$/\1/p')
UV=$SHARED/tools/uv/bin/uv
[ -x "$UV" ] || UV=$(command -v uv || true)
check "uv is at hand (the shared cache's, or on PATH)" test -x "$UV"
[ -x "$UV" ] || finish

export BENCHGEN_CACHE=$TMP/cache BENCHGEN_UV=$UV UV_CACHE_DIR=$TMP/uv BENCHGEN_SIZE=0
mkdir -p "$BENCHGEN_CACHE/envs"
ln -s "$base" "$BENCHGEN_CACHE/envs/$(basename "$base")"

# ---- the packages: ten releases, a wheel each (1.0.4 of "bgbisect-nowheel":
# only an sdist that cannot be built), a yanked 1.0.5.1 and a pre-release
# 1.0.6rc1 inside the range, both as slow as 1.0.6 (bgbisect-fast: as fast
# as 1.0.5)
IDX=$TMP/index
python3 - "$IDX" <<'PY'
import base64, hashlib, os, sys, zipfile
idx = sys.argv[1]

def wheel(project, version, cost, out):
    mod = project.replace("-", "_")
    dist = "%s-%s" % (mod, version)
    files = {
        "%s/__init__.py" % mod: "import time\nCOST = %r\n\ndef work():\n    time.sleep(COST)\n" % cost,
        "%s.dist-info/METADATA" % dist: "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (project, version),
        "%s.dist-info/WHEEL" % dist: "Wheel-Version: 1.0\nGenerator: test_bisect\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, h, len(text.encode())))
    record.append("%s.dist-info/RECORD,," % dist)
    files["%s.dist-info/RECORD" % dist] = "\n".join(record) + "\n"
    fn = "%s-py3-none-any.whl" % dist
    with zipfile.ZipFile(os.path.join(out, fn), "w") as z:
        for name, text in sorted(files.items()):
            z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), text)
    return fn

for project, nowheel, slow in (("bgbisect-probe", None, lambda k: k >= 6), ("bgbisect-nowheel", "1.0.4", lambda k: k >= 6),
                                ("bgbisect-fast", None, lambda k: k < 3)):
    d = os.path.join(idx, "simple", project)
    os.makedirs(d)
    links = []
    for k in range(10):
        v = "1.0.%d" % k
        cost = 0.13 if slow(k) else 0.10
        if v == nowheel:
            fn = "%s-%s.tar.gz" % (project.replace("-", "_"), v)
            open(os.path.join(d, fn), "wb").write(b"not a real sdist")
        else:
            fn = wheel(project, v, cost, d)
        links.append('<a href="%s">%s</a>' % (fn, fn))
    late = 0.13 if slow(6) else 0.10
    links.append('<a href="%s" data-yanked="broken">x</a>' % wheel(project, "1.0.5.1", late, d))
    links.append('<a href="%s">x</a>' % wheel(project, "1.0.6rc1", late, d))
    # a file name that would inject a line "release 1.0.8.1 ..." into the
    # listing's output (it did, before names were cleaned)
    links.append('<a href="%s-1.0.3-py3-none-any%%0Arelease%%201.0.8.1%%201%%20x.whl">x</a>' % project.replace("-", "_"))
    open(os.path.join(d, "index.html"), "w").write("<!DOCTYPE html><html><body>\n%s\n</body></html>\n" % "\n".join(links))
PY
python3 -m http.server 0 --bind 127.0.0.1 --directory "$IDX" >"$TMP/http.log" 2>&1 &
SERVER=$!
# the server only while it is still this script's running job (a bare PID could name another process by then)
trap 'jobs -rp | grep -qx "$SERVER" && kill "$SERVER"; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$TMP/http.log" | head -1); [ -n "$PORT" ] && break; sleep 0.1; done
check "the index serves (port $PORT)" test -n "$PORT"
export UV_DEFAULT_INDEX=http://127.0.0.1:$PORT/simple
unset UV_INDEX_URL PIP_INDEX_URL

cat >"$TMP/template.py" <<'PY'
"""One NumPy step plus the package's work(): its cost is what the release sets."""
import numpy as np
import PROJECT as probe


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 64], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    x = data["x"]
    w = np.ones((64, 64), dtype=np.float32)

    def step():
        (x @ w).sum()
        probe.work()
    return step
PY
for p in probe nowheel fast; do
  sed "s/PROJECT/bgbisect_$p/" "$TMP/template.py" >"$TMP/$p.py"
  printf 'name: bis-%s\nsteps: 4\nwarmup: 1\nseed: 3\ntimeout: 60\nbackends: [numpy]\nrows:\n  - {model: probe, task: predict, batch: 4, workload: %s}\n' \
    "$p" "$TMP/$p.py" >"$TMP/$p.yaml"
done

# bisect NAME ARGS...: runs bisect (300 s at most), its exit status in $rc
bisect() {
  local name=$1
  shift
  timeout 300 "$BENCHGEN" bisect "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  [ "$rc" -eq 0 ] || tail -30 "$TMP/$name.err"
}
# answer DIR: the outcome, first bad and last good release
answer() { jget "$1/bisect.json" 'd["outcome"], d["first_bad"], d["last_good"]'; }
# listed DIR: the releases listed and those left out
listed() { jget "$1/bisect.json" '[r["version"] for r in d["releases"]], d["excluded"]'; }
# per_step DIR: each step's release and processes a side ("1.0.4:4 ...")
per_step() { jget "$1/bisect.json" '" ".join("%s:%d" % (s["tested"], s["processes"]) for s in d["steps"] if s["dir"])'; }
# steps DIR: each step's release and final verdict (an ambiguous try that
# was run again with more processes left out)
steps() {
  jget "$1/bisect.json" '" ".join(s["tested"] + ":" + s["verdict"] for i, s in enumerate(d["steps"])
                                  if i + 1 == len(d["steps"]) or d["steps"][i + 1]["step"] != s["step"] or s["verdict"] == "skip")'
}

# ---- a regression at 1.0.6 ---------------------------------------------------
echo "# setup: $SECONDS s"
t0=$(date +%s)
bisect reg "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/reg"
check "bisect exits 0 (got $rc)" test "$rc" -eq 0
J=$TMP/reg/bisect.json
check "ten releases listed, the yanked one and the pre-release left out, none injected" \
  test "$(listed "$TMP/reg")" = \
  "(['1.0.0', '1.0.1', '1.0.2', '1.0.3', '1.0.4', '1.0.5', '1.0.6', '1.0.7', '1.0.8', '1.0.9'], ['1.0.5.1 yanked', '1.0.6rc1 a pre-release'])"
check "the endpoints were confirmed first (bad)" test "$(jget "$J" 'd["steps"][0]["dir"], d["steps"][0]["verdict"]')" = "('00-endpoints', 'bad')"
check "... the cell that moved is the one bisected" test "$(jget "$J" 'd["cells"]')" = "['probe/predict/b4/numpy']"
check "1.0.6 is named the first bad release, 1.0.5 the last good" \
  test "$(answer "$TMP/reg")" = "('found', '1.0.6', '1.0.5')"
check "in at most 5 steps, endpoints included ($(steps "$TMP/reg"); $(jget "$J" 'len(d["steps"])') A/B runs)" \
  test "$(jget "$J" 'len({s["step"] for s in d["steps"]})')" -le 5
check "every bad step is about 30% slower, every good one about the same" \
  test "$(jget "$J" 'all((1.2 < s["ratio"] < 1.4) if s["verdict"] == "bad" else (0.9 < s["ratio"] < 1.1) for s in d["steps"] if s["verdict"] in ("bad", "good"))')" = True
check "the answer is printed" grep -q "^bgbisect-probe 1.0.6 is the first bad release" "$TMP/reg.out"
check "... with the environment diff (the package, intended)" \
  grep -qx "  bgbisect-probe 1.0.5 -> 1.0.6 (intended)" "$TMP/reg.out"
check "progress says the step, at most how many, and the range left" \
  grep -q "^bisect: step 1 of at most 4: 1.0.0 against 1.0.4; range left 1.0.0..1.0.9 (8 untested)" "$TMP/reg.err"
check "the answer is written as text, JSON, Markdown and HTML, with the chart" \
  test -s "$TMP/reg/bisect.txt" -a -s "$TMP/reg/bisect.md" -a -s "$TMP/reg/bisect.html" -a -s "$TMP/reg/bisect-steps.png"
check "the HTML inlines the steps chart (an SVG element, no XML declaration)" grep -q "<figure><svg" "$TMP/reg/bisect.html"
check "the steps stop sequentially: the rule is recorded, first batch 4, cap 12, effect 5%" \
  test "$(jget "$J" '[d["options"][k] for k in ("sequential", "first", "cap", "effect", "processes")]')" = "[True, 4, 12, 0.05, 0]"
echo "# regression: processes a side per step: $(per_step "$TMP/reg")"
check "... every step stopped before the cap, at a look (4, 6, 8 or 10 processes a side: $(per_step "$TMP/reg"))" \
  test "$(jget "$J" 'all(s["processes"] in (4, 6, 8, 10) for s in d["steps"])')" = True
S=$TMP/reg/$(jget "$J" 'd["steps"][1]["dir"]')
check "... and its run directories hold what run --ab writes (the design, the cell's stop, no process it did not need)" \
  test "$("$BENCHGEN" show "$S/b" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["run"]["environment"]; print(e.get("run.seq.design", "").split(", effect")[0] + ";", e.get("run.seq.cell.probe/predict/b4/numpy", "").split(";")[0], len(d["cells"]))')" = \
  "first 4, step 2, cap 12; $(jget "$J" 'd["steps"][1]["cells"][0]["verdict"].split(" ")[0]') $(jget "$J" 'd["steps"][1]["processes"]')"
"$BENCHGEN" compare "$S" --noise "$(jget "$J" '"%g" % (d["steps"][1]["noise"] * 100)')" >"$TMP/cmp.out" 2>&1
check "a step is an A/B run that compare reads (sequential, paired; with the step's band, the step's verdict)" \
  grep -q "$(jget "$J" '{"bad": "slower", "good": "same"}[d["steps"][1]["verdict"]]').*sequential run: .*; $(jget "$J" 'd["steps"][1]["processes"]') processes a side" "$TMP/cmp.out"
"$BENCHGEN" show "$S/b" --json >"$TMP/show.json"
check "... B ran the release it names" \
  test "$(cells_py "$TMP/show.json" '{w(c, "pkg.bgbisect-probe") for c in cells}')" = "{'$(jget "$J" 'd["steps"][1]["tested"]')'}"
echo "# regression: $(( $(date +%s) - t0 )) s"
reg_sum=$(sha256sum <"$TMP/reg/bisect.json")

# ---- a release without a wheel; Ctrl-C during a step, then --resume ---------
# 1.0.4 of bgbisect-nowheel has no wheel: the first midpoint of 1.0.3 ..
# 1.0.6. The step that takes its place (1.0.5 against 1.0.3, still step 1:
# a skip is no A/B run) is interrupted once two of its processes ran.
t0=$(date +%s)
"$BENCHGEN" bisect "$TMP/nowheel.yaml" --package bgbisect-nowheel --good 1.0.3 --bad 1.0.6 --out "$TMP/nw" \
  >"$TMP/nw.out" 2>"$TMP/nw.err" &
PID=$!
for _ in $(seq 3000); do
  n=$(ls "$TMP"/nw/01-1.0.5/b/logs 2>/dev/null | wc -l)
  [ "$n" -ge 2 ] && break
  sleep 0.1
done
kill -INT "$PID"
wait "$PID"
rc=$?
J=$TMP/nw/bisect.json
check "Ctrl-C during a step: exit 130 (got $rc)" test "$rc" -eq 130
check "... saying how to go on" grep -q "bisect --resume $TMP/nw" "$TMP/nw.err"
check "... the step is left pending" test "$(jget "$J" 'd["steps"][-1]["dir"], d["steps"][-1]["verdict"]')" = "('01-1.0.5', 'pending')"
sum_ends=$(sha256sum "$TMP"/nw/00-endpoints/*/run.db | sha256sum)
timeout 300 "$BENCHGEN" bisect --resume "$TMP/nw" >"$TMP/res.out" 2>"$TMP/res.err"
rc=$?
check "--resume exits 0 (got $rc)" test "$rc" -eq 0
check "1.0.4, without a wheel, is skipped" \
  test "$(jget "$J" '[s["tested"] for s in d["steps"] if s["verdict"] == "skip"]')" = "['1.0.4']"
check "... with the reason (it cannot be built)" \
  test "$(jget "$J" '[s["reason"] for s in d["steps"] if s["verdict"] == "skip"][0].startswith("environment base+bgbisect-nowheel-1.0.4 cannot be built")')" = True
check "... and the lister knew it had no wheel" \
  test "$(jget "$J" 'd["releases"][1]["wheel"], d["releases"][1]["files"]')" = "(False, 'bgbisect_nowheel-1.0.4.tar.gz')"
check "the answer is still found, the same as without Ctrl-C ($(steps "$TMP/nw"))" \
  test "$(answer "$TMP/nw")" = "('found', '1.0.6', '1.0.5')"
check "the interrupted step went on to stop at a look of its design, as without Ctrl-C ($(per_step "$TMP/nw"))" \
  test "$(jget "$J" '[(s["processes"] in (4, 6, 8, 10, 12), s["verdict"]) for s in d["steps"] if s["dir"] == "01-1.0.5"]')" = "[(True, 'good')]"
check "the finished endpoints were not run again" test "$(sha256sum "$TMP"/nw/00-endpoints/*/run.db | sha256sum)" = "$sum_ends"
check "... nor announced again" bash -c '! grep -q "endpoints" "$1"' _ "$TMP/res.err"
check "... nor the skipped release tried again" bash -c '! grep -qF "nowheel-1.0.4" "$1"' _ "$TMP/res.err"
for s in $(jget "$J" '" ".join(s["dir"] for s in d["steps"] if s["dir"])'); do
  for arm in a b; do
    "$BENCHGEN" show "$TMP/nw/$s/$arm" --json >"$TMP/s.json" 2>/dev/null
    n=$(jget "$J" '[s["processes"] for s in d["steps"] if s["dir"] == "'"$s"'"][0]')
    # the process Ctrl-C stopped is the one that may have run twice
    again=0; case $s in 01-1.0.5) again=1 ;; esac
    check "$s/$arm: its $n processes all ok, none run again (but the one interrupted)" \
      test "$(jget "$TMP/s.json" 'len(d["cells"]), sorted({c["status"] for c in d["cells"]}), sum(c["attempts"] > 1 for c in d["cells"]) <= '$again)" = "($n, ['ok'], True)"
  done
done
# a process of the bisect is one whose command line names its directory or
# an environment of the test's cache (a worker)
leftovers() { sleep 0.2; [ -z "$(pgrep -f "$TMP/(nw|cache)")" ]; }
check "no process left behind" leftovers
echo "# no wheel, Ctrl-C and --resume: $(( $(date +%s) - t0 )) s; processes a side per step: $(per_step "$TMP/nw")"

# ---- side by side: --faster, --pre, --yanked; then no change ------------------
# Three bisects at once (their steps' verdicts rest on sleeps, as the
# script's beside another in make test), each in its own DIR.
# --faster: bgbisect-fast got faster at 1.0.3. --pre and --yanked: the slow
# 1.0.6rc1 and 1.0.5.1 come into the range; without them (the regression
# above) both are left out and 1.0.6 is the answer; with one, it is listed,
# tested (the only release between the ends) and named; --yanked with a
# fixed 5 processes a side (--repeats). No change from 1.0.1 to 1.0.5: the
# endpoints alone.
t0=$(date +%s)
side() { # NAME ARGS...: bisect in the background; its status into $TMP/NAME.rc
  local name=$1
  shift
  timeout 300 "$BENCHGEN" bisect "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
side fast "$TMP/fast.yaml" --package bgbisect-fast --good 1.0.2 --bad 1.0.4 --faster --out "$TMP/fast" &
P1=$!
side pre "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.5 --bad 1.0.6 --pre --out "$TMP/pre" &
P2=$!
side yanked "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.5 --bad 1.0.6 --yanked --repeats 5 --out "$TMP/yanked" &
P3=$!
wait $P1 $P2 $P3
echo "# --faster, --pre, --yanked side by side: $(( $(date +%s) - t0 )) s; processes a side per step:" \
  "$(per_step "$TMP/fast"); $(per_step "$TMP/pre"); $(per_step "$TMP/yanked")"
# the no-change endpoints are judged within compare's 5% effect, not a
# step's wider band: alone, so that the other bisects' load does not blur them
t0=$(date +%s)
side none "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.1 --bad 1.0.5 --out "$TMP/none"
echo "# no change: $(( $(date +%s) - t0 )) s; processes a side per step: $(per_step "$TMP/none")"
for n in fast pre yanked none; do
  rc=$(cat "$TMP/$n.rc")
  check "$n: exit 0 (got $rc)" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || tail -30 "$TMP/$n.err"
done

check "--faster: the cell faster at the endpoints is the one bisected" \
  test "$(jget "$TMP/fast/bisect.json" 'd["cells"], d["steps"][0]["verdict"], d["steps"][0]["ratio"] < 0.85')" = \
  "(['probe/predict/b4/numpy'], 'bad', True)"
check "... 1.0.3 is named the release that made it faster, 1.0.2 the last one before ($(steps "$TMP/fast"))" \
  test "$(steps "$TMP/fast") $(answer "$TMP/fast")" = "1.0.4:bad 1.0.3:bad ('found', '1.0.3', '1.0.2')"
check "... said so" grep -q "^bgbisect-fast 1.0.3 is the first bad release: the cells were faster from it on" "$TMP/fast.out"

check "--pre: the pre-release is listed, the yanked release still left out" \
  test "$(listed "$TMP/pre")" = "(['1.0.5', '1.0.6rc1', '1.0.6'], ['1.0.5.1 yanked'])"
check "... tested ($(steps "$TMP/pre"))" test "$(steps "$TMP/pre")" = "1.0.6:bad 1.0.6rc1:bad"
check "... and named: 1.0.6rc1, not 1.0.6" test "$(answer "$TMP/pre")" = "('found', '1.0.6rc1', '1.0.5')"
check "--yanked: the yanked release is listed, the pre-release still left out" \
  test "$(listed "$TMP/yanked")" = "(['1.0.5', '1.0.5.1', '1.0.6'], ['1.0.6rc1 a pre-release'])"
check "... tested ($(steps "$TMP/yanked"))" test "$(steps "$TMP/yanked")" = "1.0.6:bad 1.0.5.1:bad"
check "... and named: 1.0.5.1, not 1.0.6" test "$(answer "$TMP/yanked")" = "('found', '1.0.5.1', '1.0.5')"
check "... with --repeats: a fixed 5 processes a side, no sequential rule" \
  test "$(jget "$TMP/yanked/bisect.json" 'd["options"]["sequential"], [s["processes"] for s in d["steps"]]'):$("$BENCHGEN" show "$TMP/yanked/01-1.0.5.1/b" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["cells"]), "run.seq.design" in d["run"]["environment"])')" = "(False, [5, 5]):5 False"

check "no change in the range: it says there is nothing to bisect" grep -q "^nothing to bisect" "$TMP/none.out"
check "... after the endpoints alone, which stopped as the same ($(per_step "$TMP/none") processes a side)" \
  test "$(steps "$TMP/none") $(jget "$TMP/none/bisect.json" 'd["steps"][0]["cells"][0]["verdict"].split(" ")[0]')" = "1.0.5:good same"
t0=$(date +%s)

# ---- refusals ------------------------------------------------------------------
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 2.0 --out "$TMP/r1" >/dev/null 2>"$TMP/r1.err"
check "a version that is no release: exit 2" test $? -eq 2
check "... naming it" grep -q "2.0 is not a release of bgbisect-probe" "$TMP/r1.err"
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/reg" >/dev/null 2>"$TMP/r2.err"
rc=$?
check "an --out holding a bisect: exit 2, nothing touched" test $rc -eq 2 -a "$(sha256sum <"$TMP/reg/bisect.json")" = "$reg_sum"
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/r4" \
  --index http://127.0.0.1:1/simple >/dev/null 2>"$TMP/r4.err"
rc=$?
check "an index that cannot be read (--index): exit 1 (got $rc)" test $rc -eq 1
check "... saying which and why" grep -q "cannot list the releases of bgbisect-probe: http://127.0.0.1:1/simple/bgbisect-probe/: .*refused" "$TMP/r4.err"
check "... and nothing written" test ! -e "$TMP/r4"
"$BENCHGEN" bisect --resume "$TMP/none/00-endpoints" >/dev/null 2>"$TMP/r3.err"
check "--resume of a directory without a bisect: exit 2" test $? -eq 2
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/r5" \
  --repeats 6 --cap 8 >/dev/null 2>"$TMP/r5.err"
check "--repeats with a sequential option (--cap): exit 2" test $? -eq 2 -a ! -e "$TMP/r5"
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/r6" \
  --max-repeats 24 >/dev/null 2>"$TMP/r6.err"
check "--max-repeats without --repeats: exit 2" test $? -eq 2 -a ! -e "$TMP/r6"
check "... saying the sequential steps stop at --cap" grep -q "sequential steps stop at --cap" "$TMP/r6.err"
"$BENCHGEN" bisect "$TMP/probe.yaml" --package bgbisect-probe --good 1.0.0 --bad 1.0.9 --out "$TMP/r7" \
  --first 8 --cap 6 >/dev/null 2>"$TMP/r7.err"
check "a cap below the first batch: exit 2" test $? -eq 2 -a ! -e "$TMP/r7"
echo "# refusals: $(( $(date +%s) - t0 )) s"
finish
