"""An empty step, for scripts/worker-overhead.sh: what the C timer adds to
each step, next to what a pure-Python perf_counter_ns loop measures for the
same call in the same process."""
import statistics
import time


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [1], "low": 0, "high": 2}]


def step():
    pass


def setup(cell, data):
    return step


def facts(cell):
    pc = time.perf_counter_ns
    f = step
    samples = []
    for _ in range(cell.steps):
        a = pc()
        f()
        b = pc()
        samples.append(b - a)
    return {"python_loop.median_ns": statistics.median(samples), "python_loop.n": len(samples)}
