"""Shared by the hostile workloads: one tiny input, and a PID file per
process the test must later find dead ($HOSTILE_PIDS/<name>.<pid>)."""
import os


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def record_pid(name):
    d = os.environ.get("HOSTILE_PIDS")
    if d:
        with open(os.path.join(d, f"{name}.{os.getpid()}"), "w") as f:
            f.write(str(os.getpid()))
