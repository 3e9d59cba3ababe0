#!/usr/bin/env bash
# The device guard (docs/SPEC.md, "device"): the decision's unit tests with
# faked placement reports (tests/python/test_placement.py), then on this CPU
# machine a spec with `device: gpu` ends every torch, Keras 2, Keras 3 and
# NumPy cell `error` with the guard's sentence before its first warm-up step
# (no samples, no warmup/timed marker) and `run` exits 1; the same spec with
# `device: cpu` ends ok. Needs the torch, keras3, keras2 and base envs.
set -u
. "$(dirname "$0")/lib.sh"

python3 tests/python/test_placement.py || not_ok "the placement decision's unit tests pass"

spec() { # spec DEVICE FILE
  cat >"$2" <<EOS
name: device-guard
size: tiny
steps: 2
warmup: 1
device: $1
backends: [torch-eager, keras2-tensorflow, keras3-tensorflow, keras3-jax, keras3-torch, numpy]
rows:
  - {model: bert, task: predict, batch: 2, backends: [torch-eager, keras2-tensorflow, keras3-tensorflow, keras3-jax, keras3-torch]}
  - {model: mlp, task: predict, batch: 2, backends: [numpy]}
EOS
}
spec gpu "$TMP/gpu.yaml"
"$BENCHGEN" run "$TMP/gpu.yaml" --cpus-per-cell 1 --out "$TMP/gpu" >"$TMP/gpu.out" 2>&1
check "device: gpu on a CPU machine: run exits 1" test $? -eq 1
"$BENCHGEN" show "$TMP/gpu" --json >"$TMP/gpu.json"
check "six cells, every one error with the guard's sentence, no samples, no step marker" test "$(cells_py "$TMP/gpu.json" \
  'sum(c["status"] == "error" and "but this run requires gpu" in (c["detail"] or "") and c["samples"] == {"timed": 0, "warmup": 0}
       and "warmup" not in c["markers"] and "timed" not in c["markers"] and f(c, "placement.device") == "cpu" for c in cells)')" = 6
check "keras3-jax says jaxlib has no CUDA plugin" grep -q "keras3-jax placed the model on cpu, but this run requires gpu: jaxlib has no CUDA plugin (benchgen env sync --cuda keras3)" "$TMP/gpu.json"

spec cpu "$TMP/cpu.yaml"
"$BENCHGEN" run "$TMP/cpu.yaml" --cpus-per-cell 1 --out "$TMP/cpu" >"$TMP/cpu.out" 2>&1
check "device: cpu: run exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/cpu" --json >"$TMP/cpu.json"
check "device: cpu: six cells ok on cpu with 2 timed samples" test "$(cells_py "$TMP/cpu.json" \
  'sum(c["status"] == "ok" and c["samples"]["timed"] == 2 and f(c, "placement.device") == "cpu" for c in cells)')" = 6
finish
