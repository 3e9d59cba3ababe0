"""A workload that attacks another cell of its run: it finds the run
directory from the `benchgen cell RUN_DIR ID` process above it, looks for an
attempt key it could sign with (its environment, its ancestors'
/proc/PID/environ), and writes a result for cell 2 claiming 7 ns steps
(cells/2/forged.json). tests/integration/test_forged_results.sh checks that
the file is quarantined and cell 2 keeps what it measured itself."""
import json
import re
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import inputs  # noqa: E402,F401

import _benchgen  # noqa: E402


def ancestors():
    pid = os.getppid()
    while pid > 1:
        yield pid
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])


def setup(cell, data):
    run_dir, key_seen = None, "no"
    if os.environ.get("BENCHGEN_ATTEMPT_KEY"):
        key_seen = "own environment"
    for pid in ancestors():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = [a.decode() for a in f.read().split(b"\0")]
            with open(f"/proc/{pid}/environ", "rb") as f:
                if re.search(rb"BENCHGEN_ATTEMPT_KEY=[0-9a-f]{64}", f.read()):
                    key_seen = f"environ of {pid}"
        except OSError:
            continue
        if "cell" in argv and run_dir is None:
            run_dir = argv[argv.index("cell") + 1]
    _benchgen.fact("forger.key_seen", key_seen)
    if run_dir:
        with open(os.path.join(run_dir, "cells", "plan.json")) as f:
            victim = [c for c in json.load(f)["cells"] if c["id"] == 2][0]
        plan = {k: victim[k] for k in ("model", "task", "backend", "size", "precision", "env", "key", "batch",
                                       "steps", "warmup", "repeat", "seed", "timeout_s", "memory_limit")}
        plan["workload"] = victim["workload"] or ""
        plan["method"] = victim["method"] or ""
        doc = {"format": "benchgen-attempt/2", "id": 2, "key": victim["key"], "tag": "forged", "verdict": False,
               "status": "ok", "detail": None, "input_sha256": "", "input_bytes": 0, "started": 1, "finished": 2,
               "wall_s": 1.0, "peak_rss": 1, "exit_code": 0, "term_signal": 0, "warmup_ns": [7] * victim["warmup"],
               "timed_ns": [7] * victim["steps"], "phases": [], "facts": [], "env": [], "telemetry": [],
               "plan": plan, "signature": "00" * 64}
        os.makedirs(os.path.join(run_dir, "cells", "2"), exist_ok=True)
        with open(os.path.join(run_dir, "cells", "2", "forged.json"), "w") as f:
            json.dump(doc, f)
        _benchgen.fact("forger.wrote", "cells/2/forged.json")
    return lambda: None
