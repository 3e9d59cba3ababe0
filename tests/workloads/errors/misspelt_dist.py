"""A misspelt `dist` key: it must be rejected, not silently ignored
(the input would become uniform)."""


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "distt": "normal", "low": 0.0, "high": 1.0}]


def setup(cell, data):
    return lambda: None
