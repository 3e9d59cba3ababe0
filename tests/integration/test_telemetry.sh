#!/usr/bin/env bash
# Measurement hygiene and GPU telemetry (docs/GPU.md):
#  - a cell run beside a CPU hog (started and stopped here, by PID) is
#    flagged contended and names the hog; the same cell run alone is not
#    (when this machine never goes quiet, --wait-idle gives up and the cell
#    must then say so instead);
#  - telemetry through a fake libnvidia-ml.so.1 (built here from
#    tests/fake/fake_nvml.c) is stored as series, summarised as facts
#    (energy per step, throttle share and reason, peak memory, the foreign
#    process) and shown by show, report and compare;
#  - a GPU cell's own facts (tests/specs/gpu_cell.py) through the fake: a pid
#    NVML gives that /proc cannot resolve is unknown, not foreign; a Keras
#    cell's "gpu" device; an H200 NVL's own peak; MIG mode; the series and
#    the timed-step windows on the markers' clock;
#  - no process outlives the test.
# Needs the `base` environment (numpy) and a C compiler.
set -u
. "$(dirname "$0")/lib.sh"

SPEC=tests/specs/telemetry.yaml
FAKE=$TMP/fake/libnvidia-ml.so.1
mkdir -p "$TMP/fake"
cc -shared -fPIC -O1 -o "$FAKE" tests/fake/fake_nvml.c
check "the fake NVML builds" test -f "$FAKE"
fact() { # RUN_JSON NAME
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cells"][0]["facts"].get(sys.argv[2], "ABSENT"))' "$1" "$2"
}

# ---- 1. beside a CPU hog -----------------------------------------------------
cputime() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks
sh -c 'while :; do :; done' &
HOG=$!
t0=$(date +%s.%N); c0=$(cputime "$HOG")
"$BENCHGEN" run "$SPEC" --out "$TMP/hog" >"$TMP/hog.out" 2>&1
rc=$?
t1=$(date +%s.%N); c1=$(cputime "$HOG")
kill "$HOG"; wait "$HOG" 2>/dev/null
HOG_CORES=$(python3 -c "print(($c1 - $c0) / $(getconf CLK_TCK) / ($t1 - $t0))")
echo "# the hog used $HOG_CORES cores while the cell ran"
check "run beside the hog exits 0" test "$rc" -eq 0
check "the hog is gone" sh -c "! kill -0 $HOG 2>/dev/null"
"$BENCHGEN" show "$TMP/hog" --json >"$TMP/hog.json"
check "beside the hog: contended" test "$(fact "$TMP/hog.json" contention)" = yes
# The reason names the three biggest other processes. Alone (CI) the hog is
# the biggest by far; on a shared machine it may get less CPU than three
# others, and then those three must each have used about as much or more.
check "beside the hog: the reason names the hog, or three bigger processes" \
  python3 - "$HOG" "$HOG_CORES" "$(fact "$TMP/hog.json" host.other_top)" <<'PY'
import re, sys
hog, hog_cores, top = sys.argv[1], float(sys.argv[2]), sys.argv[3]
listed = re.findall(r"pid (\d+) .*? \(([0-9.]+) cores\)", top)
print(f"# listed: {top}")
if any(pid == hog for pid, _ in listed):
    sys.exit(0)
sys.exit(0 if len(listed) == 3 and all(float(c) >= 0.8 * hog_cores - 0.02 for _, c in listed) else 1)
PY
check "beside the hog: other processes used over half a core" \
  python3 -c "import sys; sys.exit(0 if float('$(fact "$TMP/hog.json" host.other_cpu.cell)') > 0.5 else 1)"
"$BENCHGEN" show "$TMP/hog" >"$TMP/hog.txt"
check "show flags the contended cell" grep -q "contended: other processes used" "$TMP/hog.txt"

# ---- 2. alone ------------------------------------------------------------------
# In CI nothing else runs. On a shared machine --wait-idle waits for a quiet
# moment; if none comes, the cell must say that it was measured under load.
"$BENCHGEN" run "$SPEC" --out "$TMP/alone" --wait-idle 60 >"$TMP/alone.out" 2>&1
check "run alone exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/alone" --json >"$TMP/alone.json"
alone=$(fact "$TMP/alone.json" contention)
reason=$(fact "$TMP/alone.json" contention.reason)
if grep -q "wait-idle gave up" <<<"$reason"; then
  check "alone on a machine that never went quiet: flagged, with the load named" test "$alone" = yes
  echo "# note: this machine stayed busy for 60 s ($(fact "$TMP/alone.json" host.other_cpu.cell) cores used by others)"
else
  check "alone: not contended (other processes: $(fact "$TMP/alone.json" host.other_cpu.cell) cores)" \
    test "$alone" = no
fi
check "wait-idle is recorded" test "$(fact "$TMP/alone.json" host.wait_idle_s)" != ABSENT
check "no GPU facts without NVML" test "$(fact "$TMP/alone.json" gpu.devices)" = ABSENT
"$BENCHGEN" compare "$TMP/alone" "$TMP/hog" >"$TMP/cmp.txt"
check "compare: a contended cell is ambiguous" grep -q "ambiguous (measured under contention" "$TMP/cmp.txt"

# ---- 3. GPU telemetry through the fake NVML --------------------------------------
sleep 600 &
FOREIGN=$!
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_FOREIGN_PID=$FOREIGN \
  "$BENCHGEN" run "$SPEC" --out "$TMP/gpu" >"$TMP/gpu.out" 2>&1
rc=$?
kill "$FOREIGN"; wait "$FOREIGN" 2>/dev/null
check "run with the fake NVML exits 0" test "$rc" -eq 0
"$BENCHGEN" show "$TMP/gpu" --json >"$TMP/gpu.json"
G=$TMP/gpu.json
check "gpu: device name" test "$(fact "$G" gpu.name)" = "NVIDIA H100 80GB HBM3"
check "gpu: persistence and application clocks recorded" \
  test "$(fact "$G" gpu.persistence)/$(fact "$G" gpu.app_clocks_mhz)" = "on/sm 1755, mem 2619"
check "gpu: throttled flagged" test "$(fact "$G" gpu.throttled)" = yes
check "gpu: throttle reason is the power cap" grep -q "^sw power cap [0-9]*%$" <<<"$(fact "$G" gpu.throttle.reasons)"
check "gpu: about half the time throttled" \
  python3 -c "import sys; s=float('$(fact "$G" gpu.throttled.share)'); sys.exit(0 if 0.2 < s < 0.8 else 1)"
check "gpu: the foreign process is named" grep -q "pid $FOREIGN on GPU 0 (512 MiB)" <<<"$(fact "$G" gpu.foreign)"
check "gpu: a foreign process makes the cell contended" \
  grep -q "another process ran on the cell's GPU: pid $FOREIGN" <<<"$(fact "$G" contention.reason)"
check "gpu: peak device memory 6 GiB" test "$(fact "$G" gpu.mem_used.peak)" = 6442450944
check "gpu: peak memory of the cell's processes 1.5 GiB" test "$(fact "$G" gpu.mem_cell.peak)" = 1610612736
# The fake's energy counter grows 350 J per second: J/step = 350 W x the timed steps' time / steps.
check "gpu: energy per step = 350 W x step time (within 5%)" python3 - "$G" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d["cells"][0]
m = {k: int(v) for k, v in c["markers"].items()} if isinstance(c["markers"], dict) else {x["name"]: x["ns"] for x in c["markers"]}
window = (m["timed"] - m["warmup"]) / 1e9
want = 350.0 * window / c["samples"]["timed"]
got = float(c["facts"]["gpu.energy_j_per_step"])
print(f"# J/step {got:.4f}, 350 W x window/steps {want:.4f}")
sys.exit(0 if abs(got - want) <= 0.05 * want else 1)
PY
n=$(sqlite3 "$TMP/gpu/run.db" "SELECT count(*) FROM telemetry WHERE name = 'gpu.0.sm_mhz'")
wall=$(sqlite3 "$TMP/gpu/run.db" "SELECT wall_s FROM cells")
check "gpu: series stored at about 20 Hz ($n points in $wall s)" \
  python3 -c "import sys; sys.exit(0 if $n >= 10 * $wall else 1)"
check "gpu: every metric has a series" test "$(sqlite3 "$TMP/gpu/run.db" \
  "SELECT count(DISTINCT name) FROM telemetry WHERE name LIKE 'gpu.0.%'")" -eq 10
check "host series stored" test "$(sqlite3 "$TMP/gpu/run.db" \
  "SELECT count(*) FROM telemetry WHERE name = 'host.other_cpu'")" -ge 1
"$BENCHGEN" show "$TMP/gpu" >"$TMP/gpu.txt"
check "show flags the throttled cell" grep -q "GPU throttled [0-9]*% of the timed steps (sw power cap" "$TMP/gpu.txt"
"$BENCHGEN" report "$TMP/gpu" --out "$TMP/gpu-report" >/dev/null 2>&1
check "report renders" test -f "$TMP/gpu-report/report.md"
check "report: hardware table with J/step and throttling" grep -q "J/step" "$TMP/gpu-report/report.md"
check "report: the throttled cell is flagged" grep -q "GPU throttled" "$TMP/gpu-report/report.md"
check "report: the contended cell is flagged" grep -q "contended" "$TMP/gpu-report/report.md"
check "report: HTML carries the same flags" grep -q "GPU throttled" "$TMP/gpu-report/report.html"
check "the sleeping foreign process is gone" sh -c "! kill -0 $FOREIGN 2>/dev/null"

# ---- 4. a GPU cell's own facts, through the fake NVML -----------------------------
# tests/specs/gpu_cell.py reports what a GPU cell does (device "gpu" as Keras,
# "cuda" as torch, a FLOP count) while it sleeps: what the telemetry and the
# report make of it is what a GPU node would see.
gpu_spec() { # gpu_spec FILE MODEL...
  local f=$1; shift
  printf 'name: gpu-facts\nsteps: 10\nwarmup: 1\nprecision: bfloat16\nbackends: [numpy]\nrows:\n' >"$f"
  for m in "$@"; do echo "  - {model: $m, task: predict, batch: 1, workload: $ROOT/tests/specs/gpu_cell.py}" >>"$f"; done
}
row() { grep "^| $2/predict/b1/numpy |" "$1/report.md"; } # row REPORT_DIR MODEL: its hardware table row
# 4a. An older driver in a PID namespace: NVML gives the cell's worker a
# host pid /proc does not show (above pid_max). It is unknown, not a foreign
# process; the Keras-style "gpu" device still finds the GPU; an H200 NVL
# gets its own peak; the series and windows are on the markers' clock.
gpu_spec "$TMP/ns.yaml" gpucell cudacell
HOSTPID=$(( $(cat /proc/sys/kernel/pid_max) + 12345 ))
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_OWN_PID=$HOSTPID FAKE_NVML_NAME="NVIDIA H200 NVL" FAKE_NVML_ENERGY=clock \
  FAKE_NVML_THROTTLE=0 "$BENCHGEN" run "$TMP/ns.yaml" --out "$TMP/ns" >"$TMP/ns.out" 2>&1
check "namespace: run exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/ns" --json >"$TMP/ns.json"
kfact() { # kfact MODEL NAME: a fact of that row's cell in the namespace run
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[c for c in d["cells"] if c["key"].startswith(sys.argv[2] + "/")][0]; print(c["facts"].get(sys.argv[3], "ABSENT"))' "$TMP/ns.json" "$1" "$2"
}
for m in cudacell gpucell; do
  check "namespace, $m: the unresolvable pid is not foreign" test "$(kfact $m gpu.foreign)" = none
  reason=$(kfact $m contention.reason)
  check "namespace, $m: ... and does not make the cell contended" test "${reason#*GPU}" = "$reason"
  check "namespace, $m: the unresolvable pid is named as such" \
    grep -q "^pid $HOSTPID on GPU 0 (1536 MiB) (not in this PID namespace" <<<"$(kfact $m gpu.unresolved)"
  check "namespace, $m: its device (\"$( [ $m = gpucell ] && echo gpu || echo cuda)\") finds the GPU" \
    grep -q "^all devices (NVML gave pids" <<<"$(kfact $m gpu.match)"
  check "namespace, $m: GPU facts recorded (name, MIG mode)" \
    test "$(kfact $m gpu.name)/$(kfact $m gpu.mig)" = "NVIDIA H200 NVL/off"
done
# The fake's energy counter reads CLOCK_MONOTONIC: every sample says when it
# was taken, and the workload says when its first timed step began.
check "namespace: the series are on the worker's clock (within 0.3 ms)" python3 - "$TMP/ns" "$TMP/ns.json" <<'PY'
import json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1] + "/run.db")
bad = 0
for c in json.load(open(sys.argv[2]))["cells"]:
    w0 = int(c["facts"]["test.timed_start_ns"]) - int(c["markers"]["warmup"])  # the worker's start
    pts = db.execute("SELECT t_ns, value FROM telemetry JOIN cells ON cells.id = cell_id "
                     "WHERE cells.key = ? AND name = 'gpu.0.energy_j'", (c["key"],)).fetchall()
    off = statistics.median(v * 1e6 - t for t, v in pts) if pts else float("inf")  # energy_j = monotonic ms
    print(f"# {c['key']}: {len(pts)} samples; the series' origin - the worker's start = {(off - w0) / 1e6:+.3f} ms")
    bad += not (len(pts) >= 5 and abs(off - w0) < 3e5)
sys.exit(1 if bad else 0)
PY
"$BENCHGEN" report "$TMP/ns" --out "$TMP/ns-report" -q >/dev/null 2>&1
check "namespace: MFU against the H200 NVL's 835 dense bf16 TFLOP/s" python3 - "$(row "$TMP/ns-report" gpucell)" <<'PY'
import sys
cols = [c.strip() for c in sys.argv[1].split("|")]
tflops, mfu = float(cols[4].replace(",", "")), float(cols[5].rstrip("%"))
print(f"# {cols[2]}: {tflops} TFLOP/s, MFU {mfu}%")
sys.exit(0 if cols[2] == "NVIDIA H200 NVL" and abs(mfu - tflops / 835 * 100) < 0.1 else 1)
PY
# 4b. No NVML: a "gpu" cell is measured against its device's peak (device.name)
# or has none, never the CPU's calibrated peak.
export BENCHGEN_CALIBRATION=$TMP/calibration.txt
"$BENCHGEN" info --calibrate 1 >/dev/null 2>&1
gpu_spec "$TMP/nonvml.yaml" gpucell gpunoname
"$BENCHGEN" run "$TMP/nonvml.yaml" --out "$TMP/nonvml" >/dev/null 2>&1
check "no NVML: run exits 0" test $? -eq 0
"$BENCHGEN" report "$TMP/nonvml" --out "$TMP/nonvml-report" -q >/dev/null 2>&1
check "no NVML: a \"gpu\" cell's MFU uses its device name's peak (A100, 312)" python3 - "$(row "$TMP/nonvml-report" gpucell)" <<'PY'
import sys
cols = [c.strip() for c in sys.argv[1].split("|")]
tflops, mfu = float(cols[4].replace(",", "")), float(cols[5].rstrip("%"))
sys.exit(0 if cols[2] == "NVIDIA A100-SXM4-80GB" and abs(mfu - tflops / 312 * 100) < 0.1 else 1)
PY
check "no NVML: a \"gpu\" cell without a device name has no peak, not the CPU's" \
  grep -q "^| gpunoname/predict/b1/numpy | GPU | .* | NA (no peak) |" <<<"$(row "$TMP/nonvml-report" gpunoname)"
unset BENCHGEN_CALIBRATION
# 4c. MIG mode on: recorded, and the board's peak does not apply to a slice.
gpu_spec "$TMP/mig.yaml" cudacell
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_MIG=1 FAKE_NVML_THROTTLE=0 "$BENCHGEN" run "$TMP/mig.yaml" --out "$TMP/mig" >/dev/null 2>&1
check "MIG: run exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/mig" --json >"$TMP/mig.json"
check "MIG: gpu.mig = on" test "$(fact "$TMP/mig.json" gpu.mig)" = on
"$BENCHGEN" report "$TMP/mig" --out "$TMP/mig-report" -q >/dev/null 2>&1
check "MIG: the device says MIG and MFU is NA" \
  grep -q "^| cudacell/predict/b1/numpy | NVIDIA H100 80GB HBM3 (MIG) | .* | NA (no peak) |" <<<"$(row "$TMP/mig-report" cudacell)"

# ---- 5. info --check ------------------------------------------------------------
BENCHGEN_NVML_LIB=$FAKE FAKE_NVML_FOREIGN_PID=1 "$BENCHGEN" info --check >"$TMP/check.txt"
check "info --check exits 1 when something needs attention" test $? -eq 1
check "info --check names the GPU's other process" grep -q "GPU 0: 1 other process on it (pid 1)" "$TMP/check.txt"
check "info --check says what to do" grep -q -- "-> " "$TMP/check.txt"
"$BENCHGEN" info --bogus >/dev/null 2>&1
check "info with an unknown option exits 2" test $? -eq 2
"$BENCHGEN" run "$SPEC" --wait-idle soon >/dev/null 2>&1
check "run --wait-idle with a non-number exits 2" test $? -eq 2
finish
