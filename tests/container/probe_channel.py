"""Run through tests/container/ns-prefix.sh: records, as facts, what the
worker sees of its channel and its mount namespace, and tries to open a
second connection to the report socket (the parent takes one only)."""
import errno
import os
import socket
import stat


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def _fd3():
    try:
        mode = os.fstat(3).st_mode
    except OSError:
        return "closed"
    return "socket" if stat.S_ISSOCK(mode) else "fifo" if stat.S_ISFIFO(mode) else "other"


def _second_connection(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return "connected"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        s.close()


def facts(cell):
    cell_dir = os.environ.get("BENCHGEN_CELL_DIR", "")
    return {
        "probe.fd3": _fd3(),
        "probe.cell_dir": os.path.basename(cell_dir),
        "probe.mnt_ns": os.readlink("/proc/self/ns/mnt"),
        "probe.siblings": ",".join(sorted(os.listdir(os.path.dirname(cell_dir)))) if cell_dir else "",
        "probe.token_visible": "BENCHGEN_CHANNEL_TOKEN" in os.environ,
        "probe.second_connection": _second_connection(os.path.join(cell_dir, "report.sock")),
        "probe.env_file": os.path.exists(os.path.join(cell_dir, "env")),
    }


def setup(cell, data):
    return lambda: None
