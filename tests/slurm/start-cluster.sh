#!/usr/bin/env bash
# start-cluster.sh DIR - a real one-node Slurm cluster for the tests, started
# by hand (no systemd), everything but munge's key under DIR:
#   DIR/slurm.conf, gres.conf   configuration (commands find it via SLURM_CONF)
#   DIR/dev/nvidia0,1            two fake GPUs: character devices (major 195)
#                                that nothing opens; declared as GRES, so
#                                Slurm hands them out and sets CUDA_VISIBLE_DEVICES
#   DIR/state, DIR/spool, DIR/log
#   DIR/pids/*.pid               the daemons this script started (stop-cluster.sh)
# Short scheduler intervals keep the tests fast. Needs root, munge, slurmctld,
# slurmd and slurm-client (scripts/install-deps.sh). Prints
# `export SLURM_CONF=...` on success.
set -euo pipefail
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
# Ports of its own (two free ones the kernel picks), so that two test
# clusters, say two worktrees' test runs, can run side by side.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
mkdir -p "$DIR"/{state,spool,log,dev,pids}
for i in 0 1; do
  [ -c "$DIR/dev/nvidia$i" ] || { rm -f "$DIR/dev/nvidia$i"; mknod "$DIR/dev/nvidia$i" c 195 "$i"; }
done
NCPUS=${SLURM_TEST_CPUS:-4}
sed -e "s|@DIR@|$DIR|g" -e "s|@CPUS@|$NCPUS|g" -e "s|@CTLD_PORT@|$CTLD_PORT|g" \
  -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" "$HERE/slurm.conf.in" >"$DIR/slurm.conf"
sed -e "s|@DIR@|$DIR|g" "$HERE/gres.conf.in" >"$DIR/gres.conf"
export SLURM_CONF=$DIR/slurm.conf

# munge: Debian's package made /etc/munge/munge.key; /run/munge is normally
# made by systemd. Start munged only when none answers, and remember it.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [ -s /etc/munge/munge.key ] || { mungekey --create --keyfile=/etc/munge/munge.key; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
  cp /run/munge/munged.pid "$DIR/pids/munged.pid"
  munge -n | unmunge >/dev/null
fi

# Daemons in the foreground (-D), backgrounded here so $! is their own PID.
/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >"$DIR/log/slurmctld.stdout" 2>&1 &
echo $! >"$DIR/pids/slurmctld.pid"
/usr/sbin/slurmd -D -N localhost -f "$SLURM_CONF" >"$DIR/log/slurmd.stdout" 2>&1 &
echo $! >"$DIR/pids/slurmd.pid"
for _ in $(seq 120); do
  sinfo -h -o '%T' 2>/dev/null | grep -q '^idle' && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.25
done
echo "start-cluster: the node did not become idle; see $DIR/log" >&2
tail -5 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
exit 1
