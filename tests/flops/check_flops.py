"""Cross-checks runners/workloads/flops.py against PyTorch's own count.

Runs each tiny torch-eager cell of the published matrix (the rows of
data/matrix/cpu-tiny.yaml) for one step under
torch.utils.flop_counter.FlopCounterMode and compares the FLOPs it counted
with the analytic count; prints one line per cell and exits 1 when any
differs by more than TOLERANCE. Run with the `torch` environment's python
from the repository root:

    python tests/flops/check_flops.py [--size tiny] [--tolerance 0.10]

docs/GPU.md ("FLOPs") explains the differences that remain.
"""
import argparse
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "runners"))
sys.modules.setdefault("_benchgen", types.SimpleNamespace(mark=lambda *a: None, fact=lambda *a: None, cell={}))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from workloads import flops, inputs, torch_models  # noqa: E402

ROWS = [("sam", "fit", 1), ("sam", "predict", 4), ("sd", "fit", 8), ("sd", "predict", 13),
        ("bert", "fit", 32), ("bert", "predict", 256), ("gemma", "fit", 8), ("gemma", "generate", 32),
        ("gemma", "generate", 1), ("mistral", "fit", 8), ("mistral", "generate", 32), ("mistral", "generate", 1)]
PRECISION = {"gemma": "bfloat16", "mistral": "bfloat16"}


def make_data(specs, rng):
    data = {}
    for s in specs:
        shape, dt, dist = s["shape"], s["dtype"], s.get("dist", "uniform")
        if dist == "const":
            a = np.full(shape, s["low"], dtype=dt)
        elif dist == "normal":
            a = rng.normal(s["low"], s["high"], size=shape).astype(dt)
        elif dt.startswith("int"):
            a = rng.integers(int(s["low"]), int(s["high"]), size=shape).astype(dt)
        else:
            a = rng.uniform(s["low"], s["high"], size=shape).astype(dt)
        data[s["name"]] = a
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    bad = 0
    for model, task, batch in ROWS:
        if args.only and args.only not in f"{model}/{task}/b{batch}":
            continue
        cell = types.SimpleNamespace(model=model, task=task, batch=batch, size=args.size, backend="torch-eager",
                                     family="torch", precision=PRECISION.get(model, "float32"), seed=0,
                                     key=f"{model}/{task}/b{batch}/torch-eager")
        data = make_data(inputs.for_cell(cell), np.random.default_rng(0))
        step = torch_models.setup(cell, data)
        if task != "fit":  # FlopCounterMode's module tracker trips on parameters that want gradients
            for mod in torch_models._state.get("modules", []):
                mod.requires_grad_(False)
        step()  # first call: lazy initialisation is not a step's work
        with FlopCounterMode(display=False) as m:
            step()
        measured = m.get_total_flops()
        analytic = flops.count(model, task, args.size, batch)[1]
        diff = (analytic - measured) / measured if measured else float("inf")
        ok = abs(diff) <= args.tolerance
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {cell.key:32s} analytic {analytic:16,d}  FlopCounterMode {measured:16,d}"
              f"  {diff:+.2%}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
