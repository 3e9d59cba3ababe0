"""Records where the cell ran, as the workload sees it: the devices it was
given, the cores it may run on, its thread count, and when it started and
ended (wall clock), so tests can check that cells overlapped in time and
never shared a device or a core. Each step sleeps `BENCHGEN_TEST_STEP_S`
seconds (default 0.3)."""
import os
import time

import _benchgen


def inputs(cell):
    return [{"name": "x", "dtype": "int32", "shape": [cell.batch], "low": 0, "high": 10}]


def setup(cell, data):
    _benchgen.fact("seen.devices", os.environ.get("CUDA_VISIBLE_DEVICES", ""))
    _benchgen.fact("seen.cores", ",".join(str(c) for c in sorted(os.sched_getaffinity(0))))
    _benchgen.fact("seen.device_order", os.environ.get("CUDA_DEVICE_ORDER", ""))
    _benchgen.fact("seen.omp_threads", os.environ.get("OMP_NUM_THREADS", ""))
    _benchgen.fact("seen.t_start", repr(time.time()))
    pause = float(os.environ.get("BENCHGEN_TEST_STEP_S", "0.3"))
    state = {"n": 0}

    def step():
        time.sleep(pause)
        state["n"] += 1
        _benchgen.fact("seen.t_end", repr(time.time()))
    return step
