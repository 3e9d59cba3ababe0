"""One typo in dtype: the message must blame dtype alone."""


def inputs(cell):
    return [{"name": "x", "dtype": "flaot32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    return lambda: None
