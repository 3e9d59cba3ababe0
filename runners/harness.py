"""benchgen harness: the Python half of a cell worker.

benchgen exec()s the environment's interpreter, whose `_benchgen` C module
(runners/ext/steps.c) imports this module and drives it:

    cell = harness.Cell()                # loads the workload for _benchgen.cell
    cell.unsupported()  -> str | None    # a reason ends the cell as `unsupported`
    cell.input_specs()  -> list[dict]    # C generates, hashes and hands them back
    step = cell.setup(views)             # views: {name: memoryview over C memory}
    facts, problem = cell.placement()    # the device guard: a problem ends the cell `error`
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
                 "normal" (floats: mean, standard deviation std) or
                 "const" (every element low); default "uniform"
          low, high  numbers (uniform, const)
          mean, std  numbers (normal; std >= 0). The older spelling of a
                 normal declaration, low as the mean and high as the
                 standard deviation, is still read; the two may not be mixed
        It must depend only on cell.model, .task, .batch and .size, never on
        the backend, so every backend gets byte-identical data. Images are
        declared channels-last (NHWC); a channels-first framework transposes.
        Every declaration is checked key by key before any memory is filled
        (check_inputs below): an unknown key is rejected (a misspelt `dist`
        would otherwise silently mean uniform), and each bad key gets its own
        message. Required for a custom workload (one named like a built-in
        model never gets the built-in inputs); built-in models may leave it
        out: workloads/inputs.py declares theirs.

    def setup(cell, data) -> callable
        Builds the model and everything a step needs. data maps each input
        name to a read-only numpy array over the C buffer (copy it if you must
        write). Returns a zero-argument function that runs exactly one step
        (one optimizer step, one forward pass, or one generate call) and
        synchronises the device before returning, because the C timer stops
        when it returns. Anything else returned is an error that names it.

    def supported(cell) -> str | None        (optional)
        A reason when this backend cannot run this model/task at all.

    def placement(cell) -> dict              (optional)
        Called after setup(), before the first step: where the model's
        parameters and the step's inputs live, {"model": {device: n},
        "inputs": {device: n}, "gpu": None or why there is no GPU}
        (workloads/placement.py). A cell whose model or inputs are not on
        the kind of processor the run requires (cell.device: gpu | cpu, from
        the spec's `device:`) ends `error` before its first step. Without
        it nothing is checked under `device: auto`, and a spec that names
        gpu or cpu refuses the cell.

    def window(cell) -> None                 (optional)
        Called after the timed steps, before facts(): where the method times
        the original's window (docs/METHOD.md), runs it, marking its two
        clock reads with _benchgen.mark("window.begin") and
        _benchgen.mark("window.end") and recording window.calls as a fact.

    def facts(cell) -> dict                  (optional)
        Fairness facts recorded with the cell: matmul precision, whether
        compilation took effect, synchronisation method, dtype policy,
        parameter count, ...

`cell` carries key, model, task, batch, backend, family, size, precision,
seed, steps, warmup, repeat, env, workload, method, device (gpu | cpu: what
the cell must run on), device_rule (the spec's gpu | cpu | auto) and
ablate (None, or the test-only knobs in effect: runners/ablate.h) (see
`_benchgen.cell`). The
module may also call _benchgen.mark(name) and _benchgen.fact(name, value).
"""

import faulthandler
import importlib
import importlib.metadata
import importlib.util
import os
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
    # Modules beside the workload import as they would for `python path`:
    # its folder is on sys.path, last, so it shadows no installed module.
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.append(folder)
    name = "benchgen_user_workload"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load workload file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


INPUT_KEYS = ("name", "dtype", "shape", "dist", "low", "high", "mean", "std")
DTYPES = ("int32", "int64", "float32", "uint8")
DISTS = ("uniform", "normal", "const")
MAX_RANK = 8  # runners/synth.h SYNTH_MAX_DIMS
MAX_NAME = 63  # runners/synth.h: name[64]


def _compile_cache_text(kind):
    """The compile_cache fact: which caches the compilers saw (the worker sets
    BENCHGEN_COMPILE_CACHE, runners/worker.c; the C side records the short
    fact compile.cache = cold | warm)."""
    dirs = "TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, CUDA_CACHE_PATH, JAX_COMPILATION_CACHE_DIR"
    if kind == "warm":
        return ("warm: the A/B arm's cache for this cell (" + dirs + ") held what the arm's earlier "
                "processes compiled; the first call is not compile time")
    if kind == "cold":
        return ("cold: the A/B arm's cache for this cell (" + dirs + ") was empty at the start; "
                "the arm's later processes reuse it")
    return "empty at the start of this cell (per-cell " + dirs + ", TMPDIR)"


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _suggest(word, choices):
    import difflib
    close = difflib.get_close_matches(str(word), choices, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def check_inputs(specs):
    """Every problem with a list of input declarations, one message per bad
    key (an empty list when all is well)."""
    if not isinstance(specs, (list, tuple)):
        return [f"inputs() must return a list of dicts, got {type(specs).__name__}"]
    problems, seen = [], {}
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict):
            problems.append(f"input #{i}: expected a dict, got {type(spec).__name__}")
            continue
        name = spec.get("name")
        where = f"input '{name}'" if isinstance(name, str) and name else f"input #{i}"
        for key in spec:
            if key not in INPUT_KEYS:
                problems.append(f"{where}: unknown key {key!r}{_suggest(key, INPUT_KEYS)} "
                                f"(keys: {', '.join(INPUT_KEYS)})")
        if not isinstance(name, str) or not name:
            problems.append(f"{where}: name must be a non-empty string, got {name!r}")
        elif len(name.encode()) > MAX_NAME:
            problems.append(f"{where}: name is longer than {MAX_NAME} bytes")
        elif name in seen:
            problems.append(f"{where}: name given twice (inputs #{seen[name]} and #{i})")
        else:
            seen[name] = i
        dtype = spec.get("dtype")
        if dtype not in DTYPES:
            problems.append(f"{where}: dtype {dtype!r} is not one of {', '.join(DTYPES)}"
                            f"{_suggest(dtype, DTYPES) if isinstance(dtype, str) else ''}")
        shape = spec.get("shape")
        if not isinstance(shape, (list, tuple)):
            problems.append(f"{where}: shape must be a list of sizes, got {shape!r}")
        elif len(shape) > MAX_RANK:
            problems.append(f"{where}: rank {len(shape)} is above the largest supported, {MAX_RANK}")
        elif not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape):
            problems.append(f"{where}: shape {list(shape)!r} must hold integers >= 1")
        dist = spec.get("dist", "uniform")
        if dist not in DISTS:
            problems.append(f"{where}: dist {dist!r} is not one of {', '.join(DISTS)}"
                            f"{_suggest(dist, DISTS) if isinstance(dist, str) else ''}")
        elif dist == "normal" and dtype in DTYPES and dtype != "float32":
            problems.append(f"{where}: dist 'normal' needs dtype float32, got {dtype!r}")
        low, high = spec.get("low"), spec.get("high")
        moments = [k for k in ("mean", "std") if k in spec]
        if moments and dist != "normal":
            problems.append(f"{where}: {' and '.join(moments)} go{'es' if len(moments) == 1 else ''} with dist "
                            f"'normal', not {dist!r}: give low and high")
            moments = []
        elif moments and ("low" in spec or "high" in spec):
            problems.append(f"{where}: dist 'normal' takes mean and std, or the older low (mean) and high "
                            "(standard deviation), not both")
            moments = []
        if moments:
            mean, std = spec.get("mean"), spec.get("std")
            if not _is_number(mean):
                problems.append(f"{where}: mean must be a number, got {mean!r}")
            if not _is_number(std) or std < 0:
                problems.append(f"{where}: std must be a number >= 0, got {std!r}")
            continue
        if not _is_number(low):
            problems.append(f"{where}: low must be a number, got {low!r}")
        if dist != "const" and not _is_number(high):
            problems.append(f"{where}: high must be a number, got {high!r}")
        elif dist == "const" and high is not None and not _is_number(high):
            problems.append(f"{where}: high must be a number when given, got {high!r}")
        if (dist == "uniform" and dtype in DTYPES and dtype != "float32" and _is_number(low)
                and _is_number(high) and not high > low):
            problems.append(f"{where}: integer range [{low}, {high}) is empty")
    return problems


def aligned_copy(np, arr, align=64):
    """A writable copy of arr in memory numpy owns, starting on an `align`
    byte boundary (numpy's own allocator promises 16)."""
    raw = np.empty(arr.nbytes + align, dtype=np.uint8)
    skip = -raw.ctypes.data % align
    out = raw[skip:skip + arr.nbytes].view(arr.dtype).reshape(arr.shape)
    out[...] = arr
    return out


def _moments_as_range(spec):
    if "mean" in spec or "std" in spec:
        spec["low"], spec["high"] = spec.pop("mean"), spec.pop("std")
    return spec


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
            if self.cell.workload:
                # Never fall back to a built-in model's inputs: a custom
                # workload named `bert` is not BERT.
                raise AttributeError(
                    f"workload {self.cell.workload} defines no inputs(cell): a custom workload must "
                    "declare its synthetic inputs, a list of dicts with name, dtype, shape, dist, low "
                    "and high (see runners/harness.py or the README's custom workload example)")
            from workloads import inputs as builtin_inputs
            fn = builtin_inputs.for_cell
        specs = fn(self.cell)
        problems = check_inputs(specs)
        if problems:
            raise ValueError(f"{self.describe()}: inputs() declared bad inputs:\n  " + "\n  ".join(problems))
        # Kept: setup() reshapes the C buffers with exactly these declarations.
        # A normal's mean and std reach the C generator as low and high.
        self.specs = [_moments_as_range(dict(s)) for s in specs]
        return self.specs

    def describe(self):
        return f"workload {self.cell.workload}" if self.cell.workload else f"built-in workload {self.module.__name__}"

    def setup(self, views):
        import numpy as np

        # Test-only (runners/ablate.h): Python-owned, writable, aligned copies
        # instead of read-only views of the C buffers.
        copy = "inputs-copy" in (getattr(self.cell, "ablate", None) or "").split(",")
        data = {}
        for spec in self.specs:
            arr = np.frombuffer(views[spec["name"]], dtype=spec["dtype"]).reshape(spec["shape"])
            data[spec["name"]] = aligned_copy(np, arr) if copy else arr
        step = self.module.setup(self.cell, data)
        if not callable(step):
            shown = repr(step)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            raise TypeError(f"{self.describe()}: setup(cell, data) must return a function that runs one "
                            f"step; it returned {type(step).__name__} {shown}")
        return step

    def placement(self):
        """The device guard, between setup() and the first warm-up step:
        (facts, problem) from the workload's placement report
        (workloads/placement.py); a problem ends the cell `error`."""
        from workloads import placement
        fn = getattr(self.module, "placement", None)
        return placement.check(fn(self.cell) if fn else None, self.cell)

    def window(self):
        """After the timed steps: the workload's window(cell), where it
        times the original's window (docs/METHOD.md) with _benchgen.mark."""
        fn = getattr(self.module, "window", None)
        if callable(fn):
            fn(self.cell)

    def facts(self):
        fn = getattr(self.module, "facts", None)
        out = {"warmup_steps": self.cell.warmup, "timed_steps": self.cell.steps,
               "timer": "C CLOCK_MONOTONIC around each step() call",
               "compile_cache": _compile_cache_text(os.environ.get("BENCHGEN_COMPILE_CACHE", "cell"))}
        if fn:
            out.update({str(k): v for k, v in (fn(self.cell) or {}).items()})
        if not self.cell.workload:  # built-in models: FLOPs and the method audit (docs/GPU.md)
            from workloads import audit, flops
            out.update(flops.facts(self.cell))
            out.update(audit.facts(self.cell, out))
        # The spec's method (published | corrected, docs/METHOD.md): always
        # the cell's own, whatever the workload recorded under that name.
        out["method"] = getattr(self.cell, "method", None) or "corrected"
        return out

    def environment(self):
        # python.version, .implementation, .executable and .prefix are sent
        # by the C module as soon as the interpreter is up (runners/ext/steps.c).
        env = {}
        for dist in importlib.metadata.distributions():
            name = dist.metadata.get("Name")
            if name:
                # PEP 503: huggingface_hub and huggingface-hub are one package.
                env["pkg." + re.sub(r"[-_.]+", "-", name).lower()] = dist.version
        for var in RECORDED_ENV:
            if var in os.environ:
                env[f"env.{var}"] = os.environ[var]
        return env

