"""Records its PID ($HOSTILE_PIDS/hang_step.PID) and hangs in its first
step, keeping the report channel open: a cell whose worker runs outside
benchgen's reach (as in a container started by `docker run`) must still die
once the parent gives up on it."""
import os
import time


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    d = os.environ.get("HOSTILE_PIDS")
    if d:
        with open("/proc/self/stat") as f:  # "<pid> <start time>", as tests/hostile/common.py records
            start = f.read().rsplit(")", 1)[1].split()[19]
        with open(os.path.join(d, f"hang_step.{os.getpid()}"), "w") as f:
            f.write(f"{os.getpid()} {start}")
    return lambda: time.sleep(3600)
