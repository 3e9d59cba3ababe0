"""Records facts about its inputs so tests can check the C-side synthetic data:
the dtype/shape the workload sees and a checksum of the bytes."""
import hashlib
import os

import _benchgen


def inputs(cell):
    return [
        {"name": "ids", "dtype": "int32", "shape": [cell.batch, 16], "low": 0, "high": 1000},
        {"name": "img", "dtype": "float32", "shape": [cell.batch, 8, 8, 3], "dist": "normal", "low": 0.0, "high": 1.0},
        {"name": "mask", "dtype": "int32", "shape": [cell.batch, 16], "dist": "const", "low": 1},
    ]


def setup(cell, data):
    _benchgen.mark("echo_setup")
    # The worker gives each cell its own scratch TMPDIR (and compile caches).
    _benchgen.fact("tmpdir", os.environ.get("TMPDIR", ""))
    _benchgen.fact("inductor_cache", os.environ.get("TORCHINDUCTOR_CACHE_DIR", ""))
    with open(os.path.join(os.environ["TMPDIR"], "left-behind"), "w") as f:
        f.write("a cell's scratch files must not outlive it")
    _benchgen.fact("ids.shape", "x".join(map(str, data["ids"].shape)))
    _benchgen.fact("ids.max_below_1000", bool(data["ids"].max() < 1000))
    _benchgen.fact("mask.all_ones", bool((data["mask"] == 1).all()))
    _benchgen.fact("img.dtype", str(data["img"].dtype))
    _benchgen.fact("bytes.sha256", hashlib.sha256(b"".join(data[k].tobytes() for k in ("ids", "img", "mask"))).hexdigest())
    total = [0]

    def step():
        total[0] += int(data["ids"].sum())
    return step
