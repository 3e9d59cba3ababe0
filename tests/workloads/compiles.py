"""A first call that compiles into the cell's compile cache, for
tests/integration/test_ab_compile_cache.sh (issue 22, item 3).

On the numpy backend it is a stand-in compiler: the first call "compiles"
for 0.4 s and leaves its product in TORCHINDUCTOR_CACHE_DIR, and a process
that finds the product there does not compile. On torch-compiled it is the
real one: torch.compile of a small function, whose Inductor and FX graph
caches go to the same directory.

Facts: test.cache_dir (the directory the worker pointed the compiler at),
test.cache_found (whether it held any file when setup() ran, seen from
Python), test.jax_min_compile_secs (what JAX would be told)."""
import os
import time

PRODUCT = "stand-in-kernel.bin"
_seen = {}


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [64, 64], "dist": "normal", "low": 0.0, "high": 1.0}]


def _holds_files(d):
    return any(files for _, _, files in os.walk(d))


def setup(cell, data):
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    _seen["dir"] = cache
    _seen["found"] = bool(cache) and _holds_files(cache)
    if cell.backend == "torch-compiled":
        import torch
        x = torch.from_numpy(data["x"])

        @torch.compile
        def f(a):
            return (torch.sin(a) * 2.0 + torch.cos(a) @ a).relu().sum()

        def step():
            return f(x)
        return step

    product = os.path.join(cache, PRODUCT)
    x = data["x"]

    def step():
        if not os.path.exists(product):  # compile once, keep the product
            time.sleep(0.4)
            with open(product, "wb") as out:
                out.write(b"compiled")
        return float((x * 2.0).sum())
    return step


def facts(cell):
    return {"test.cache_dir": _seen.get("dir", ""), "test.cache_found": _seen.get("found", False),
            "test.jax_min_compile_secs": os.environ.get("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "")}
