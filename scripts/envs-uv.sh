#!/usr/bin/env bash
# envs-uv.sh [ENV] [PIN] - builds environment ENV (default base) and a
# derived `run --with PIN` environment (default six==1.17.0) in a fresh
# cache, once with pip (BENCHGEN_UV=pip) and once with uv, and prints the
# wall time of each build and `du -s` over the whole cache after each step
# (du counts a hard-linked file once). Caches go under ${SCRATCH:-/tmp};
# uv itself is installed once into the uv cache's tools/ (not timed: it is
# copied in from $UV_TOOL when given).
set -eu
cd "$(dirname "$0")/.."
ENV=${1:-base}
PIN=${2:-six==1.17.0}
S=${SCRATCH:-/tmp}/envs-uv.$$
mkdir -p "$S"
trap 'rm -rf "$S"' EXIT
SPEC=tests/specs/rundir.yaml # numpy backend: its cells run in `base`
[ "$ENV" = base ] || { echo "only base is wired to a spec here"; exit 2; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
kib() { du -sk "$1" | cut -f1; }
for mode in pip uv; do
  C=$S/cache-$mode
  mkdir -p "$C/tools"
  [ "$mode" = uv ] && [ -n "${UV_TOOL:-}" ] && cp -a "$UV_TOOL" "$C/tools/uv"
  [ "$mode" = pip ] && export BENCHGEN_UV=pip || unset BENCHGEN_UV
  export BENCHGEN_CACHE=$C
  t0=$(date +%s.%N)
  ./benchgen env sync "$ENV" >"$S/$mode-sync.log" 2>&1
  t1=$(date +%s.%N)
  d1=$(kib "$C")
  ./benchgen run "$SPEC" --only batch=1 --with "$PIN" --out "$S/run-$mode" >"$S/$mode-with.log" 2>&1
  t2=$(date +%s.%N)
  d2=$(kib "$C")
  echo "$mode: env sync $ENV $(secs "$t0" "$t1") s, cache $((d1 / 1024)) MiB;" \
    "run --with $PIN (derived env build + 1 cell) $(secs "$t1" "$t2") s, cache +$(((d2 - d1) / 1024)) MiB"
done
