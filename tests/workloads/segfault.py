"""Fault workload: the first step dereferences NULL, so the cell must end as `crash` (SIGSEGV)."""
import ctypes


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    def step():
        ctypes.string_at(0)
    return step
