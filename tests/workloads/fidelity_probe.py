"""Records what the test-only BENCHGEN_ABLATE knobs (runners/ablate.h) are
meant to switch off, as seen from inside the cell, for
tests/integration/test_fidelity.sh:
  probe.cgroup          this process's memory cgroup (/proc/self/cgroup)
  probe.utf8_mode, probe.no_user_site, probe.write_through, probe.hashseed
                        what -X utf8, -s, -u and PYTHONHASHSEED set
  probe.tmpdir          $TMPDIR
  probe.x_writable, probe.x_alignment
                        the input the workload got: writable, and the
                        largest power of two (up to 4096) its address is a
                        multiple of
  probe.timed_writes    write() calls this process made from the first to
                        the last timed step (/proc/self/io syscw): one a step
                        while samples go out as they are measured
"""
import os
import sys

import _benchgen


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [cell.batch, 64], "dist": "normal", "low": 0.0, "high": 1.0}]


def _writes():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("syscw:"):
                return int(line.split()[1])
    return -1


def _cgroup():
    with open("/proc/self/cgroup") as f:
        lines = f.read().splitlines()
    mem = [ln for ln in lines if ":memory:" in ln]
    return (mem or lines or [""])[0]


def setup(cell, data):
    x = data["x"]
    addr = x.ctypes.data
    align = 1
    while align < 4096 and addr % (align * 2) == 0:
        align *= 2
    _benchgen.fact("probe.cgroup", _cgroup())
    _benchgen.fact("probe.utf8_mode", sys.flags.utf8_mode)
    _benchgen.fact("probe.no_user_site", sys.flags.no_user_site)
    _benchgen.fact("probe.write_through", getattr(sys.stdout, "write_through", False))
    _benchgen.fact("probe.hashseed", os.environ.get("PYTHONHASHSEED", "unset"))
    _benchgen.fact("probe.tmpdir", os.environ.get("TMPDIR", "unset"))
    _benchgen.fact("probe.x_writable", x.flags.writeable)
    _benchgen.fact("probe.x_alignment", align)
    seen = []
    calls = [0]

    def step():
        calls[0] += 1
        if calls[0] > cell.warmup:
            seen.append(_writes())
        return float(x.sum())
    _state["seen"] = seen
    return step


_state = {}


def facts(cell):
    seen = _state.get("seen") or [0]
    return {"probe.timed_writes": seen[-1] - seen[0]}
