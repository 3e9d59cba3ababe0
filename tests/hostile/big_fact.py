"""Reports a 200 MB fact: one report line far over the 1 MiB cap. The cell
must end `error` with that reason, quickly (the parser is linear and stops
buffering at the cap)."""
import os
import sys

import _benchgen

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    record_pid("big_fact")
    _benchgen.fact("huge", "a" * 200_000_000)
    return lambda: None
