"""NumPy reference workload: a two-layer MLP, the pipeline's framework-free check.

fit is one SGD step (forward, softmax cross-entropy, backward, update);
predict is one forward pass. NumPy runs synchronously on the CPU, so a step
is complete when the call returns: no device synchronisation is needed.
"""

import numpy as np

import _benchgen

SIZES = {"tiny": (256, 512, 10), "published": (1024, 4096, 1000)}


def supported(cell):
    if cell.model != "mlp":
        return f"the NumPy reference backend only runs the mlp model, not {cell.model}"
    return None


def inputs(cell):
    d_in, _, classes = SIZES[cell.size]
    specs = [{"name": "x", "dtype": "float32", "shape": [cell.batch, d_in], "dist": "normal", "low": 0.0, "high": 1.0}]
    if cell.task == "fit":
        specs.append({"name": "y", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": classes})
    return specs


def setup(cell, data):
    d_in, hidden, classes = SIZES[cell.size]
    dtype = np.float32
    rng = np.random.default_rng(cell.seed)  # weights only; inputs come from C
    w1 = (rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)).astype(dtype)
    w2 = (rng.standard_normal((hidden, classes)) / np.sqrt(hidden)).astype(dtype)
    x = data["x"]
    _benchgen.fact("parameters", w1.size + w2.size)

    def forward():
        h = np.maximum(x @ w1, 0)
        return h, h @ w2

    if cell.task == "predict":
        def step():
            forward()
        return step

    y = data["y"]
    lr = dtype(1e-3)
    rows = np.arange(cell.batch)

    def step():
        nonlocal w1, w2
        h, logits = forward()
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        p[rows, y] -= 1
        g2 = h.T @ p / cell.batch
        gh = (p @ w2.T) * (h > 0)
        g1 = x.T @ gh / cell.batch
        w1 = w1 - lr * g1
        w2 = w2 - lr * g2
    return step


def placement(cell):
    """NumPy keeps everything in host memory (workloads/placement.py)."""
    d_in, hidden, classes = SIZES[cell.size]
    return {"model": {"cpu": d_in * hidden + hidden * classes},
            "inputs": {"cpu": 2 if cell.task == "fit" else 1},
            "gpu": f"the NumPy reference runs on the CPU only (set device: cpu or auto for backend {cell.backend})"}


def facts(cell):
    return {"dtype_policy": "float32", "synchronisation": "none needed (NumPy is synchronous)",
            "compiled": "no", "numpy.version": np.__version__}
