"""Unit tests of the memory.* facts (runners/workloads/memory.py) with a
step that holds 64 MiB while it runs; no framework.
Run: python3 tests/python/test_memory.py (prints ok / not ok lines)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runners"))
from workloads import memory  # noqa: E402

failed = 0
MIB = 1 << 20


def check(name, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + name)
    failed |= not cond


kept = []


def step():
    buf = bytearray(64 * MIB)  # zero-filled, so every page is touched
    for i in range(0, len(buf), 4096):
        buf[i] = 1
    kept.append(len(kept))  # the step's lasting state: a few bytes
    return len(buf)


before = memory._status()
check("/proc/self/status gives VmRSS and VmHWM", before.get("VmRSS", 0) > 0 and before.get("VmHWM", 0) > 0)
wrapped = memory.after_setup(step)
f0 = memory.facts()
check("after setup: rss_after_setup, no first step yet",
      f0.get("memory.rss_after_setup", 0) > 0 and "memory.rss_after_first_step" not in f0)
check("the wrapped step returns the step's value", wrapped() == 64 * MIB)
f1 = memory.facts()
check("after one step: rss_after_first_step recorded", f1.get("memory.rss_after_first_step", 0) > 0)
check("the 64 MiB the step held show in rss_peak, not after the step",
      f1["memory.rss_peak"] - f1["memory.rss_after_setup"] >= 60 * MIB
      and f1["memory.rss_after_first_step"] - f1["memory.rss_after_setup"] < 32 * MIB)
first = f1["memory.rss_after_first_step"]
wrapped()
wrapped()
check("later steps run the step and leave the first step's reading alone",
      kept == [0, 1, 2] and memory.facts()["memory.rss_after_first_step"] == first)
memory.after_setup(step)
check("a new setup starts a new record", "memory.rss_after_first_step" not in memory.facts())

sys.exit(1 if failed else 0)
