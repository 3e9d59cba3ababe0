"""The autotuning state that can make one process of a cell differ from
another (issue 22): a library that picks an algorithm by timing candidates
when the process runs may pick differently in the next process, so a cell
whose processes split into two groups of step times is explained by these
facts (docs/RUN-FORMAT.md). Every framework cell records them, on a CPU too:
the value is the setting, whether or not this device autotunes.

  cudnn.benchmark        torch (native and Keras on torch): cuDNN's algorithm
                         search for convolutions (torch.backends.cudnn.benchmark,
                         off by default)
  inductor.max_autotune  torch.compile: Inductor's kernel autotuning
                         (torch._inductor.config.max_autotune: mode
                         "max-autotune" or TORCHINDUCTOR_MAX_AUTOTUNE=1)
  xla.autotune_level     JAX, and TensorFlow (XLA reads the same flags): the
                         level XLA_FLAGS sets with --xla_gpu_autotune_level=N
                         (the last one wins, as in XLA), else "default"
  tf.cudnn_autotune      TensorFlow: cuDNN autotuning, "on (default)" unless
                         TF_CUDNN_USE_AUTOTUNE says otherwise
"""

import os

_XLA_FLAG = "--xla_gpu_autotune_level="


def xla_autotune_level():
    level = None
    for tok in os.environ.get("XLA_FLAGS", "").split():
        if tok.startswith(_XLA_FLAG):
            level = tok[len(_XLA_FLAG):]
    return level if level is not None else "default"


def torch_facts(torch, compiled=False):
    out = {"cudnn.benchmark": bool(torch.backends.cudnn.benchmark)}
    if compiled:
        try:
            from torch._inductor import config
            out["inductor.max_autotune"] = bool(config.max_autotune)
        except Exception as e:  # facts must never fail a finished cell
            out["inductor.max_autotune"] = f"unknown ({type(e).__name__})"
    return out


def tensorflow_facts():
    v = os.environ.get("TF_CUDNN_USE_AUTOTUNE")
    if v is None:
        cudnn = "on (default)"
    else:  # TensorFlow's ReadBoolFromEnvVar: 0/false and 1/true, any case
        cudnn = "%s (TF_CUDNN_USE_AUTOTUNE=%s)" % ("off" if v.strip().lower() in ("0", "false") else "on", v)
    return {"tf.cudnn_autotune": cudnn, "xla.autotune_level": xla_autotune_level()}


def jax_facts():
    return {"xla.autotune_level": xla_autotune_level()}
