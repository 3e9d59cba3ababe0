#!/usr/bin/env bash
# Workload errors that say what to do (issue 14): a custom workload without
# inputs() (named like the built-in `bert`, so it must not get BERT's
# inputs), input declarations checked key by key (each bad key reported on
# its own; unknown keys rejected), and setup() returning a non-callable.
# Every cell runs on the NumPy backend (base environment), so this is fast.
set -u
. "$(dirname "$0")/lib.sh"

W=$ROOT/tests/workloads/errors
cat >"$TMP/spec.yaml" <<YAML
name: workload-errors
backends: [numpy]
steps: 1
warmup: 0
rows:
  - {model: bert, task: predict, batch: 2, workload: $W/no_inputs.py}
  - {model: typo, task: predict, batch: 2, workload: $W/bad_dtype.py}
  - {model: distkey, task: predict, batch: 2, workload: $W/misspelt_dist.py}
  - {model: many, task: predict, batch: 2, workload: $W/many_bad.py}
  - {model: notfn, task: predict, batch: 2, workload: $W/returns_int.py}
  - {model: normalkeys, task: predict, batch: 2, workload: $W/normal_keys.py}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" >"$TMP/out" 2>&1
rc=$?
check "run exits 1 (cells failed, nothing else went wrong)" test "$rc" -eq 1
"$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json" || not_ok "show --json"
J=$TMP/run.json
detail() { cell "$J" "$1" detail; }
status() { cell "$J" "$1" status; }
has() { # has KEY TEXT: the cell's detail contains TEXT
  case "$(detail "$1")" in *"$2"*) return 0 ;; *) echo "# $1 detail: $(detail "$1" | head -c 600)"; return 1 ;; esac
}
hasnt() { ! has "$@" >/dev/null; }

for k in bert/predict/b2/numpy typo/predict/b2/numpy distkey/predict/b2/numpy many/predict/b2/numpy \
         notfn/predict/b2/numpy normalkeys/predict/b2/numpy; do
  check "$k ends error" test "$(status "$k")" = error
done

K=bert/predict/b2/numpy
check "no inputs(): told exactly that" has $K "no_inputs.py defines no inputs(cell)"
check "no inputs(): a custom 'bert' never gets BERT's inputs" has $K "a custom workload must declare"
check "no inputs(): no KeyError from the built-in size table" hasnt $K "sizes.py"

K=typo/predict/b2/numpy
check "dtype typo: blamed on dtype with a suggestion" has $K "input 'x': dtype 'flaot32' is not one of int32, int64, float32, uint8 (did you mean 'float32'?)"
check "dtype typo: dist not blamed" hasnt $K "dist"
check "dtype typo: rank not blamed" hasnt $K "rank"

K=distkey/predict/b2/numpy
check "misspelt dist key rejected with a suggestion" has $K "input 'x': unknown key 'distt' (did you mean 'dist'?)"

K=many/predict/b2/numpy
check "many bad keys: dtype on its own" has $K "input 'x': dtype 'float64' is not one of"
check "many bad keys: dist on its own" has $K "input 'x': dist 'gauss' is not one of uniform, normal, const"
check "many bad keys: rank on its own" has $K "input 'x': rank 9 is above the largest supported, 8"
check "many bad keys: second input's shape" has $K "input 'y': shape [2, 0] must hold integers >= 1"
check "many bad keys: second input's empty range" has $K "input 'y': integer range [5, 5) is empty"
check "many bad keys: one line each" test "$(detail $K | grep -c "^  input '")" -eq 5

K=notfn/predict/b2/numpy
check "non-callable setup(): says what it returned" has $K "setup(cell, data) must return a function that runs one step; it returned int 42"

K=normalkeys/predict/b2/numpy
check "mean on a uniform input: told it goes with normal" has $K "input 'u': mean goes with dist 'normal', not 'uniform': give low and high"
check "mean mixed with high: told not both" has $K "input 'm': dist 'normal' takes mean and std, or the older low (mean) and high (standard deviation), not both"
check "negative std refused" has $K "input 's': std must be a number >= 0, got -1.0"

check "no worker survived" test -z "$(pgrep -f "$TMP/run" 2>/dev/null)"
finish
