"""Forges a negative step duration on the report pipe: the cell must end
`error`, naming the invalid sample."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    record_pid("forged_sample")
    os.write(3, b'{"t":"sample","warmup":0,"ns":-5}\n')
    return lambda: None
