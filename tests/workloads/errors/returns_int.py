"""setup() returns a number instead of the step function."""


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    return 42
