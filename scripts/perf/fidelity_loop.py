"""The plain side of scripts/fidelity.sh: one benchgen cell's step, timed by
a plain Python loop, with nothing of benchgen's around it.

    PYTHON fidelity_loop.py HOME key=value...

Run with the interpreter of the environment the cell ran in (the cell's
python.executable), plainly: no -s -u -X utf8, no cgroup, no parent
sampling, no report channel, the inherited TMPDIR. It builds the same
workload through HOME/runners (harness.Cell loads it and checks its input
declarations), makes the same inputs, and times each step() call with
time.perf_counter_ns; warm-up steps first, untimed.

The inputs are the cell's bytes: the Philox4x32-10 generator and fill
rules of runners/synth.c, re-done here in NumPy (the normal distribution's
log and cos through the math module, which calls the same C library as the
worker's module), into ordinary writable NumPy arrays, as a plain script
would hold them. Their SHA-256 is computed as runners/ext/steps.c computes
the cell's input_sha256 (name:dtype:shape, a newline, the bytes, per input),
so fidelity.sh can refuse a comparison whose inputs differ.

Keys: model, task, batch, backend, family, size, precision, seed, steps,
warmup, method, device (cpu | gpu), env. Prints one JSON object:
median_ns, samples (ns), input_sha256, python.
"""
import hashlib
import json
import math
import os
import statistics
import sys
import time
import types

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF


# ---- runners/synth.c, in NumPy ----------------------------------------------

def _mix64(h):
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & MASK64
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & MASK64
    h ^= h >> 31
    return h


def _fnv1a(h, s):
    for byte in s.encode():
        h ^= byte
        h = (h * 0x100000001B3) & MASK64
    return h ^ 0xFF


def stream_key(seed, model, task, batch, size, name):
    h = 0xCBF29CE484222325
    for part in (model, task, str(batch), size, name):
        h = _fnv1a(h, part)
    return _mix64(h ^ _mix64(seed & MASK64))


def philox_words(np, n, key):
    """Philox4x32-10 of counters (i, i >> 32, 0, 0) for i < n: four uint64
    arrays holding 32-bit words."""
    i = np.arange(n, dtype=np.uint64)
    m32 = np.uint64(MASK32)
    c0, c1 = i & m32, i >> np.uint64(32)
    c2 = np.zeros(n, dtype=np.uint64)
    c3 = np.zeros(n, dtype=np.uint64)
    k0, k1 = key & MASK32, key >> 32
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        p0 = m0 * c0
        p1 = m1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & m32,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & m32)
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    return c0, c1, c2, c3


def fill(np, spec, key):
    """One input's array, byte for byte what synth_fill() writes."""
    shape = [int(d) for d in spec["shape"]]
    n = int(np.prod(shape))
    dtype, dist = spec["dtype"], spec.get("dist", "uniform")
    lo = float(spec["low"])
    hi = float(spec["high"]) if spec.get("high") is not None else lo
    if dist == "const":
        v = np.full(n, lo, dtype=np.float64)
    else:
        w0, w1, _, _ = philox_words(np, n, key)
        if dtype != "float32":
            span = np.uint64(int(hi - lo))
            r = (w0 << np.uint64(32)) | w1
            v = lo + (r % span).astype(np.float64)
        elif dist == "uniform":
            v = lo + (hi - lo) * ((w0 >> np.uint64(8)).astype(np.float64) * (1.0 / 16777216.0))
        else:  # Box-Muller as synth.c, with the C library's log and cos
            u1 = 1.0 - (w0 >> np.uint64(8)).astype(np.float64) * (1.0 / 16777216.0)
            u2 = (w1 >> np.uint64(8)).astype(np.float64) * (1.0 / 16777216.0)
            log, cos, sqrt = math.log, math.cos, math.sqrt
            v = np.fromiter((lo + hi * sqrt(-2.0 * log(a)) * cos(6.283185307179586 * b)
                             for a, b in zip(u1.tolist(), u2.tolist())), dtype=np.float64, count=n)
    return v.astype(dtype).reshape(shape)


def make_inputs(np, cell, specs):
    data, h = {}, hashlib.sha256()
    for spec in specs:
        key = stream_key(cell.seed, cell.model, cell.task, cell.batch, cell.size, spec["name"])
        arr = fill(np, spec, key)
        h.update(f"{spec['name']}:{spec['dtype']}:{'x'.join(str(d) for d in arr.shape)}\n".encode())
        h.update(arr.tobytes())
        data[spec["name"]] = arr
    return data, h.hexdigest()


# ---- the plain loop -----------------------------------------------------------

def parse(argv):
    kv = dict(a.split("=", 1) for a in argv)
    cell = {"key": kv.get("key", "fidelity"), "model": kv["model"], "task": kv["task"],
            "batch": int(kv["batch"]), "backend": kv["backend"], "family": kv["family"],
            "size": kv.get("size", "tiny"), "precision": kv.get("precision") or None,
            "seed": int(kv.get("seed", "0")), "steps": int(kv["steps"]), "warmup": int(kv["warmup"]),
            "repeat": 0, "env": kv.get("env") or None, "workload": None,
            "method": kv.get("method", "corrected"), "device": kv.get("device", "cpu"),
            "device_rule": kv.get("device", "cpu"), "ablate": None}
    return cell


def main():
    home, cell = sys.argv[1], parse(sys.argv[2:])
    # What the workloads import: the cell, and marks and facts that go nowhere.
    stub = types.ModuleType("_benchgen")
    stub.cell = cell
    stub.now_ns = time.monotonic_ns
    stub.mark = lambda name: None
    stub.fact = lambda name, value: None
    sys.modules["_benchgen"] = stub
    sys.path.insert(0, os.path.join(home, "runners"))
    import harness
    import numpy as np

    c = harness.Cell()
    reason = c.unsupported()
    if reason:
        sys.exit(f"fidelity_loop: {reason}")
    data, digest = make_inputs(np, c.cell, c.input_specs())
    step = c.module.setup(c.cell, data)
    for _ in range(c.cell.warmup):
        step()
    pc = time.perf_counter_ns
    samples = [0] * c.cell.steps
    for i in range(c.cell.steps):
        a = pc()
        step()
        b = pc()
        samples[i] = b - a
    out = {"median_ns": statistics.median(samples), "samples": samples, "input_sha256": digest,
           "python": sys.executable}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)  # as the worker does: frameworks may hang or crash in interpreter teardown


if __name__ == "__main__":
    main()
