"""A first call that compiles into the cell's compile cache, for
tests/integration/test_ab_compile_cache.sh (issue 22, item 3).

On the numpy backend it is a stand-in compiler: the first call "compiles"
for 0.4 s and leaves its product in TORCHINDUCTOR_CACHE_DIR, and a process
that finds the product there does not compile. On keras3-jax it is the real
one: jax.jit of a small function (well under JAX's default one second of
compile time, so only JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0 gets it
into JAX_COMPILATION_CACHE_DIR). On torch-compiled, torch.compile of the
same function (Inductor's caches).

Facts: test.cache_dir (the directory the worker pointed Inductor at),
test.cache_found (whether the Inductor or the JAX cache held any file when
setup() ran, seen from Python), test.jax_min_compile_secs (what JAX was
told)."""
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
    _seen["found"] = any(_holds_files(d) for d in (cache, os.environ.get("JAX_COMPILATION_CACHE_DIR", "")) if d)
    if cell.backend == "keras3-jax":
        import jax
        import jax.numpy as jnp
        x = jnp.asarray(data["x"])
        f = jax.jit(lambda a: jnp.maximum(jnp.sin(a) * 2.0 + jnp.cos(a) @ a, 0.0).sum())

        def step():
            return float(f(x))
        return step
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
