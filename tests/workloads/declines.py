"""Workload that declares the combination unsupported: the cell must end as `unsupported`."""


def supported(cell):
    return f"{cell.backend} cannot run {cell.model} (declared by tests/workloads/declines.py)"


def setup(cell, data):
    raise AssertionError("setup must not be called for an unsupported cell")
