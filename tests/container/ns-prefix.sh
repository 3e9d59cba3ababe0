#!/bin/sh
# A container-like environment prefix for tests: it closes fd 3 (the report
# pipe, which `docker run` would not pass) and runs the interpreter in a new
# mount namespace where the directory that holds the cells' directories is
# an empty tmpfs, with only this cell's directory bind-mounted back at its
# own path, as `docker run -v {cell}:{cell}` does. Needs root (unshare -m).
#   ns-prefix.sh CELL_DIR PYTHON ARGS...    registered with {cell} as CELL_DIR
#   ns-prefix.sh - PYTHON ARGS...           the directory from $BENCHGEN_CELL_DIR
exec 3>&-
cell=$1
shift
[ "$cell" = - ] && cell=${BENCHGEN_CELL_DIR:-}
if [ -z "$cell" ] || [ ! -d "$cell" ]; then
  # env add's probe passes no usable directory: just run the interpreter.
  exec "$@"
fi
exec unshare -m --propagation private -- sh -c '
  set -e
  cell=$1
  shift
  mount --bind "$cell" /mnt
  mount -t tmpfs -o mode=0755 benchgen-test "$(dirname "$cell")"
  mkdir -p "$cell"
  mount --move /mnt "$cell"
  exec "$@"
' ns-prefix "$cell" "$@"
