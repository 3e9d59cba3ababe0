"""A supported() that raises: `run --dry-run` must find it."""


def supported(cell):
    raise KeyError("no such backend table entry")


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    return lambda: None
