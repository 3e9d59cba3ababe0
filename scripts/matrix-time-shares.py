#!/usr/bin/env python3
"""matrix-time-shares.py RUN_DIR - where a run's wall time went, from the
phase markers every cell stores (see runners/cell.h): interpreter start and
framework imports, model construction, warm-up steps (compilation), timed
steps. Reproduces the table in docs/PERFORMANCE.md ("CPU tiny matrix")."""
import json
import subprocess
import sys

run = sys.argv[1]
binary = sys.argv[2] if len(sys.argv) > 2 else "./benchgen"
d = json.loads(subprocess.check_output([binary, "show", run, "--json"]))
parts = {"start + imports": 0.0, "model construction": 0.0, "warm-up (compile)": 0.0, "timed steps": 0.0}
wall = 0.0
by_backend = {}
statuses = {}
for c in d["cells"]:
    w = c.get("wall_s") or 0.0
    wall += w
    by_backend[c["backend"]] = by_backend.get(c["backend"], 0.0) + w
    statuses[c["status"]] = statuses.get(c["status"], 0) + 1
    m = c.get("markers") or {}
    if all(k in m for k in ("build", "built", "setup", "warmup", "timed")):
        parts["start + imports"] += m["build"] / 1e9
        parts["model construction"] += (m["built"] - m["build"]) / 1e9
        parts["warm-up (compile)"] += (m["warmup"] - m["setup"]) / 1e9
        parts["timed steps"] += (m["timed"] - m["warmup"]) / 1e9
print(f"run {d['run']['name']}: {len(d['cells'])} cells {statuses}; "
      f"started {d['run']['started_utc']}, finished {d['run']['finished_utc']}")
print(f"| part | seconds | share of cell time |\n|---|---:|---:|\n| all cells | {wall:.0f} | 100% |")
for k, v in parts.items():
    print(f"| {k} | {v:.0f} | {100 * v / wall:.0f}% |")
print("\nby backend: " + ", ".join(f"{k} {v:.0f} s" for k, v in by_backend.items()))
