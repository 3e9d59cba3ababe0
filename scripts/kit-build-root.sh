#!/usr/bin/env bash
# kit-build-root.sh [OUT.tar.gz] - `make kit` inside a Debian bullseye root
# (glibc 2.31), so that the kit runs on nodes older than the build machine
# (`make kit-bullseye`; docs/GPU.md, "glibc").
#
# A kit built on Debian bookworm needs glibc 2.36 (its binary and bundled
# libraries use symbol versions up to GLIBC_2.36); one built here needs 2.29
# (libm's exp/log/pow in cairo, pixman, libpng and SQLite): Ubuntu 20.04 and
# 22.04, Debian 11 and 12, RHEL 9 and the like, not RHEL 8 (2.28).
#
# The root is made once with debootstrap from Debian's packages and kept
# (KIT_ROOT, default ~/.cache/benchgen/kit-root-bullseye, about 900 MB):
# bullseye's build packages, plus two libraries built from bookworm's Debian
# source packages, since bullseye has no libxlsxwriter and its static
# libarchive drags in libxml2: libxlsxwriter 1.1.4 and libarchive 3.6.2
# (static, without xml2, OpenSSL or nettle; only its tar and gzip code is
# linked), both in /usr/local of the root. Then, in a mount namespace of its
# own (nothing stays mounted), this checkout is bind-mounted at /src, the
# wheel cache at /wheels and /usr/local/cuda (read-only, when there) at the
# same place, and `make kit BUILD=build/bullseye` runs in the root.
#
# Environment: KIT_ROOT, KIT_MIRROR (default http://deb.debian.org/debian),
# KIT_PYTHONS and KIT_WHEEL_CACHE (as for make kit). Needs root (debootstrap,
# chroot, unshare) and debootstrap (apt-get install debootstrap).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build/bullseye/benchgen-kit-$(cat "$src/VERSION").tar.gz}
root=${KIT_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/kit-root-bullseye}
mirror=${KIT_MIRROR:-http://deb.debian.org/debian}
wheels=${KIT_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/kit-wheels}
die() { echo "kit-build-root: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
case $out in /*) die "OUT must be relative to the checkout (it is written through /src)" ;; esac

# Packages of the build root: benchgen's build dependencies (scripts/install-deps.sh)
# less libarchive-dev and libxlsxwriter-dev, plus what the two source builds need
# and Python 3.11's (for a test node: tests/kit-old-glibc.sh).
pkgs="pkg-config git ca-certificates dpkg-dev cmake xz-utils binutils fonts-dejavu-core
  libsqlite3-dev libyaml-dev libjansson-dev libssl-dev libcairo2-dev libpango1.0-dev
  nettle-dev zlib1g-dev liblzma-dev libbz2-dev python3-dev python3-pip python3-venv libffi-dev uuid-dev"
stamp="bullseye $(echo "$pkgs" | tr -s ' \n' ' ') libxlsxwriter-1.1.4 libarchive-3.6.2 v1"

in_root() { # DIR COMMAND...: runs COMMAND in the root DIR with /proc, nothing else
  local r=$1; shift
  unshare -m bash -c 'mount --make-rprivate / && mount -t proc proc "$1/proc" && shift && chroot "$@"' _ "$r" "$r" \
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"
}

if [ "$(cat "$root/.benchgen-root" 2>/dev/null)" != "$stamp" ]; then
  command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
  tmp=$root.tmp
  rm -rf "$tmp"
  mkdir -p "$(dirname "$root")"
  echo "kit-build-root: making a Debian bullseye root in $tmp (debootstrap, a few minutes)" >&2
  debootstrap --variant=buildd bullseye "$tmp" "$mirror" >"$tmp.log" 2>&1 || die "debootstrap failed: $(tail -3 "$tmp.log")"
  printf 'deb %s bullseye main\ndeb %s bullseye-updates main\n' "$mirror" "$mirror" >"$tmp/etc/apt/sources.list"
  # bookworm's source packages of the two libraries bullseye lacks or has unsuitably
  printf 'deb-src %s bookworm main\n' "$mirror" >"$tmp/etc/apt/sources.list.d/bookworm-src.list"
  cp -L /etc/resolv.conf "$tmp/etc/resolv.conf"
  mkdir -p "$tmp/opt/src"
  cat >"$tmp/opt/src/build.sh" <<EOF
set -e
apt-get update -qq
apt-get install -y -qq --no-install-recommends $(echo "$pkgs" | tr -s ' \n' ' ') >/opt/src/apt.log 2>&1
cd /opt/src
apt-get source -qq libxlsxwriter libarchive >/opt/src/source.log 2>&1
rm -rf xlsx la && mkdir -p xlsx/b la
tar xzf libxlsxwriter_1.1.4.orig.tar.gz -C xlsx --strip-components=1
(cd xlsx/b && cmake -DCMAKE_INSTALL_PREFIX=/usr/local -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release .. &&
  make -j\$(nproc) && make install) >/opt/src/xlsx.log 2>&1
tar xJf libarchive_3.6.2.orig.tar.xz -C la --strip-components=1
(cd la && ./configure --prefix=/usr/local --disable-shared --enable-static --with-pic --without-xml2 --without-expat \\
  --without-openssl --without-nettle --without-lz4 --without-zstd --without-lzo2 --without-libb2 --without-cng \\
  --without-mbedtls --disable-acl --disable-xattr --disable-bsdtar --disable-bsdcpio --disable-bsdcat --disable-bsdunzip &&
  make -j\$(nproc) && make install) >/opt/src/libarchive.log 2>&1
# its .pc asks for an iconv.pc that glibc systems do not have
sed -i 's/^Requires.private: iconv\$/Requires.private:/' /usr/local/lib/pkgconfig/libarchive.pc
ldconfig
rm -rf xlsx la libxlsxwriter-1.1.4 libarchive-3.6.2 && apt-get clean
pkg-config --exists --print-errors xlsxwriter libarchive sqlite3 yaml-0.1 jansson libcrypto cairo pangocairo zlib
EOF
  in_root "$tmp" bash /opt/src/build.sh || die "preparing the root failed (logs in $tmp/opt/src/)"
  echo "$stamp" >"$tmp/.benchgen-root"
  rm -rf "$root" && mv "$tmp" "$root" && rm -f "$tmp.log"
fi

commit=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
dirty=$(test -n "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" && echo 1 || echo 0)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || echo 0)}
mkdir -p "$root/src" "$root/wheels" "$root/usr/local/cuda" "$wheels"
cuda=()
[ -e /usr/local/cuda/lib64/libcudart_static.a ] && cuda=(CUDA_HOME=/usr/local/cuda)
# git cannot run in the root (a worktree's .git points outside it): the commit comes from here.
unshare -m bash -c '
  set -e
  r=$1 src=$2 wheels=$3; shift 3
  mount --make-rprivate /
  mount -t proc proc "$r/proc"
  mount --bind "$src" "$r/src"
  mount --bind "$wheels" "$r/wheels"
  if [ -e /usr/local/cuda/lib64/libcudart_static.a ]; then mount --bind -o ro /usr/local/cuda "$r/usr/local/cuda"; fi
  exec chroot "$r" "$@"' _ "$root" "$src" "$wheels" \
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 SOURCE_DATE_EPOCH="$epoch" KIT_COMMIT="$commit" \
  KIT_WHEEL_CACHE=/wheels make --no-print-directory -C /src -j"$(nproc)" BUILD=build/bullseye "${cuda[@]}" \
  GIT_COMMIT="$commit" GIT_DIRTY="$dirty" kit KIT="$out" KIT_PYTHONS="${KIT_PYTHONS:-3.12}"
