"""Fault workload: keeps allocating and touching memory, so the cell must end as `oom`
when it passes the spec's memory_limit (the parent watches resident memory)."""
import time

import numpy as np


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    hoard = []

    def step():
        for _ in range(400):  # up to ~25 GiB, far past any test limit
            hoard.append(np.ones(64 * 1024 * 1024 // 8))
            time.sleep(0.02)
    return step
