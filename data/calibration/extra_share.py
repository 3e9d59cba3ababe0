# extra_share.py - a NumPy workload whose step takes a controlled extra share
# of its time when BENCHGEN_EXTRA_SHARE is set, for the power part of
# scripts/compare-calibration.sh (docs/COMPARE.md, "Calibration").
#
# A step is UNITS fixed matrix products. BENCHGEN_EXTRA_SHARE=0.25 makes it
# round(UNITS * 1.25) products: 25% more work, so about 25% more time;
# -0.2 makes it 20% less work (a 1.25x speed-up). Unset or 0: UNITS.
import os

import numpy as np

UNITS = 40
N = 160


def inputs(cell):
    return [{"name": "x", "dtype": "float32", "shape": [N, N], "dist": "normal", "low": 0.0, "high": 1.0}]


def supported(cell):
    return None if cell.task == "predict" else "only predict is implemented"


def setup(cell, data):
    share = float(os.environ.get("BENCHGEN_EXTRA_SHARE", "0") or 0)
    units = max(1, int(round(UNITS * (1.0 + share))))
    x = np.array(data["x"], dtype=np.float64) / N
    w = np.eye(N) + x * 0.01

    def step():
        y = x
        for _ in range(units):
            y = y @ w
        return y

    return step


def facts(cell):
    return {"extra_share": os.environ.get("BENCHGEN_EXTRA_SHARE", "0")}
