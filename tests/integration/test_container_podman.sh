#!/usr/bin/env bash
# Cells in real containers: `podman run` (rootful, vfs storage, its own
# --root and --runroot under TMP) as an environment's prefix, with the
# recipe's -v {cell}:{cell} --env-file {cell}/env. No image is pulled: the
# container's root is a skeleton directory with this machine's /usr, the
# base environment's interpreter and benchgen's checkout bind-mounted
# read-only. podman passes no descriptor, so the worker reports over the
# socket. Checked: the samples contract equals a direct run's; a forged
# `done`, a flood and a hang end as on fd 3; and no container is left after
# a timeout (the podman client is killed by benchgen, the container itself
# is not benchgen's child: the socket's lifeline ends it). A missing podman
# fails (make test installs it); skips, saying why, only
# where podman cannot start a container (no privileges for namespaces).
set -u
. "$(dirname "$0")/lib.sh"

# scripts/install-deps.sh (which make test runs first) installs podman and
# runc: a missing podman is a failure here, not a skip.
check "podman and runc are installed (scripts/install-deps.sh)" command -v podman runc
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  finish
fi
. "$ROOT/tests/container/spec.sh"
base_python
PYHOME=$(sed -n 's/^home *= *//p' "$base/pyvenv.cfg")
PYHOME=$(cd "$PYHOME/.." && pwd) # the interpreter's installation, for the bind
ROOTFS=$TMP/rootfs
mkdir -p "$ROOTFS"/{usr,proc,dev,sys,tmp,root,etc} "$TMP/pod"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$ROOTFS/$l"; done
# runc: crun cannot set this VM's rlimits; cgroupfs and a private cgroup
# namespace: there is no systemd; limits below the VM's hard limits.
POD=(podman --root "$TMP/pod/root" --runroot "$TMP/pod/run" --runtime runc --cgroup-manager cgroupfs
     --storage-driver vfs run --rm --network none --cgroupns private
     --ulimit nofile=4096:4096 --ulimit nproc=4096:4096
     -v /usr:/usr:ro -v "$PYHOME:$PYHOME:ro" -v "$base:$base:ro" -v "$ROOT:$ROOT:ro")
if ! out=$("${POD[@]}" --rootfs "$ROOTFS" /bin/true 2>&1); then
  echo "# skip: podman cannot start a container here: $(head -c 300 <<<"$out")"
  finish
fi
export BENCHGEN_CACHE=$TMP/cache
export TMPDIR=$TMP/cells
mkdir -p "$TMPDIR"
"$BENCHGEN" env add direct "$PY" >"$TMP/add-direct.out" 2>&1
check "env add direct" test $? -eq 0
"$BENCHGEN" env add pod "$PY" -- "${POD[@]}" -v '{cell}:{cell}' --env-file '{cell}/env' --rootfs "$ROOTFS" \
  >"$TMP/add-pod.out" 2>&1
check "env add pod (the probe ran in a container)" test $? -eq 0

OKROWS=("{model: mlp, task: fit, batch: 8}"
        "{model: echo, task: predict, batch: 2, workload: $ROOT/tests/workloads/echo_inputs.py}")
spec direct direct 60 "${OKROWS[@]}"
spec pod pod 60 "${OKROWS[@]}" \
  "{model: probe, task: predict, batch: 1, workload: $ROOT/tests/container/probe_channel.py}" \
  "{model: forgeddone, task: predict, batch: 1, workload: $ROOT/tests/hostile/forged_done.py}" \
  "{model: flood, task: predict, batch: 1, workload: $ROOT/tests/hostile/flood.py}" \
  "{model: closedhang, task: predict, batch: 1, workload: $ROOT/tests/hostile/closed_hang.py, timeout: 5}" \
  "{model: hang, task: predict, batch: 1, workload: $ROOT/tests/container/hang_step.py, timeout: 5}"

start=$(date +%s)
"$BENCHGEN" run "$TMP/direct.yaml" --out "$TMP/run-direct" >"$TMP/direct.out" 2>&1 &
d=$!
"$BENCHGEN" run "$TMP/pod.yaml" --out "$TMP/run-pod" >"$TMP/pod.out" 2>&1
wait $d
took=$(( $(date +%s) - start ))
"$BENCHGEN" show "$TMP/run-direct" --json >"$TMP/direct.json"
"$BENCHGEN" show "$TMP/run-pod" --json >"$TMP/pod.json"

contract() {
  cells_py "$1" '"\n".join(" ".join([c["key"], c["status"], str(c["samples"]), ",".join(sorted(c["markers"])),
    c["input_sha256"], f(c, "bytes.sha256")]) for c in cells if c["model"] in ("mlp", "echo"))'
}
check "direct: both cells ok" test "$(cells_py "$TMP/direct.json" '" ".join(c["status"] for c in cells)')" = "ok ok"
check "podman: statuses, sample counts, markers, input and bytes hashes equal the direct run's" \
  cmp -s <(contract "$TMP/direct.json") <(contract "$TMP/pod.json")
J=$TMP/pod.json
pf() { cells_py "$J" "[f(c, '$1') for c in cells if c['model'] == 'probe'][0]"; }
check "podman: the probe cell ok" test "$(cell "$J" probe/predict/b1/numpy status)" = ok
check "podman: fd 3 in the container is the socket" test "$(pf probe.fd3)" = socket
check "podman: another mount namespace" test "$(pf probe.mnt_ns)" != "$(readlink /proc/self/ns/mnt)"
check "podman: the token is not visible to the workload" test "$(pf probe.token_visible)" = False
check "podman: cells record the socket channel" \
  test "$(cells_py "$J" 'all(w(c, "worker.channel").startswith("unix socket") for c in cells if c["model"] != "closedhang")')" = True
check "forged done in a container ends crash, no samples" \
  test "$(cell "$J" forgeddone/predict/b1/numpy status) $(cell "$J" forgeddone/predict/b1/numpy samples)" = "crash {'timed': 0, 'warmup': 0}"
check "flood in a container ends ok, log capped" test "$(cell "$J" flood/predict/b1/numpy status)" = ok
check "flood: the log is at most log_limit plus one note" \
  test "$(stat -c %s "$TMP/run-pod/logs/flood_predict_b1_numpy.log")" -le $((8 * 1048576 + 300))
for k in closedhang/predict/b1/numpy hang/predict/b1/numpy; do
  check "$k in a container ends timeout" test "$(cell "$J" "$k" status)" = timeout
done
left=""
for _ in $(seq 1 50); do
  left=$(podman --root "$TMP/pod/root" --runroot "$TMP/pod/run" --storage-driver vfs ps -a -q 2>/dev/null)
  [ -z "$left" ] && break
  sleep 0.1
done
check "no container left after the timeouts (the lifeline ended them)" test -z "$left"
if [ -n "$left" ]; then
  podman --root "$TMP/pod/root" --runroot "$TMP/pod/run" --storage-driver vfs rm -f $left >/dev/null 2>&1
fi
echo "# podman runs took ${took} s"
finish
