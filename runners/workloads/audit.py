"""The method audit: the settings that decide what a number means, read from
the workload's own facts and the environment, and stated in one vocabulary
for every backend so the report can warn when the backends of one row
differ (report/hardware.c; docs/GPU.md, "Method audit").

  audit.device        gpu | cpu
  audit.synchronised  yes when a step waits for the device before the C timer
                      stops (torch.cuda.synchronize, a result fetched to the
                      host; a CPU step is synchronous), else no: a GPU cell
                      whose synchronisation fact is missing or reads "none..."
                      (the published torch scripts) is not synchronised
  audit.tf32          on | off: float32 matmuls on TF32 tensor cores
                      (NVIDIA_TF32_OVERRIDE=0 turns it off everywhere)
  audit.tf32.conv     on | off: float32 convolutions on TF32 tensor cores
                      (torch: cudnn.allow_tf32, on by default, unlike its
                      matmuls; TensorFlow and JAX: one switch for both);
                      models with convolutions only (flops.conv_share > 0)
  audit.conv_autotune on | off: cuDNN algorithm search for convolutions
                      (torch: cudnn.benchmark, off by default; TensorFlow:
                      on unless TF_CUDNN_USE_AUTOTUNE=0; XLA: on unless
                      --xla_gpu_autotune_level=0); models with convolutions
  audit.input_copy    every step | once: whether the step copies its inputs
                      from host memory (Keras' *_on_batch take NumPy arrays;
                      native torch keeps device tensors, but for the HF
                      Trainer, which collates each batch)
  audit.dtype         float32 | bfloat16 parameters | autocast bfloat16 over
                      float32 parameters (and float16 alike)
  audit.memory        on demand | preallocated (JAX preallocates 75% of the
                      GPU unless XLA_PYTHON_CLIENT_PREALLOCATE=false; TF maps
                      all of it unless memory growth is on)
  audit.compile_mode  torch.compile's mode, on backends that use it
"""

import os


def _tf32(facts, switch="tf32.matmul"):
    """TF32 for matmuls, or for convolutions with switch="tf32.cudnn" (torch;
    TensorFlow's and JAX's one switch covers both)."""
    if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0":
        return "off"
    v = facts.get(switch)
    if isinstance(v, bool):
        return "on" if v else "off"
    if switch != "tf32.matmul":
        return _tf32(facts)
    if isinstance(v, str):
        prec = str(facts.get("jax.default_matmul_precision", "")).lower()
        if prec in ("highest", "float32", "fp32"):
            return "off"
        return "on" if "tf32 on" in v.lower() or v.lower() == "true" else "off"
    return "unknown"


def _conv_autotune(cell, facts):
    v = facts.get("cudnn.benchmark")
    if isinstance(v, bool):
        return "on" if v else "off"
    if cell.backend.endswith("-jax"):
        return "off" if "--xla_gpu_autotune_level=0" in os.environ.get("XLA_FLAGS", "") else "on"
    if cell.backend.endswith("-tensorflow"):
        return "off" if os.environ.get("TF_CUDNN_USE_AUTOTUNE") == "0" else "on"
    return "unknown"


def _synchronised(gpu, facts):
    if not gpu:
        return "yes"  # a CPU step has finished when it returns
    sync = str(facts.get("synchronisation", "")).strip().lower()
    return "no" if not sync or sync.startswith("none") else "yes"


def _dtype(cell, facts):
    pol = str(facts.get("dtype_policy", cell.precision)).replace("torch.", "")
    if pol.startswith("autocast") or pol.startswith("mixed_"):
        low = "float16" if "float16" in pol and "bfloat16" not in pol else "bfloat16"
        return f"autocast {low} over float32 parameters"
    if pol in ("bfloat16", "float16"):
        return f"{pol} parameters"
    return pol or "float32"


def _memory(cell):
    if cell.backend == "keras3-jax":
        return "on demand" if os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE") == "false" else "preallocated"
    if cell.backend in ("keras3-tensorflow", "keras2-tensorflow"):
        return "on demand" if os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH") == "true" else "preallocated"
    return "on demand"  # PyTorch's caching allocator, NumPy


def facts(cell, facts):
    dev = str(facts.get("device", "cpu")).lower()
    gpu = dev.startswith("cuda") or dev == "gpu"
    out = {"audit.device": "gpu" if gpu else "cpu",
           "audit.synchronised": _synchronised(gpu, facts),
           "audit.tf32": _tf32(facts),
           "audit.dtype": _dtype(cell, facts),
           "audit.memory": _memory(cell)}
    if float(facts.get("flops.conv_share", 0) or 0) > 0:
        out["audit.tf32.conv"] = _tf32(facts, "tf32.cudnn")
        out["audit.conv_autotune"] = _conv_autotune(cell, facts)
    copy = str(facts.get("inputs.host_to_device", ""))
    if copy:
        out["audit.input_copy"] = "every step" if copy.startswith("every step") else "once"
    comp = str(facts.get("compile", ""))
    if comp.startswith("torch.compile"):
        out["audit.compile_mode"] = comp
    return out
