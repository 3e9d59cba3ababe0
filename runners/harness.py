"""benchgen harness: the Python half of a cell worker.

The C worker (runners/cell.c) starts CPython bound to the cell's venv,
imports this module and drives it:

    cell = harness.Cell()                # loads the workload for _benchgen.cell
    cell.unsupported()  -> str | None    # a reason ends the cell as `unsupported`
    cell.input_specs()  -> list[dict]    # C generates, hashes and hands them back
    step = cell.setup(views)             # views: {name: memoryview over C memory}
    step()                               # C times every call, warm-up then timed
    cell.facts()        -> dict          # fairness facts
    cell.environment()  -> dict          # versions and settings of this process

The workload interface
----------------------
A workload is a Python module. Built-in ones live in runners/workloads/, one
module per framework family (numpy_ref, torch_models, keras_models); a spec
row may instead name its own file with `workload: path/to/file.py`. It
defines:

    def inputs(cell) -> list[dict]
        The synthetic inputs of one batch. Each dict has
          name   str, unique within the cell
          dtype  "int32" | "int64" | "float32" | "uint8"
          shape  list of ints
          dist   "uniform" (ints: [low, high); floats: [low, high)),
                 "normal" (floats: mean low, standard deviation high) or
                 "const" (every element low); default "uniform"
          low, high  numbers
        It must depend only on cell.model, .task, .batch and .size, never on
        the backend, so every backend gets byte-identical data. Images are
        declared channels-last (NHWC); a channels-first framework transposes.
        Optional for built-in models: workloads/inputs.py declares theirs.

    def setup(cell, data) -> callable
        Builds the model and everything a step needs. data maps each input
        name to a read-only numpy array over the C buffer (copy it if you must
        write). Returns a zero-argument function that runs exactly one step
        (one optimizer step, one forward pass, or one generate call) and
        synchronises the device before returning, because the C timer stops
        when it returns.

    def supported(cell) -> str | None        (optional)
        A reason when this backend cannot run this model/task at all.

    def facts(cell) -> dict                  (optional)
        Fairness facts recorded with the cell: matmul precision, whether
        compilation took effect, synchronisation method, dtype policy,
        parameter count, ...

`cell` carries key, model, task, batch, backend, family, size, precision,
seed, steps, warmup, repeat, env and workload (see `_benchgen.cell`). The
module may also call _benchgen.mark(name) and _benchgen.fact(name, value).
"""

import faulthandler
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import sys
import types

import _benchgen

# A segfault in a framework leaves the Python stack in the cell log.
faulthandler.enable()

FAMILY_MODULES = {
    "numpy": "workloads.numpy_ref",
    "torch": "workloads.torch_models",
    "keras": "workloads.keras_models",
}

# Environment variables that change numerics or speed, recorded per cell.
RECORDED_ENV = (
    "KERAS_BACKEND", "TF_USE_LEGACY_KERAS", "XLA_FLAGS", "TF_XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS",
    "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "TF_FORCE_GPU_ALLOW_GROWTH",
    "NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "JAX_DEFAULT_MATMUL_PRECISION",
    "JAX_ENABLE_X64", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "BENCHGEN_TORCH_COMPILE",
)


def _load_file(path):
    name = "benchgen_user_workload"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load workload file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Cell:
    def __init__(self):
        self.cell = types.SimpleNamespace(**_benchgen.cell)
        c = self.cell
        if c.workload:
            self.module = _load_file(c.workload)
        else:
            name = FAMILY_MODULES.get(c.family)
            if name is None:
                raise ImportError(f"no built-in workloads for family {c.family!r}")
            self.module = importlib.import_module(name)
        if not callable(getattr(self.module, "setup", None)):
            raise AttributeError(f"workload {self.module.__name__} defines no setup(cell, data)")
        self.specs = []

    def unsupported(self):
        fn = getattr(self.module, "supported", None)
        reason = fn(self.cell) if fn else None
        return None if reason is None else str(reason)

    def input_specs(self):
        fn = getattr(self.module, "inputs", None)
        if fn is None:
            from workloads import inputs as builtin_inputs
            fn = builtin_inputs.for_cell
        # Kept: setup() reshapes the C buffers with exactly these declarations.
        self.specs = [dict(s) for s in fn(self.cell)]
        return self.specs

    def setup(self, views):
        import numpy as np

        data = {}
        for spec in self.specs:
            arr = np.frombuffer(views[spec["name"]], dtype=spec["dtype"]).reshape(spec["shape"])
            data[spec["name"]] = arr
        return self.module.setup(self.cell, data)

    def facts(self):
        fn = getattr(self.module, "facts", None)
        out = {"warmup_steps": self.cell.warmup, "timed_steps": self.cell.steps,
               "timer": "C CLOCK_MONOTONIC around each step() call",
               "compile_cache": "empty at the start of this cell (per-cell TORCHINDUCTOR_CACHE_DIR, "
                                "TRITON_CACHE_DIR, CUDA_CACHE_PATH, JAX_COMPILATION_CACHE_DIR, TMPDIR)"}
        if fn:
            out.update({str(k): v for k, v in (fn(self.cell) or {}).items()})
        return out

    def environment(self):
        env = {
            "python.version": platform.python_version(),
            "python.implementation": platform.python_implementation(),
            "python.executable": sys.executable,
            "python.prefix": sys.prefix,
        }
        for dist in importlib.metadata.distributions():
            name = dist.metadata.get("Name")
            if name:
                # PEP 503: huggingface_hub and huggingface-hub are one package.
                env["pkg." + re.sub(r"[-_.]+", "-", name).lower()] = dist.version
        for var in RECORDED_ENV:
            if var in os.environ:
                env[f"env.{var}"] = os.environ[var]
        return env

