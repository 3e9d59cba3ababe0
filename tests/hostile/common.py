"""Shared by the hostile workloads: one tiny input, and a PID file per
process the test must later find dead ($HOSTILE_PIDS/<name>.<pid>)."""
import os


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def start_time(pid="self"):
    """Field 22 of /proc/PID/stat: when the process started, in clock ticks
    since boot. With the PID it names one process: PIDs are reused."""
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()[19]


def record_pid(name):
    """Writes $HOSTILE_PIDS/<name>.<pid> holding "<pid> <start time>"
    (tests/hostile/survivors.sh reads it)."""
    d = os.environ.get("HOSTILE_PIDS")
    if d:
        with open(os.path.join(d, f"{name}.{os.getpid()}"), "w") as f:
            f.write(f"{os.getpid()} {start_time()}")
