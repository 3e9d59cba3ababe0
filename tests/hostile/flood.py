"""Prints 200 MB to stdout in its first step: the cell log keeps the head
and the tail (log_limit) and records how much was dropped."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401

CHUNK = (b"flood " * 170 + b"\n") * 1024  # about 1 MiB


def setup(cell, data):
    record_pid("flood")
    state = {"first": True}

    def step():
        if state["first"]:
            state["first"] = False
            out = sys.stdout.buffer
            for _ in range(200):
                out.write(CHUNK)
            out.write(b"THE-LAST-LINE\n")
            out.flush()
    return step
