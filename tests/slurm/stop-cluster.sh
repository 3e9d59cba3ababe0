#!/usr/bin/env bash
# stop-cluster.sh DIR - stops the daemons start-cluster.sh DIR started, by
# their recorded PIDs (TERM, then KILL after 5 s), nothing else.
DIR=$1
for d in slurmd slurmctld munged; do
  f="$DIR/pids/$d.pid"
  [ -f "$f" ] || continue
  p=$(cat "$f")
  kill "$p" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
  rm -f "$f"
done
true
