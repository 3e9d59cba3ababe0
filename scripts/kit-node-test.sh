#!/usr/bin/env bash
# kit-node-test.sh NODE_ROOT KIT.tar.gz NODE_PYTHON - installs and runs a kit
# inside a Linux root (chroot), offline, as on an older node (docs/GPU.md,
# "glibc"; scripts/kit-build-root.sh makes the roots). In a network namespace
# with no network and a mount namespace of its own (nothing stays mounted),
# the kit is unpacked in NODE_ROOT/tmp, ./benchgen --version runs, install.sh
# binds NODE_PYTHON (a path inside the root, e.g. /opt/node/bin/python, with
# numpy) and a one-cell NumPy spec runs. Prints ok / not ok lines; exit 1
# when one failed, 2 on usage. Needs root (chroot, unshare).
set -u
[ $# -eq 3 ] || { echo "usage: $0 NODE_ROOT KIT.tar.gz NODE_PYTHON" >&2; exit 2; }
root=$(cd "$1" && pwd) kit=$2 py=$3
[ -x "$root/bin/sh" ] || { echo "$root: not a Linux root" >&2; exit 2; }
[ -f "$kit" ] || { echo "$kit: no such kit" >&2; exit 2; }
work=$(mktemp -d "$root/tmp/kit-node.XXXXXX")
trap '[ -n "${KIT_NODE_KEEP:-}" ] || rm -rf "$work"' EXIT
cp "$kit" "$work/kit.tar.gz"
in=/tmp/$(basename "$work")
cat >"$work/node.sh" <<'EON'
set -u
w=$1 py=$2
say() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
echo "# node: $(ldd --version | head -1); $(uname -m)"
cd "$w" && tar xzf kit.tar.gz && cd benchgen-kit-* || exit 3
echo "# kit: $(tr '\n' ' ' <KIT-INFO)"
./benchgen --version >"$w/version.txt" 2>&1
rc=$?
say "the kit's benchgen runs here ($(head -1 "$w/version.txt"))" '[ $rc -eq 0 ]'
HOME=$w BENCHGEN_CACHE=$w/cache ./install.sh "$py" >"$w/install.log" 2>&1
rc=$?
grep -E 'install.sh:|glibc|ready|registering|registered|failed|error' "$w/install.log" | sed 's/^/#   /'
say "install.sh binds $py (exit $rc)" '[ $rc -eq 0 ]'
printf 'name: kit-node\nsize: tiny\nsteps: 3\nbackends: [numpy]\nrows:\n  - {model: mlp, task: predict, batch: 8}\n' >"$w/spec.yaml"
HOME=$w BENCHGEN_CACHE=$w/cache ./benchgen run "$w/spec.yaml" --out "$w/run" >"$w/run.log" 2>&1
rc=$?
grep -E '^\[1/1\].*(ok|error|failed)' "$w/run.log" | sed 's/^/#   /'
say "a NumPy cell runs from the kit (exit $rc)" '[ $rc -eq 0 ] && grep -q "1 ok" "$w/run.log"'
EON
unshare -n -m bash -c '
  mount --make-rprivate / && mount -t proc proc "$1/proc" && mount -t devtmpfs none "$1/dev" 2>/dev/null || mount --bind /dev "$1/dev"
  chroot "$1" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 bash "$2/node.sh" "$2" "$3"' _ "$root" "$in" "$py" | tee "$work/out"
! grep -q '^not ok' "$work/out"
