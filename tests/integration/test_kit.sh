#!/usr/bin/env bash
# The offline kit (`make kit`, docs/GPU.md "The offline kit") on a node with
# no network: the kit is built twice (same bytes, under 48 MiB; the second
# build runs while the first kit is checked and installed), then, in a
# network namespace with no network (`unshare -n`) and a mount namespace where
# the build tree, the shared environment cache, pip's caches and the
# machine's local wheel directory are empty tmpfs mounts, it is unpacked into
# a fresh directory, its install.sh binds a DIFFERENT Python of this machine
# (3.12; the build uses 3.11) whose venv has only numpy and JAX (CPU) from
# PyPI, and a small matrix runs: the numpy reference and BERT on keras3-jax,
# whose Keras comes from the kit's wheelhouse. Beside it, a second copy of the
# kit binds a torch node without torchvision: a venv holding only torch, its
# dependencies, numpy and pillow (linked from the shared `torch` environment,
# torchvision left out): base, torch and keras3 are registered, SAM is
# reported unsupported with its reason, and the torch workloads' libraries
# (transformers, diffusers, peft, accelerate, Keras) come from the kit.
#
# The node venv is made once (with the network, outside the namespace) and
# kept in the test cache ($BENCHGEN_TEST_CACHE, default ~/.cache/benchgen-tests).
set -u
. "$(dirname "$0")/lib.sh"

node_v=3.12
pins="numpy==2.4.6 jax==0.10.2 jaxlib==0.10.2" # data/envs/keras3.txt's versions
cache=${BENCHGEN_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen-tests}

# ---- the torch node without torchvision: the shared torch environment's -----------
# torch, its dependencies, numpy and pillow, and nothing else (make test syncs
# `torch`: a missing one is a failure, not a skip).
tenv=$("$BENCHGEN" env list 2>/dev/null | awk '$1 == "torch" && $2 == "ready" {print $4}')
if [ -z "$tenv" ] || [ ! -x "$tenv/bin/python" ]; then
  not_ok "the torch environment is ready (benchgen env sync torch): the torchvision-less node is made from it"; finish
fi
tv_v=$("$tenv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
tv_site=$("$tenv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# the top-level entries (packages, modules, .dist-info) of torch's dependency closure
"$tenv/bin/python" - torch numpy pillow >"$TMP/tv-tops" <<'PY' || { not_ok "list torch's dependency closure"; finish; }
import importlib.metadata as m, re, sys
from packaging.requirements import Requirement
seen, todo, tops = set(), sys.argv[1:], set()
while todo:
    n = re.sub(r"[-_.]+", "-", todo.pop()).lower()
    if n in seen:
        continue
    seen.add(n)
    d = m.distribution(n)
    for r in d.requires or []:
        q = Requirement(r)
        if q.marker is None or q.marker.evaluate({"extra": ""}):
            todo.append(q.name)
    tops.update(f.parts[0] for f in d.files or [] if not str(f).startswith(".."))
print("\n".join(sorted(tops)))
PY
check "torch's closure holds torch, numpy and PIL, not torchvision, transformers or segment_anything" \
  bash -c "grep -qx torch '$TMP/tv-tops' && grep -qx numpy '$TMP/tv-tops' && grep -qx PIL '$TMP/tv-tops' &&
    ! grep -qiE '^(torchvision|transformers|segment_anything)' '$TMP/tv-tops'"
# A venv whose site-packages links each of them from $TMP/torchsite (the torch
# environment's site-packages, bind-mounted there in the offline namespace).
"$tenv/bin/python" -m venv --without-pip "$TMP/tvnode" || { not_ok "make the torch node venv"; finish; }
tv_py=$TMP/tvnode/bin/python
tv_dst=$("$tv_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
while read -r e; do ln -s "$TMP/torchsite/$e" "$tv_dst/$e"; done <"$TMP/tv-tops"

kit_pythons=$(printf '%s\n' "$tv_v" "$node_v" | sort -uV | tr '\n' ' ')

# ---- the kit, twice -----------------------------------------------------------
# The second build (same inputs: only its output name differs) runs while the
# first kit is checked and installed offline; the two are compared at the end.
# The second runs in a session of its own, so that an early exit stops all of it.
make_kit() { setsid nice make --no-print-directory kit KIT="$TMP/kit-$1.tar.gz" KIT_PYTHONS="$kit_pythons" >"$TMP/make-$1.log" 2>&1; }
if ! make_kit a; then
  not_ok "make kit (a)"; tail -20 "$TMP/make-a.log"; finish
fi
make_kit b &
kit_b=$!
# An early exit stops the second build: the session its setsid made (a child
# of kit_b), and only while kit_b is one of this script's running jobs. The
# old trap sent TERM to the process group "$kit_b", which the build never
# had; once kit_b had ended, that id could name another process's group
# (PIDs wrap at 32,768 here): a daemon is the leader of its own group.
stop_kit_b() {
  jobs -rp | grep -qx "$kit_b" || return 0
  local c
  for c in $(pgrep -P "$kit_b"); do pkill -TERM -s "$c"; done
  wait "$kit_b" 2>/dev/null
}
trap 'stop_kit_b; rm -rf "$TMP"' EXIT
bytes=$(stat -c %s "$TMP/kit-a.tar.gz")
check "kit under 48 MiB ($bytes bytes)" test "$bytes" -lt $((48 * 1048576))
grep '^kit: ' "$TMP/make-a.log" | head -1 | sed 's/^/# /'
tar -tvzf "$TMP/kit-a.tar.gz" >"$TMP/members"
check "every member is owned by 0/0 with one fixed mtime" \
  test "$(awk '{print $2, $4, $5}' "$TMP/members" | sort -u | wc -l)" -eq 1
check "members are sorted by name" bash -c "awk '{print \$6}' '$TMP/members' | LC_ALL=C sort -c"

# ---- the node's Python: 3.12 with numpy and jax from PyPI (cached) -----------------
py=""
for c in "$(pyenv root 2>/dev/null)"/versions/$node_v*/bin/python$node_v "$(command -v python$node_v 2>/dev/null)"; do
  [ -n "$c" ] && [ -x "$c" ] && "$c" -c 1 2>/dev/null && { py=$c; break; }
done
if [ -z "$py" ]; then
  not_ok "Python $node_v is installed (pyenv install $node_v): the kit test needs a Python other than the build's"
  finish
fi
node=$cache/kit-node-py$node_v-$(echo "$pins" | sha256sum | cut -c1-12)
if [ ! -x "$node/bin/python" ]; then
  rm -rf "$node.tmp"
  if ! { "$py" -m venv "$node.tmp" && nice "$node.tmp/bin/python" -m pip install -q --disable-pip-version-check $pins; } \
    >"$TMP/node.log" 2>&1; then
    not_ok "prepare the node venv (Python $node_v, $pins)"; tail -5 "$TMP/node.log"; rm -rf "$node.tmp"; finish
  fi
  mv "$node.tmp" "$node"
fi
ok "node venv: Python $node_v with $pins"

# ---- offline: unpack, install, run -----------------------------------------------
if ! unshare -n -m true 2>/dev/null; then
  not_ok "unshare -n -m works here (needs root or user namespaces)"; finish
fi
mkdir -p "$TMP/node" "$TMP/home"
cp "$TMP/kit-a.tar.gz" "$TMP/node/"
cat >"$TMP/spec.yaml" <<'EOF'
name: kit-offline
size: tiny
steps: 3
backends: [numpy, keras3-jax]
rows:
  - {model: mlp, task: predict, batch: 32, backends: [numpy]}
  - {model: bert, task: predict, batch: 8, backends: [keras3-jax]}
EOF
# SAM run anyway on the torchvision-less node: unsupported with the reason
cat >"$TMP/sam-spec.yaml" <<'EOF'
name: kit-no-torchvision
size: tiny
steps: 1
backends: [torch-eager]
rows:
  - {model: sam, task: predict, batch: 1}
EOF
hide=("$ROOT" "${XDG_CACHE_HOME:-$HOME/.cache}/benchgen" "${XDG_CACHE_HOME:-$HOME/.cache}/pip")
[ -d /opt/wheels ] && hide+=(/opt/wheels)
[ -n "${PIP_FIND_LINKS:-}" ] && [ -d "$PIP_FIND_LINKS" ] && hide+=("$PIP_FIND_LINKS")
cat >"$TMP/offline.sh" <<'EOF'
set -u
t=$1 root=$2 nodepy=$3; shift 3
# A node has none of this checkout's settings (tests/run.sh exports BENCHGEN_HOME).
unset BENCHGEN_HOME BENCHGEN BENCHGEN_BIN
mount --make-rprivate / || exit 3
# the torch node's packages, reachable once the shared cache is hidden
mkdir -p "$t/torchsite" && mount --bind "$TV_SITE" "$t/torchsite" || exit 3
for d in "$@"; do [ -d "$d" ] && { mount -t tmpfs -o ro none "$d" || exit 3; }; done
say() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
say "no network: only lo in this namespace" '[ "$(awk -F: "NR > 2 {gsub(/ /, \"\", \$1); print \$1}" /proc/net/dev)" = lo ]'
say "no network: a connection to 1.1.1.1:443 fails" '! "$nodepy" -c "import socket; socket.create_connection((\"1.1.1.1\", 443), timeout=3)" 2>/dev/null'
say "the build tree is unreachable (an empty mount)" '[ ! -e "$root/Makefile" ] && [ -z "$(ls -A "$root")" ]'
cd "$t/node" && tar xzf kit-a.tar.gz && cd benchgen-kit-* || exit 3
kit=$(pwd)
# The torchvision-less torch node binds a second copy of the kit, meanwhile.
# PIP_NO_COMPILE=0 (pip's spelling of --no-compile) skips byte-compiling the
# wheelhouse (20 of pip's 25 s of CPU time here; the imports then compile
# what they load); the Python 3.12 node's install keeps pip's default.
mkdir -p "$t/tvkit" && tar xzf "$t/node/kit-a.tar.gz" -C "$t/tvkit" || exit 3
( cd "$t/tvkit"/benchgen-kit-* && HOME="$t/home" BENCHGEN_CACHE="$t/cache-tv" PIP_NO_COMPILE=0 ./install.sh "$TV_PY" >"$t/install-tv.log" 2>&1
  echo $? >"$t/install-tv.rc"
  HOME="$t/home" BENCHGEN_CACHE="$t/cache-tv" ./benchgen run "$t/sam-spec.yaml" --out "$t/run-tv" >"$t/run-tv.log" 2>&1
  HOME="$t/home" BENCHGEN_CACHE="$t/cache-tv" ./benchgen show "$t/run-tv" --json >"$t/show-tv.json" 2>&1
  "$TV_PY" -c 'import importlib.util as u, torch; print(torch.__version__, u.find_spec("torchvision"))' >"$t/tv-probe" 2>&1 ) &
tv_job=$!
say "SHA256SUMS of the unpacked kit check" 'sha256sum --quiet -c SHA256SUMS'
say "benchgen has RPATH \$ORIGIN/lib" 'readelf -d benchgen | grep -q "RPATH.*\\\$ORIGIN/lib"'
other=$(ldd "$kit/benchgen" | sed 's|/\./|/|g' | awk '$2 == "=>" {print $1, "=>", $3}' | grep -vE "^(libc|libm)\.so|=> $kit/lib/" | grep -v "^$")
say "every library beyond glibc resolves into the kit's lib/ ($(ls lib | wc -l) libraries)" '[ -z "$other" ] || { echo "$other" >&2; false; }'
# A module system's PYTHONPATH (Lmod) holding a torch workers will never see
# (they drop every PYTHON* variable): install.sh must not count it.
mkdir -p "$t/modpath/torch" && echo '__version__ = "0+only-on-PYTHONPATH"' >"$t/modpath/torch/__init__.py"
env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL HOME="$t/home" BENCHGEN_CACHE="$t/cache" \
  PYTHONPATH="$t/modpath" PIP_INDEX_URL=http://127.0.0.1:9/simple ./install.sh "$nodepy" >"$t/install.log" 2>&1
say "install.sh binds the node's Python, offline (exit 0)" '[ $? -eq 0 ] || { tail -5 "$t/install.log" >&2; false; }'
say "it ignores PYTHONPATH, and says so" 'grep -q "^note: ignoring .*PYTHONPATH=$t/modpath" "$t/install.log"'
say "a torch only PYTHONPATH shows is not registered (workers would not import it)" '[ ! -e "$t/cache/external/torch" ] && [ -e "$t/cache/external/keras3" ]'
HOME="$t/home" BENCHGEN_CACHE="$t/cache" ./benchgen run "$t/spec.yaml" --out "$t/run" >"$t/run.log" 2>&1
say "the matrix runs from the kit (exit 0)" '[ $? -eq 0 ] || { tail -8 "$t/run.log" >&2; false; }'
HOME="$t/home" BENCHGEN_CACHE="$t/cache" ./benchgen show "$t/run" --json >"$t/show.json"
echo "$kit" >"$t/kitdir"
wait "$tv_job"
echo "$(cd "$t/tvkit"/benchgen-kit-* && pwd)" >"$t/tvkitdir"
EOF
TV_SITE=$tv_site TV_PY=$tv_py unshare -n -m bash "$TMP/offline.sh" "$TMP" "$ROOT" "$node/bin/python" "${hide[@]}" >"$TMP/offline.out" 2>"$TMP/offline.err"
rc=$?
cat "$TMP/offline.out"
grep -q '^not ok' "$TMP/offline.out" && { FAILED=1; sed 's/^/# /' "$TMP/offline.err" | tail -15; }
check "the offline script ran to the end (exit $rc)" test "$rc" -eq 0
[ -f "$TMP/show.json" ] || { not_ok "show --json of the offline run"; finish; }
kit=$(cat "$TMP/kitdir")
got=$(cells_py "$TMP/show.json" '" ".join(c["key"] + "=" + c["status"] for c in cells)')
# docs/GPU.md's published matrix for a kit node names only what install.sh registers, with keras3-2024.yaml's cells
kitenvs=$(sed -n '/^envs:/,/^[a-z]/s/^  [a-z0-9-]*: \([a-z0-9-]*\)$/\1/p' "$ROOT/data/matrix/keras3-2024-kit.yaml" | sort -u | tr '\n' ' ')
check "keras3-2024-kit.yaml uses the kit's environments ($kitenvs)" test "$kitenvs" = "keras2 keras3 torch "
for e in keras2 keras3 torch; do
  check "install.sh can register $e" grep -q "envs+=($e)" "$ROOT/scripts/kit-install.sh"
done
keys() { "$BENCHGEN" run "$1" --dry-run 2>/dev/null | awk '$1 ~ /^[0-9]+$/ {print $2}' | tr '\n' ' '; }
k_kit=$(keys "$ROOT/data/matrix/keras3-2024-kit.yaml") k_pub=$(keys "$ROOT/data/matrix/keras3-2024.yaml")
check "keras3-2024-kit.yaml has keras3-2024.yaml's 72 cells" \
  test "$k_kit" = "$k_pub" -a "$(wc -w <<<"$k_kit")" -eq 72
check "cells ok ($got)" test "$got" = "mlp/predict/b32/numpy=ok bert/predict/b8/keras3-jax=ok"
check "cells ran in the kit's venv of Python $node_v" test "$(cells_py "$TMP/show.json" \
  'sorted(set(w(c, "python.executable") + " " + w(c, "python.version")[:4] for c in cells))')" = "['$kit/venv/bin/python $node_v']"
check "Keras came from the kit's wheelhouse (3.15.1, installed in the kit's venv; the node has none)" \
  bash -c "[ '$(cells_py "$TMP/show.json" 'w(cells[1], "pkg.keras")')' = 3.15.1 ] &&
    [ -d '$kit/venv/lib/python$node_v/site-packages/keras-3.15.1.dist-info' ] &&
    ! ls -d '$node'/lib/python*/site-packages/keras* >/dev/null 2>&1"
check "the node's jax was used as it is (0.10.2 from the node venv)" test "$(cells_py "$TMP/show.json" 'w(cells[1], "pkg.jax")')" = "0.10.2"
check "install.sh kept the node's ml_dtypes and installed optree from the kit" \
  bash -c "grep -q \"kept the node's: ml_dtypes\" '$TMP/install.log' && grep -q 'installed from the kit: optree' '$TMP/install.log'"
check "nothing of the build tree in the run (no path under $ROOT)" bash -c "! grep -rqs -- '$ROOT/' '$TMP/show.json' '$TMP/run/run.db'"
# ---- the torch node without torchvision ----------------------------------------
tvkit=$(cat "$TMP/tvkitdir")
check "the torch node has torch and no torchvision ($(head -c 60 "$TMP/tv-probe"))" grep -qE '^[0-9.]+.* None$' "$TMP/tv-probe"
if [ "$(cat "$TMP/install-tv.rc")" = 0 ]; then ok "install.sh binds the torchvision-less torch node (exit 0)"
else not_ok "install.sh binds the torchvision-less torch node (exit $(cat "$TMP/install-tv.rc"))"; tail -5 "$TMP/install-tv.log" | sed 's/^/# /'; fi
check "it says SAM is unsupported there, and why" grep -qF \
  "note: SAM is unsupported on torch here: segment_anything needs torchvision, which $tv_py lacks (install torchvision on the node for SAM cells); every other torch cell runs" "$TMP/install-tv.log"
check "everything else is registered: base, keras3, torch ($(ls "$TMP/cache-tv/external" 2>/dev/null | tr '\n' ' '))" \
  test "$(ls "$TMP/cache-tv/external" 2>/dev/null | tr '\n' ' ')" = "base keras3 torch "
check "a SAM cell run there anyway ends unsupported, saying torchvision is missing" test "$(cells_py "$TMP/show-tv.json" \
  '" ".join(c["status"] + ":" + str("needs torchvision" in (c["detail"] or "")) for c in cells)')" = "unsupported:True"
check "the torch workloads' libraries and Keras came from the kit (transformers 5.24.0, keras 3.15.1 in its venv)" \
  bash -c "ls -d '$tvkit'/venv/lib/python$tv_v/site-packages/transformers-5.24.0.dist-info '$tvkit'/venv/lib/python$tv_v/site-packages/keras-3.15.1.dist-info >/dev/null"
wait "$kit_b"
rc=$?
if [ "$rc" -eq 0 ]; then ok "make kit (a and b)"; else not_ok "make kit (b)"; tail -20 "$TMP/make-b.log"; fi
check "same inputs, same bytes (two builds)" cmp -s "$TMP/kit-a.tar.gz" "$TMP/kit-b.tar.gz"
left=$(pgrep -f "$TMP/node/benchgen-kit" || true)
check "no process of the kit left running" test -z "$left"
finish
