"""Fault workload: a step that never ends, so the cell must end as `timeout`."""
import time


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    def step():
        time.sleep(3600)
    return step
