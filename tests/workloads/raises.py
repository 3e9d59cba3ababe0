"""Fault workload: setup() raises, so the cell must end as `error` with the traceback kept."""


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 4], "low": 0.0, "high": 1.0}]


def setup(cell, data):
    raise ValueError("deliberate failure from tests/workloads/raises.py")
