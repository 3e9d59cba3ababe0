#!/usr/bin/env bash
# kit-old-glibc.sh - opt-in, not in `make test` (it needs root, debootstrap
# and Debian's mirror, and about 10 minutes and 2 GB the first time): the
# offline kit on a node older than this machine (docs/GPU.md, "glibc").
#
#   BENCHGEN=$PWD/benchgen tests/kit-old-glibc.sh
#
# 1. `make kit-bullseye` (scripts/kit-build-root.sh): the kit built in a Debian
#    bullseye root (glibc 2.31).
# 2. A node root: a minimal bullseye (debootstrap --variant=minbase, glibc
#    2.31) with Python 3.11 (bullseye has 3.9, and the kit needs 3.11: built
#    in the build root from the orig tarball of bookworm's python3.11 source
#    package) and numpy from PyPI in a venv at /opt/node.
# 3. In that root, offline (scripts/kit-node-test.sh): the kit built here (on
#    this machine's glibc) must be refused clearly (its benchgen does not
#    start, install.sh names the glibc it needs); the bullseye kit's
#    benchgen runs, its install.sh binds /opt/node/bin/python, a NumPy cell
#    ends ok.
# The roots are kept in $BENCHGEN_TEST_CACHE (default ~/.cache/benchgen-tests)
# and the build root in KIT_ROOT (scripts/kit-build-root.sh); a second run
# takes about two minutes. Prints ok / not ok lines and "N passed, N failed".
set -u
. "$(dirname "$0")/integration/lib.sh"

cache=${BENCHGEN_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen-tests}
node=$cache/bullseye-node
broot=${KIT_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/kit-root-bullseye}
mirror=${KIT_MIRROR:-http://deb.debian.org/debian}
pyv=3.11
numpy=numpy==2.3.5
# everything printed also goes to $TMP/all, which the closing line counts
exec > >(tee -a "$TMP/all")
done_() {
  sleep 0.2
  p=$(grep -c '^ok - ' "$TMP/all") f=$(grep -c '^not ok - ' "$TMP/all")
  echo "$p passed, $f failed"
  [ "$f" -eq 0 ] || FAILED=1
  finish
}

if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap >/dev/null; then
  echo "not ok - this test needs root and debootstrap (apt-get install debootstrap)"; FAILED=1; done_
fi

# ---- 1. the kit, built in the bullseye root --------------------------------------
t0=$SECONDS
if KIT_PYTHONS=$pyv scripts/kit-build-root.sh build/bullseye/kit-old-glibc.tar.gz >"$TMP/build-root.log" 2>&1; then
  ok "make kit-bullseye ($((SECONDS - t0)) s): $(grep '^kit: ' "$TMP/build-root.log" | head -1)"
else
  not_ok "make kit-bullseye"; tail -15 "$TMP/build-root.log"; done_
fi
old_kit=$ROOT/build/bullseye/kit-old-glibc.tar.gz

# ---- 2. the node root ---------------------------------------------------------------
in_root() { # DIR COMMAND...
  local r=$1; shift
  unshare -m bash -c 'mount --make-rprivate / && mount -t proc proc "$1/proc" && shift && chroot "$@"' _ "$r" "$r" \
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"
}
# (the venv's python is a link to /opt/python3.11 inside the root: a marker says it is ready)
if [ ! -e "$node/.benchgen-node-ready" ]; then
  t0=$SECONDS
  rm -rf "$node.tmp" && mkdir -p "$cache"
  {
    debootstrap --variant=minbase bullseye "$node.tmp" "$mirror" &&
      cp -L /etc/resolv.conf "$node.tmp/etc/resolv.conf" &&
      in_root "$node.tmp" apt-get update -qq &&
      in_root "$node.tmp" apt-get install -y -qq --no-install-recommends libssl1.1 libffi7 libsqlite3-0 &&
      # Python 3.11, built in the build root (it has the compilers) from Debian's source package
      in_root "$broot" bash -c "set -e; cd /opt/src; apt-get source -qq --download-only python3.11;
        rm -rf Python-$pyv.* && tar xzf python3.11_*.orig.tar.gz && cd Python-$pyv.*/ &&
        ./configure -q --prefix=/opt/python$pyv --with-ensurepip=install && make -s -j\$(nproc) && make -s install" &&
      cp -a "$broot/opt/python$pyv" "$node.tmp/opt/" && rm -rf "$broot/opt/python$pyv" "$broot"/opt/src/Python-$pyv.* &&
      in_root "$node.tmp" /opt/python$pyv/bin/python$pyv -m venv /opt/node &&
      mkdir -p "$node.tmp/opt/wheels" &&
      python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --implementation cp \
        --python-version $pyv --abi cp${pyv/./} --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        -d "$node.tmp/opt/wheels" $numpy &&
      in_root "$node.tmp" bash -c '/opt/node/bin/pip install -q --disable-pip-version-check --no-index /opt/wheels/*.whl' &&
      touch "$node.tmp/.benchgen-node-ready"
  } >"$TMP/node-root.log" 2>&1
  if [ -e "$node.tmp/.benchgen-node-ready" ]; then
    rm -rf "$node" && mv "$node.tmp" "$node"
  else
    not_ok "make the node root (bullseye minbase, Python $pyv, $numpy)"; tail -15 "$TMP/node-root.log"; done_
  fi
  ok "node root made ($((SECONDS - t0)) s)"
fi
glibc=$(in_root "$node" ldd --version | head -1 | awk '{print $NF}')
check "the node root's glibc is older than this machine's ($glibc < $(ldd --version | head -1 | awk '{print $NF}'))" \
  test "$(printf '%s\n%s\n' "$glibc" "$(ldd --version | head -1 | awk '{print $NF}')" | sort -V | head -1)" = "$glibc"

# ---- 3. both kits in the node root, offline ---------------------------------------------
make --no-print-directory kit KIT="$TMP/kit-here.tar.gz" KIT_PYTHONS=$pyv >"$TMP/make-here.log" 2>&1 ||
  { not_ok "make kit (this machine)"; tail -5 "$TMP/make-here.log"; done_; }
scripts/kit-node-test.sh "$node" "$TMP/kit-here.tar.gz" /opt/node/bin/python >"$TMP/here.out" 2>&1
sed 's/^/# here: /' "$TMP/here.out" | grep -v '^# here: \(ok\|not ok\)'
need=$(tar xzOf "$TMP/kit-here.tar.gz" --wildcards '*/KIT-INFO' | awk '$1 == "glibc" {print $2}')
check "the kit built here (needs glibc $need) is refused there: its benchgen does not start" \
  grep -q "^not ok - the kit's benchgen runs here (.*version \`GLIBC_2\.[0-9]*' not found" "$TMP/here.out"
check "install.sh says which glibc it needs" grep -q "install.sh: this kit needs glibc $need or later; the node has $glibc" "$TMP/here.out"
scripts/kit-node-test.sh "$node" "$old_kit" /opt/node/bin/python >"$TMP/old.out" 2>&1
rc=$?
sed 's/^/# bullseye kit: /' "$TMP/old.out" | grep -v '^# bullseye kit: \(ok\|not ok\)'
grep -E '^(ok|not ok) - ' "$TMP/old.out" | sed 's/^\(not \)\{0,1\}ok - /&the bullseye kit: /'
check "scripts/kit-node-test.sh passed for the bullseye kit (exit $rc)" test "$rc" -eq 0
done_
