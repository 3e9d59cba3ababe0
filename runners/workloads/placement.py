"""The device guard: where a cell's model and inputs live, and whether that is
the kind of processor the run requires (docs/SPEC.md, "device").

Before the first warm-up step the harness asks the workload's
placement(cell) for a report and hands it to check(), a pure function (no
framework is imported here), so the decision is unit-tested with faked
reports (tests/integration/test_device_guard.sh runs tests/python/).

A report is a dict:

    model   {device name: parameters on it}   (elements; torch parameters,
            Keras variables, JAX arrays, TensorFlow variables)
    inputs  {device name: inputs on it}       (the step's input tensors, or
            where the framework puts host arrays it copies each step)
    gpu     None when the framework sees a GPU, else one sentence: why not,
            and what to do ("jaxlib has no CUDA plugin (benchgen env sync
            --cuda keras3)")

Device names are the framework's own: "cuda:0", "cpu" (torch), "gpu:0",
"cpu:0" (JAX platform:id), "GPU:0", "CPU:0" (TensorFlow, without the
"/job:.../device:" prefix), "TFRT_CPU_0", ...; kind() maps each to gpu,
cpu, tpu, mps, xpu or meta.

The cell says what it must run on: cell.device (gpu | cpu, resolved by the
parent: plan/device.h) and cell.device_rule (the spec's gpu | cpu | auto).
"""

# Substrings of a device name that mean an NVIDIA or AMD GPU, checked before cpu.
_GPU = ("cuda", "gpu", "rocm")
_OTHER = ("cpu", "tpu", "mps", "xpu", "meta")


def kind(device):
    """gpu, cpu, tpu, mps, xpu, meta, or the name itself when unknown."""
    s = str(device).lower()
    if any(w in s for w in _GPU):
        return "gpu"
    for w in _OTHER:
        if w in s:
            return w
    return s or "unknown"


def short_tf(name):
    """'/job:localhost/replica:0/task:0/device:GPU:0' -> 'GPU:0'."""
    s = str(name)
    i = s.rfind("/device:")
    return s[i + len("/device:"):] if i >= 0 else s


def tally(devices):
    """{device: count} from (device, count) pairs, devices as text."""
    out = {}
    for dev, n in devices:
        out[str(dev)] = out.get(str(dev), 0) + int(n)
    return out


def _kinds(counts):
    return sorted({kind(d) for d in counts})


def describe(counts, unit):
    """'cuda:0 (1,234 parameters); cpu (24 parameters)', largest first."""
    if not counts:
        return "none"
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "; ".join(f"{d} ({n:,} {unit})" for d, n in items)


def _by_kind(counts, unit):
    """'gpu (cuda:0: 1,000 parameters) and cpu (cpu: 24 parameters)'."""
    parts = []
    for k in sorted({kind(d) for d in counts}, key=lambda k: -sum(n for d, n in counts.items() if kind(d) == k)):
        sub = {d: n for d, n in counts.items() if kind(d) == k}
        parts.append(f"{k} ({', '.join(f'{d}: {n:,} {unit}' for d, n in sorted(sub.items()))})")
    return " and ".join(parts)


def _fix(report, required, rule, backend):
    """What to do when a cell is not on the required kind of processor."""
    if required == "gpu":
        why = report.get("gpu") if report else None
        if why:
            return why
        return (f"the framework sees a GPU but {backend}'s workload left it on the host: move every parameter "
                "and input to the GPU before the first step, or set device: cpu to time it on the host")
    return ("the workload did not keep it on the host: hide the GPUs from it (CUDA_VISIBLE_DEVICES=), or set "
            "device: gpu or auto to time it on the GPU")


def check(report, cell):
    """(facts, problem): facts record where the cell's model and inputs
    live (placement.*); problem is None, or the sentence that ends the cell
    as `error` before its first step."""
    required = getattr(cell, "device", None) or "cpu"
    rule = getattr(cell, "device_rule", None) or "auto"
    backend = getattr(cell, "backend", None) or "the workload"
    facts = {"placement.required": required, "placement.rule": rule}
    model = dict((report or {}).get("model") or {})
    inputs = dict((report or {}).get("inputs") or {})
    if report is None or (not model and not inputs):
        facts["placement.device"] = "unknown"
        if report is None:
            facts["placement.model"] = "not reported (the workload defines no placement(cell))"
        if rule == "auto":
            return facts, None
        return facts, (f"{backend}'s workload does not say where it placed the model and inputs, but this run "
                       f"requires {required}: give the workload a placement(cell) (runners/harness.py) or "
                       "set device: auto")
    mk, ik = _kinds(model), _kinds(inputs)
    facts["placement.device"] = "+".join(sorted(set(mk) | set(ik)))
    facts["placement.model"] = describe(model, "parameters")
    facts["placement.inputs"] = describe(inputs, "inputs")
    if report.get("gpu"):
        facts["placement.no_gpu"] = report["gpu"]
    if len(mk) > 1:
        return facts, (f"{backend} split the model across {_by_kind(model, 'parameters')}, but this run requires "
                       f"all of it on {required}: every parameter must be on one kind of processor (look for a "
                       "module built after the model was moved, or offloading such as device_map)")
    if mk and mk != [required]:
        return facts, (f"{backend} placed the model on {mk[0]}, but this run requires {required}: "
                       f"{_fix(report, required, rule, backend)}")
    if len(ik) > 1:
        return facts, (f"{backend} placed the step's inputs on {_by_kind(inputs, 'inputs')}, but this run "
                       f"requires all of them on {required}: copy every input to the {required} before the "
                       "first step")
    if ik and ik != [required]:
        where = f" (the model on {mk[0]})" if mk else ""
        return facts, (f"{backend} placed the step's inputs on {ik[0]}{where}, but this run requires "
                       f"{required}: {_fix(report, required, rule, backend)}")
    return facts, None


# ---------------------------------------------------------------- reports
# What each framework says about its own tensors; called by the workloads
# after setup (they import the framework, this module never does).

def torch_report(torch, modules, input_devices, env_name="torch"):
    """modules: the cell's nn.Modules; input_devices: the device of each of
    the step's inputs (str); env_name: the cell's environment, for the fix."""
    seen, model = set(), []
    for m in modules:
        for p in m.parameters():
            if id(p) not in seen:
                seen.add(id(p))
                model.append((p.device, p.numel()))
    return {"model": tally(model), "inputs": tally((d, 1) for d in input_devices), "gpu": torch_no_gpu(torch, env_name)}


def torch_no_gpu(torch, env_name="torch"):
    """None when torch sees a CUDA (or ROCm) GPU, else why not and what to do."""
    if torch.cuda.is_available():
        return None
    built = getattr(torch.version, "cuda", None) or getattr(torch.version, "hip", None)
    if not built:
        return (f"this torch ({torch.__version__}) is a CPU-only build (benchgen env sync --cuda {env_name})")
    return (f"torch {torch.__version__} was built for CUDA {built} but sees no GPU (torch.cuda.device_count() "
            "is 0): check the driver (nvidia-smi) and CUDA_VISIBLE_DEVICES")


def jax_no_gpu(jax, env_name):
    import importlib.util
    platforms = {d.platform for d in jax.devices()}
    if platforms & {"gpu", "cuda", "rocm"}:
        return None
    plugin = any(importlib.util.find_spec(n) is not None
                 for n in ("jax_cuda13_plugin", "jax_cuda12_plugin", "jax_cuda11_plugin", "jax_rocm60_plugin"))
    if not plugin:
        return f"jaxlib has no CUDA plugin (benchgen env sync --cuda {env_name})"
    return ("JAX's CUDA plugin is installed but found no GPU (jax.devices() lists only "
            f"{', '.join(sorted(platforms))}): check the driver (nvidia-smi) and CUDA_VISIBLE_DEVICES")


def tf_no_gpu(tf, env_name):
    if tf.config.list_physical_devices("GPU"):
        return None
    if not tf.test.is_built_with_cuda():
        return f"this TensorFlow ({tf.__version__}) has no CUDA support (benchgen env sync --cuda {env_name})"
    return (f"TensorFlow {tf.__version__} was built with CUDA but sees no GPU: its CUDA libraries "
            "(tensorflow[and-cuda]) are missing or do not match the driver (nvidia-smi)")


def array_device(x):
    """The device of a JAX array, TensorFlow tensor or variable, or torch
    tensor, as a short name ('gpu:0', 'GPU:0', 'cuda:0', 'cpu')."""
    devs = getattr(x, "devices", None)  # jax.Array
    if callable(devs):
        try:
            ds = sorted(devs(), key=lambda d: d.id)
            return ",".join(f"{d.platform}:{d.id}" for d in ds)
        except Exception:
            pass
    dev = getattr(x, "device", None)
    if callable(dev):  # older jax: array.device()
        d = dev()
        return f"{d.platform}:{d.id}" if hasattr(d, "platform") else str(d)
    if dev is None:
        return "cpu"  # NumPy
    return short_tf(dev) if isinstance(dev, str) else str(dev)
