# gpu_cell.py - a custom workload for tests/integration/test_telemetry.sh
# that reports what a GPU cell reports, on a machine without one: each step
# sleeps 30 ms (no CPU use); facts() records the device fact of the backend
# family the model name says - "gpucell" as Keras does ("gpu"), "cudacell"
# as torch does ("cuda") - a device name for "gpucell", none for
# "gpunoname", a FLOP count, and CLOCK_MONOTONIC at the start of the first
# timed step (the worker's t0 is that minus the "warmup" marker).
# For tests/integration/test_audit.sh: "convcell" is a float32 torch
# convolution model on an A100 (TF32 off for matmuls, on for cuDNN, 96% of
# its FLOPs in convolutions); "unsynced" a GPU cell that is not synchronised
# (the method audit's facts, as built-in workloads record them).
import time

_state = {"calls": 0, "timed_start_ns": None}


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [4], "low": 0, "high": 1}]


def setup(cell, data):
    def step():
        _state["calls"] += 1
        if _state["calls"] == cell.warmup + 1:
            _state["timed_start_ns"] = time.monotonic_ns()
        time.sleep(0.03)
    return step


def facts(cell):
    out = {"device": "cuda" if cell.model == "cudacell" else "gpu",
           "flops.per_step": 10_000_000_000_000,
           "test.timed_start_ns": _state["timed_start_ns"]}
    if cell.model in ("gpucell", "convcell", "unsynced"):
        out["device.name"] = "NVIDIA A100-SXM4-80GB"
    if cell.model == "convcell":
        out.update({"flops.conv_share": 0.96, "audit.device": "gpu", "audit.synchronised": "yes",
                    "audit.tf32": "off", "audit.tf32.conv": "on"})
    if cell.model == "unsynced":
        out.update({"audit.device": "gpu", "audit.synchronised": "no"})
    return out
