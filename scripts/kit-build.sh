#!/usr/bin/env bash
# kit-build.sh BENCHGEN EXT OUT.tar.gz - the offline kit for an air-gapped
# x86-64 Linux GPU node (`make kit`; docs/GPU.md, "The offline kit").
#
# BENCHGEN is the kit's link of benchgen (rpath $ORIGIN/lib, libarchive
# static), EXT the _benchgen stable-ABI module. The kit holds them, the
# shared libraries the binary needs beyond glibc (lib/), runners/, data/,
# templates/, fonts/, a wheelhouse (scripts/kit-wheels.txt) and install.sh.
#
# Same inputs, same bytes: files sorted, mtime = the commit's time
# (SOURCE_DATE_EPOCH), owner 0:0, fixed modes, gzip without a name or time.
#
# Environment:
#   KIT_PYTHONS      CPython versions whose version-specific wheels (kind `cp`)
#                    go in (default 3.12; empty: none)
#   KIT_WHEEL_CACHE  where downloaded wheels are kept (default
#                    ~/.cache/benchgen/kit-wheels); a wheel found there is
#                    not downloaded again
#   KIT_BUDGET_MIB   fail when the kit is larger (default 48)
#   PYTHON           the interpreter whose pip downloads (default python3)
#   KIT_EXT_SUBDIR   where in the kit the worker module goes: the EXT_DIR the
#                    binary was built with (make kit passes it; default build/python)
#   KIT_COMMIT       the commit KIT-INFO names (default: git's HEAD; set by
#                    scripts/kit-build-root.sh, whose build root cannot run git)
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 BENCHGEN EXT OUT.tar.gz" >&2; exit 2; }
bin=$1 ext=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")
pythons=${KIT_PYTHONS-3.12}
cache=${KIT_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/kit-wheels}
budget=${KIT_BUDGET_MIB:-48}
py=${PYTHON:-python3}
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}

die() { echo "kit: $*" >&2; exit 1; }
[ -x "$bin" ] || die "$bin: no such binary (run make kit)"
[ -f "$ext" ] || die "$ext: no such module (run make kit)"
[ "$(uname -m)" = x86_64 ] || die "the kit is for x86-64 nodes; this machine is $(uname -m)"

name=benchgen-kit-$version
work=$(mktemp -d "${TMPDIR:-/tmp}/benchgen-kit.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/$name
# The binary looks for the module in the EXT_DIR it was compiled with (BUILD/python).
extdir=${KIT_EXT_SUBDIR:-build/python}
mkdir -p "$stage/lib" "$stage/$extdir" "$stage/runners/workloads" "$stage/wheels" "$cache"

# ---- the binary and the libraries it needs beyond glibc ----------------------
# glibc (and the vDSO) comes from the node; everything else ldd resolves is
# copied. The binary's RPATH ($ORIGIN/lib, DT_RPATH so it also applies to the
# libraries' own dependencies) finds them there before the node's.
glibc='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libmvec\.so|libpthread\.so|libdl\.so|librt\.so|libutil\.so|libresolv\.so|libanl\.so)'
strip -o "$stage/benchgen" "$bin"
readelf -d "$stage/benchgen" | grep -q 'RPATH.*\$ORIGIN/lib' || die "$bin has no RPATH \$ORIGIN/lib"
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
  [[ $soname =~ $glibc ]] && continue
  cp -L "$path" "$stage/lib/$soname"
done
if ldd "$bin" | grep -q 'not found'; then die "$bin: a library is not found: $(ldd "$bin" | grep 'not found')"; fi
cp "$ext" "$stage/$extdir/_benchgen.abi3.so"
# The newest glibc symbol version any of them needs: the node's glibc must be at least that.
need_glibc=$(for f in "$stage/benchgen" "$stage/$extdir/_benchgen.abi3.so" "$stage"/lib/*; do
  objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' ; done | sed 's/GLIBC_//' | sort -uV | tail -1)

# ---- what benchgen reads at run time ------------------------------------------
cp "$root/runners/harness.py" "$stage/runners/"
cp "$root"/runners/workloads/*.py "$stage/runners/workloads/"
cp -r "$root/data" "$root/templates" "$root/fonts" "$stage/"
cp "$root/scripts/kit-install.sh" "$stage/install.sh"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +

# ---- the wheelhouse --------------------------------------------------------------
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
      --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64
      --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64)
norm() { tr 'A-Z' 'a-z' <<<"$1" | sed 's/[-_.]\+/_/g'; }
# find_wheel NAME VERSION PATTERN: the cached wheel of that release whose tags match.
find_wheel() {
  local n; n=$(norm "$1")
  find "$cache" -maxdepth 1 -type f -iname "${n}-${2}-*.whl" | grep -E -e "$3" | sort | head -1 || true
}
pattern_for() { # KIND [cpXY]
  case $1 in
    any) echo '-(py3|py2\.py3)-none-any\.whl$' ;;
    abi3) echo '-cp3[0-9]+-abi3-.*x86_64.*\.whl$' ;;
    cp) echo "-$2-$2-.*x86_64.*\\.whl\$" ;;
  esac
}
fetch() { # KIND TAGVERSION NAME==VERSION...: download what the cache lacks
  local kind=$1 v=$2; shift 2
  local want=() spec n ver tag=cp${v/./}
  for spec in "$@"; do
    n=${spec%%==*} ver=${spec#*==}
    [ -n "$(find_wheel "$n" "$ver" "$(pattern_for "$kind" "$tag")")" ] || want+=("$spec")
  done
  [ ${#want[@]} -eq 0 ] && return 0
  echo "kit: downloading ${#want[@]} $kind wheel(s)${v:+ for Python $v}: ${want[*]}" >&2
  local abi=(--abi abi3 --abi none) pyv=3.11
  [ "$kind" = cp ] && abi=(--abi "$tag") pyv=$v
  "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --implementation cp --python-version "$pyv" "${abi[@]}" "${plat[@]}" -d "$cache" "${want[@]}" >&2 ||
    die "pip download failed for: ${want[*]}"
}
mapfile -t lines < <(sed 's/#.*//' "$root/scripts/kit-wheels.txt" | awk 'NF == 2')
pure=() abi3=() versioned=()
for l in "${lines[@]}"; do
  read -r spec kind <<<"$l"
  case $kind in any) pure+=("$spec") ;; abi3) abi3+=("$spec") ;; cp) versioned+=("$spec") ;; node) ;; *) die "kit-wheels.txt: bad kind '$kind'" ;; esac
done
fetch any "" "${pure[@]}"
fetch abi3 "" "${abi3[@]}"
for v in $pythons; do fetch cp "$v" "${versioned[@]}"; done
: >"$stage/wheels/requirements.txt"
: >"$stage/wheels/requirements-cp.txt"
: >"$stage/wheels/requirements-node.txt"
for l in "${lines[@]}"; do
  read -r spec kind <<<"$l"
  n=${spec%%==*} ver=${spec#*==}
  if [ "$kind" = node ]; then
    echo "$spec" >>"$stage/wheels/requirements-node.txt"
  elif [ "$kind" = cp ]; then
    echo "$spec" >>"$stage/wheels/requirements-cp.txt"
    for v in $pythons; do
      w=$(find_wheel "$n" "$ver" "$(pattern_for cp "cp${v/./}")")
      [ -n "$w" ] || die "no $spec wheel for CPython $v on x86-64"
      cp "$w" "$stage/wheels/"
    done
  else
    w=$(find_wheel "$n" "$ver" "$(pattern_for "$kind")")
    [ -n "$w" ] || die "no $kind wheel of $spec (kit-wheels.txt says $kind)"
    cp "$w" "$stage/wheels/"
    echo "$spec" >>"$stage/wheels/requirements.txt"
  fi
done

# ---- what the kit is ---------------------------------------------------------------
commit=${KIT_COMMIT:-$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
cat >"$stage/KIT-INFO" <<EOF
benchgen $version (commit $commit)
glibc $need_glibc
pythons ${pythons:-none}
EOF
cat >"$stage/README.txt" <<EOF
benchgen $version offline kit for x86-64 Linux (glibc $need_glibc or later).

  ./install.sh [PYTHON]     binds PYTHON (default python3; it should have torch
                            and/or jax) with the wheels in wheels/, offline
  ./benchgen run data/matrix/gpu-smoke.yaml

Version-specific wheels are included for CPython: ${pythons:-none}.
See docs/GPU.md in the benchgen sources, "The offline kit".
EOF
(cd "$stage" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)

# ---- one reproducible tarball -----------------------------------------------------
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f -exec chmod 644 {} +
chmod 755 "$stage/benchgen" "$stage/install.sh"
mkdir -p "$(dirname "$out")"
LC_ALL=C tar --format=gnu --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  -C "$work" -cf - "$name" | gzip -9 -n >"$out.tmp"
mv "$out.tmp" "$out"

bytes=$(stat -c %s "$out")
echo "kit: $out: $(awk -v b="$bytes" 'BEGIN {printf "%.1f MiB", b / 1048576}') ($bytes bytes); needs glibc >= $need_glibc; cp wheels for: ${pythons:-none}"
echo "kit: largest members (bytes, uncompressed):"
tar -tvzf "$out" | awk '{print $3, $6}' | sort -rn | awk 'NR <= 10 {print "  " $0}'
if [ "$bytes" -gt $((budget * 1048576)) ]; then die "$out is over the budget of $budget MiB"; fi
