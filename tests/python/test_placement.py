"""Unit tests of the device guard's decision (runners/workloads/placement.py)
with faked placement reports of each framework; no framework, no GPU.
Run: python3 tests/python/test_placement.py (prints ok / not ok lines)."""
import os
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runners"))
from workloads import placement  # noqa: E402

failed = 0


def check(name, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + name)
    failed |= not cond


def cell(device, rule="auto", backend="keras3-jax"):
    return types.SimpleNamespace(device=device, device_rule=rule, backend=backend)


torch_gpu = {"model": {"cuda:0": 1000}, "inputs": {"cuda:0": 3}, "gpu": None}
jax_cpu = {"model": {"cpu:0": 1000}, "inputs": {"cpu:0": 3},
           "gpu": "jaxlib has no CUDA plugin (benchgen env sync --cuda keras3)"}
tf_gpu = {"model": {"GPU:0": 500}, "inputs": {placement.short_tf("/job:localhost/replica:0/task:0/device:GPU:0"): 2}}
split = {"model": {"cuda:0": 990, "cpu": 10}, "inputs": {"cuda:0": 1}}
inputs_host = {"model": {"cuda:0": 10}, "inputs": {"cpu": 2}}

f, p = placement.check(torch_gpu, cell("gpu", backend="torch-eager"))
check("torch on cuda:0 passes a gpu run", p is None and f["placement.device"] == "gpu")
f, p = placement.check(jax_cpu, cell("gpu"))
check("keras3-jax on cpu is refused with the issue's sentence",
      p == "keras3-jax placed the model on cpu, but this run requires gpu: jaxlib has no CUDA plugin "
           "(benchgen env sync --cuda keras3)")
check("JAX on cpu passes a cpu run", placement.check(jax_cpu, cell("cpu"))[1] is None)
f, p = placement.check(tf_gpu, cell("gpu", backend="keras3-tensorflow"))
check("TensorFlow GPU:0 (from a /job:... name) passes a gpu run", p is None and f["placement.inputs"] == "GPU:0 (2 inputs)")
f, p = placement.check(tf_gpu, cell("cpu", "cpu", backend="keras3-tensorflow"))
check("TensorFlow on GPU refused in a cpu run", p is not None and "placed the model on gpu, but this run requires cpu" in p)
f, p = placement.check(split, cell("gpu", backend="torch-eager"))
check("a split model is reported as split and refused", p is not None and "split the model across gpu" in p
      and "cpu (cpu: 10 parameters)" in p and f["placement.device"] == "cpu+gpu")
f, p = placement.check(split, cell("cpu", backend="torch-eager"))
check("a split model is refused in a cpu run too", p is not None and "split the model" in p)
f, p = placement.check(inputs_host, cell("gpu", backend="torch-eager"))
check("inputs left on the host are refused", p is not None and "placed the step's inputs on cpu (the model on gpu)" in p)
f, p = placement.check(None, cell("cpu", "auto"))
check("no report under auto: recorded unknown, not refused", p is None and f["placement.device"] == "unknown")
f, p = placement.check(None, cell("gpu", "gpu"))
check("no report under an explicit device: refused", p is not None and "does not say where" in p)
check("kinds", [placement.kind(d) for d in ("cuda:0", "gpu:0", "CudaDevice(id=0)", "TFRT_CPU_0", "CPU:0", "cpu",
                                           "tpu:0", "meta")] == ["gpu", "gpu", "gpu", "cpu", "cpu", "cpu", "tpu", "meta"])
sys.exit(1 if failed else 0)
