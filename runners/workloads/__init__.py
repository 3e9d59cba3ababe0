"""benchgen's built-in workloads, one module per framework family (see runners/harness.py)."""
