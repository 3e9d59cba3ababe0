"""Good declarations, a setup() that raises: `run --dry-run` must pass it
(it never calls setup()), and a run must fail it."""


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    raise RuntimeError("setup() was called")
