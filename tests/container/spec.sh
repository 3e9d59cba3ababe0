# spec.sh - helpers sourced by tests/integration/test_container_*.sh.
# spec NAME ENV TIMEOUT ROWS...: writes $TMP/NAME.yaml, a NumPy spec of
# those rows (3 timed steps, 1 warm-up) whose numpy backend runs in ENV.
spec() {
  local name=$1 env=$2 timeout=$3
  shift 3
  { printf 'name: %s\nsteps: 3\nwarmup: 1\nseed: 5\ntimeout: %s\nlog_limit: 8MiB\nbackends: [numpy]\n' "$name" "$timeout"
    printf 'envs: {numpy: %s}\nrows:\n' "$env"
    printf '  - %s\n' "$@"; } >"$TMP/$name.yaml"
}

# base_python: sets base (the ready `base` environment of the shared cache)
# and PY (its interpreter), or fails the check and ends the script.
base_python() {
  base=$("$BENCHGEN" env list 2>/dev/null | awk '$1 == "base" && $2 == "ready" { print $4 }')
  check "the base environment is ready (benchgen env sync base)" test -x "$base/bin/python"
  [ -x "$base/bin/python" ] || finish
  PY=$base/bin/python
}
