# survivors.sh - sourced by the tests and scripts that check that no process
# of a hostile cell outlived it (test_hostile_worker.sh,
# test_container_channel.sh, scripts/soak.sh).
#
# The hostile workloads record each process they start as a file
# $HOSTILE_PIDS/<name>.<pid> holding "<pid> <start>", <start> being field 22
# of /proc/<pid>/stat (its start time in clock ticks since boot; see
# common.py's record_pid). A PID alone is not enough: on a busy machine
# PIDs wrap (pid_max is 32768 here) and a recorded PID can belong to an
# unrelated process minutes later, which a soak of 1,000 cells met (a
# keras3 worker of another run under a dead forged_done's PID).

# recorded_alive FILE: the process FILE records still runs (same PID, same
# start time) and is not a zombie. A file without a start time (an old
# recording) is judged by its PID alone.
recorded_alive() {
  local f=$1 pid=${1##*.} want got
  [ -e "/proc/$pid" ] || return 1
  grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && return 1
  want=$(awk '{print $2}' "$f" 2>/dev/null)
  [ -n "$want" ] || return 0
  got=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $20}')
  [ "$got" = "$want" ]
}

# survivors DIR: the recordings under DIR whose process still runs
survivors() {
  local f out=""
  for f in "$1"/*; do
    [ -e "$f" ] || continue
    recorded_alive "$f" && out="$out $(basename "$f")"
  done
  echo "$out"
}
