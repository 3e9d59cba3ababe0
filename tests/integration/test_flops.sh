#!/usr/bin/env bash
# The analytic FLOPs (runners/workloads/flops.py) against PyTorch's own
# count: every tiny torch-eager cell of the published matrix runs one step
# under torch.utils.flop_counter.FlopCounterMode; each must agree within 10%
# (docs/GPU.md explains what differs). Then a real run records flops.* and
# audit.* facts and the report's hardware table shows GFLOP/step and TFLOP/s.
# Needs the `torch` and `base` environments.
set -u
. "$(dirname "$0")/lib.sh"

PY=$("$BENCHGEN" env list | awk '$1 == "torch" && $2 == "ready" {print $4 "/bin/python"}')
check "the torch environment is ready" test -x "$PY"
OMP_NUM_THREADS=1 "$PY" tests/flops/check_flops.py --tolerance 0.10 >"$TMP/xcheck.txt" 2>"$TMP/xcheck.err"
rc=$?
grep -E "^(ok |BAD)" "$TMP/xcheck.txt" | sed 's/^/# /'
check "analytic FLOPs within 10% of FlopCounterMode on every tiny torch-eager cell" test "$rc" -eq 0
check "twelve cells cross-checked" test "$(grep -cE '^(ok |BAD)' "$TMP/xcheck.txt")" -eq 12

cat >"$TMP/spec.yaml" <<'YAML'
name: flops
size: tiny
steps: 3
timeout: 300
backends: [torch-eager, numpy]
rows:
  - {model: bert, task: predict, batch: 4}
  - {model: mlp, task: fit, batch: 64}
YAML
# info --calibrate: the CPU peak MFU is measured against, recorded by later
# runs (the run below: one run gives the FLOPs facts and the MFU)
export BENCHGEN_CALIBRATION=$TMP/calibration.txt
"$BENCHGEN" info --calibrate 1 >"$TMP/cal.txt"
check "info --calibrate exits 0" test $? -eq 0
check "info --calibrate stores a positive rate" \
  python3 -c "import sys; v=[l.split()[1] for l in open('$TMP/calibration.txt') if l.startswith('gflops_float32 ')]; sys.exit(0 if v and float(v[0]) > 0 else 1)"
check "info shows the calibrated peak" sh -c "'$BENCHGEN' info | grep -q cpu.peak_gflops.float32"
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >"$TMP/run.out" 2>&1
"$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json"
fact() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[c for c in d["cells"] if c["key"]==sys.argv[2]][0]; print(c["facts"].get(sys.argv[3], "ABSENT"))' "$TMP/run.json" "$1" "$2"; }
want=$("$PY" -c 'import sys; sys.path.insert(0, "runners"); sys.modules["_benchgen"] = type(sys)("_benchgen")
from workloads import flops; print(flops.count("bert", "predict", "tiny", 4)[1])')
check "bert predict records flops.per_step = the analytic count ($want)" \
  test "$(fact bert/predict/b4/torch-eager flops.per_step)" = "$want"
check "the NumPy MLP is counted too" test "$(fact mlp/fit/b64/numpy flops.per_step)" != ABSENT
check "the method audit is recorded" test "$(fact bert/predict/b4/torch-eager audit.synchronised)" = yes
check "audit: TF32 state" test "$(fact bert/predict/b4/torch-eager audit.tf32)" = off
"$BENCHGEN" report "$TMP/run" --out "$TMP/report" -q >/dev/null 2>&1
check "report: the hardware table has GFLOP/step and TFLOP/s" \
  sh -c "grep -q 'GFLOP/step' '$TMP/report/report.md' && grep -q 'TFLOP/s' '$TMP/report/report.md'"
check "report: MFU of a CPU cell against the calibrated peak" \
  python3 - "$TMP/report/report.md" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| mlp/fit/b64/numpy")]
sys.exit(0 if any(re.search(r"\| CPU \|.*\| [0-9.,]+% \|", r) for r in rows) else 1)
PY
"$BENCHGEN" info --calibrate 0 >/dev/null 2>&1
check "info --calibrate 0 is a usage error" test $? -eq 2
finish
