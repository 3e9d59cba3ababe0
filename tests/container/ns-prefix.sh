#!/bin/sh
# A container-like environment prefix for tests: it closes fd 3 (the report
# pipe, which `docker run` would not pass) and runs the interpreter in a new
# mount namespace where the directory that holds the cells' directories is
# an empty tmpfs, with only this cell's directory bind-mounted back at its
# own path, as `docker run -v {cell}:{cell}` does. Needs root (unshare -m).
#   ns-prefix.sh CELL_DIR PYTHON ARGS...    registered with {cell} as CELL_DIR
#   ns-prefix.sh - PYTHON ARGS...           the directory from $BENCHGEN_CELL_DIR
# NS_PREFIX_MODE (set in the prefix with `env`) varies it:
#   nobind    the cell's directory is not bind-mounted back
#   impostor  something connects to the report socket first, with a wrong
#             token, and forges a `done`
#   escape    the interpreter leaves benchgen's cgroups and process group and
#             the prefix only waits for it, as the client of a container
#             runtime does: killing the prefix does not kill the worker
exec 3>&-
cell=$1
shift
[ "$cell" = - ] && cell=${BENCHGEN_CELL_DIR:-}
if [ -z "$cell" ] || [ ! -d "$cell" ] || [ ! -e "$cell/report.sock" ]; then
  # env add's probe passes a directory without a socket: just run it.
  exec "$@"
fi
case ${NS_PREFIX_MODE:-} in
impostor)
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1] + "/report.sock")
s.sendall(b"benchgen-channel " + b"0" * 32 + b"\n{\"t\":\"done\"}\n")
' "$cell" ;;
escape)
  sh -c 'for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do
           echo $$ >"$f" 2>/dev/null; done
         exec setsid "$@"' escape "$@" &
  wait
  exit $? ;;
esac
bind=1
[ "${NS_PREFIX_MODE:-}" = nobind ] && bind=0
exec unshare -m --propagation private -- sh -c '
  set -e
  cell=$1 bind=$2
  shift 2
  mount --bind "$cell" /mnt
  mount -t tmpfs -o mode=0755 benchgen-test "$(dirname "$cell")"
  mkdir -p "$cell"
  [ "$bind" = 1 ] && mount --move /mnt "$cell"
  exec "$@"
' ns-prefix "$cell" "$bind" "$@"
