"""A well-behaved workload whose steps take a fixed 0.1 s, so a run of a few
cells stays live long enough for the run-directory tests to race it."""
import time


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    def step():
        time.sleep(0.1)
    return step
