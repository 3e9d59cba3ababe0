#!/usr/bin/env bash
# The method audit (runners/workloads/audit.py) on the facts a GPU cell
# records, with no GPU: a published torch cell ("none, as published") is not
# synchronised - before, any non-empty text read as yes and the report's
# warning about unsynchronised backends never fired; TF32 for convolutions
# (torch's cudnn.allow_tf32) apart from matmuls; cuDNN autotuning; per-step
# input copies. Then the report: a row whose backends differ in these is
# warned about, and a float32 convolution cell's MFU uses the TF32 peak for
# its convolution share. Needs python3 and the `base` environment.
set -u
. "$(dirname "$0")/lib.sh"

check "audit.py on GPU and CPU facts" python3 - <<'PY'
import sys, types
sys.path.insert(0, "runners")
from workloads import audit
def cell(backend): return types.SimpleNamespace(backend=backend, precision="float32")
def a(backend, **facts): return audit.facts(cell(backend), facts)
bad = []
def want(what, got, expect):
    if got != expect: bad.append(f"{what}: {got!r} != {expect!r}")
published = a("torch-eager", device="cuda", synchronisation="none, as published (the timer may stop before queued kernels finish)")
want("published torch on cuda", published["audit.synchronised"], "no")
want("corrected torch on cuda", a("torch-eager", device="cuda", synchronisation="torch.cuda.synchronize() at the end of every step")["audit.synchronised"], "yes")
want("no fact on a GPU", a("torch-eager", device="cuda")["audit.synchronised"], "no")
want("Keras on a GPU", a("keras3-jax", device="gpu", synchronisation="step result fetched as NumPy")["audit.synchronised"], "yes")
want("a CPU step", a("torch-eager", device="cpu", synchronisation="none needed: CPU kernels finish before the step returns")["audit.synchronised"], "yes")
sd = a("torch-eager", device="cuda", **{"tf32.matmul": False, "tf32.cudnn": True, "cudnn.benchmark": False, "flops.conv_share": 0.96,
        "inputs.host_to_device": "once, in setup"})
want("torch SD: TF32 matmul", sd["audit.tf32"], "off")
want("torch SD: TF32 conv", sd["audit.tf32.conv"], "on")
want("torch SD: autotune", sd["audit.conv_autotune"], "off")
want("torch SD: copies", sd["audit.input_copy"], "once")
jx = a("keras3-jax", device="gpu", **{"tf32.matmul": "default: TF32 on Ampere+ GPUs", "flops.conv_share": 0.96,
        "inputs.host_to_device": "every step (NumPy inputs)"})
want("JAX SD: TF32 conv", jx["audit.tf32.conv"], "on")
want("JAX SD: autotune", jx["audit.conv_autotune"], "on")
want("JAX SD: copies", jx["audit.input_copy"], "every step")
want("no convolutions: no conv audit", "audit.tf32.conv" in a("torch-eager", device="cuda", **{"flops.conv_share": 0}), False)
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY

# The report, from cells that record those facts (a custom workload stands
# in for a GPU cell: tests/specs/gpu_cell.py records what it is told).
cat >"$TMP/spec.yaml" <<YAML
name: audit
steps: 3
warmup: 1
backends: [numpy]
rows:
  - {model: convcell, task: predict, batch: 1, workload: $ROOT/tests/specs/gpu_cell.py}
  - {model: unsynced, task: predict, batch: 1, workload: $ROOT/tests/specs/gpu_cell.py}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >/dev/null 2>&1
check "run exits 0" test $? -eq 0
"$BENCHGEN" report "$TMP/run" --out "$TMP/report" -q >/dev/null 2>&1
R=$TMP/report/report.md
check "report: an unsynchronised GPU cell is warned about" \
  grep -q "unsynced (predict), batch 1: device synchronisation missing on some backend: no (numpy)" "$R"
check "report: float32 convolutions under TF32 use the TF32 peak for their share" python3 - "$R" <<'PY'
import sys
row = [l for l in open(sys.argv[1]) if l.startswith("| convcell/predict/b1/numpy |")][0]
cols = [c.strip() for c in row.split("|")]
tflops, mfu = float(cols[4].replace(",", "")), float(cols[5].rstrip("%"))
# A100: FP32 19.5 for the matmuls (TF32 off), TF32 156 for the 96% convolutions
peak = 1 / (0.04 / 19.5 + 0.96 / 156)
print(f"# {tflops} TFLOP/s, MFU {mfu}% (want {tflops / peak * 100:.1f}% against {peak:.1f}, not {tflops / 19.5 * 100:.1f}%)")
sys.exit(0 if abs(mfu - tflops / peak * 100) < 0.1 else 1)
PY
finish
