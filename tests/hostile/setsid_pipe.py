"""A forked child calls setsid() and keeps the report pipe and the log open
forever, while the worker itself finishes normally. The cell ends `ok`
without waiting for the child, and the child does not survive the cell. With
HOSTILE_HOLD set the worker then sleeps, so a test can SIGKILL benchgen."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs, record_pid  # noqa: E402,F401


def setup(cell, data):
    if os.fork() == 0:
        os.setsid()
        record_pid("setsid_child")
        time.sleep(3600)
        os._exit(0)
    d = os.environ.get("HOSTILE_PIDS", "/tmp")
    while not any(n.startswith("setsid_child.") for n in os.listdir(d)):
        time.sleep(0.01)
    if os.environ.get("HOSTILE_HOLD"):
        time.sleep(3600)
    return lambda: None
