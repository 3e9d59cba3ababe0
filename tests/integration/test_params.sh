#!/usr/bin/env bash
# Published-size parameter counts, computed from abstractly built models
# (torch meta device; Keras 3 on JAX inside jax.eval_shape) by the workloads'
# own builders, against the published counts. Runs tests/params/check_params.py
# with the torch and keras3 environments' interpreters. Nothing is executed
# at published size.
set -u
. "$(dirname "$0")/lib.sh"

env_python() { # NAME -> path of the ready venv's python, or nothing
  "$BENCHGEN" env list 2>/dev/null | awk -v n="$1" '$1 == n && $2 == "ready" { print $4 "/bin/python" }'
}

# The two environments' counts are independent processes: side by side.
pids=()
for e in torch keras3; do
  py=$(env_python "$e")
  if [ -z "$py" ] || [ ! -x "$py" ]; then not_ok "environment $e is ready (run ./benchgen env sync $e)"; continue; fi
  family=torch; [ "$e" = keras3 ] && family=keras
  ( KERAS_BACKEND=jax TF_CPP_MIN_LOG_LEVEL=3 "$py" tests/params/check_params.py "$family" >"$TMP/$e.out" 2>"$TMP/$e.err"
    echo $? >"$TMP/$e.rc" ) &
  pids+=($!)
done
wait "${pids[@]}"
for e in torch keras3; do
  [ -f "$TMP/$e.rc" ] || continue
  check "$e: every published parameter count matches" test "$(cat "$TMP/$e.rc")" -eq 0
  grep -E '^(ok|FAIL)' "$TMP/$e.out" | sed 's/^/# /'
  check "$e: five or more models counted" test "$(grep -cE '^(ok|FAIL)' "$TMP/$e.out")" -ge 5
done
finish
