"""Forges the worker's final report (`done`) on the report pipe, then
segfaults. A `done` counts only when the worker then exits 0: the cell must
end `crash`, with no samples stored."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    record_pid("forged_done")
    os.write(3, b'{"t":"done"}\n')
    ctypes.string_at(0)
