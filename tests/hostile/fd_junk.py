"""Writes junk into every descriptor it inherited (3..1023): the report pipe
and whatever else benchgen left open (before the fix: run.db and its -wal
and -shm). The cell must end `error` and run.db must stay intact."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    record_pid("fd_junk")
    junk = b"\x00garbage\xff" * 512
    for fd in range(3, 1024):
        try:
            os.write(fd, junk)
        except OSError:
            pass
    return lambda: None
