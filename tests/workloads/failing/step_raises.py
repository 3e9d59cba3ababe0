"""A workload whose step raises: `run` and `show` must give the exception."""


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    def step():
        raise ValueError("step broke on purpose")

    return step
