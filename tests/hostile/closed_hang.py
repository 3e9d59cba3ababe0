"""Closes every descriptor, the report pipe included, then hangs: the
parent sees EOF long before the worker ends, and must still end the cell at
its timeout."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    record_pid("closed_hang")
    os.closerange(0, 1024)
    time.sleep(3600)
