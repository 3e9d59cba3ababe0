#!/usr/bin/env bash
# envs-fresh.sh [VERSION...] - what docs/PERFORMANCE.md "Environments: a fresh
# machine" quotes. In a scratch cache (BENCHGEN_CACHE and UV_CACHE_DIR under
# ${SCRATCH:-/tmp}, both removed at the end unless KEEP=1):
#   1. `env sync` of every lock in data/envs from a cold uv cache (uv itself
#      installed by benchgen, as on a fresh machine): the wall time, each
#      environment's "ready in" line, the bytes eth0 received (the
#      machine's, so other traffic counts too) and `du -s` over both caches;
#   2. for each VERSION (default 5.23.0 5.22.0 5.20.0), the derived
#      environment torch+transformers-VERSION (`run --with
#      transformers==VERSION`, made with --dry-run, then built by `env sync`,
#      the code `run --with` calls): its announcement, build time, and what it
#      added to `du -s` over both caches (a hard-linked file counts once).
# PIP=1 also builds `torch` with pip (BENCHGEN_UV=pip) from a cold pip cache.
# SHARED=1 skips step 1 and measures step 2 in the cache benchgen uses now
# (BENCHGEN_CACHE or ~/.cache/benchgen, its `torch` built), removing each
# derived environment it made afterwards; `du -s` is then over that cache.
set -u
cd "$(dirname "$0")/.."
S=${SCRATCH:-/tmp}/envs-fresh.$$
shared=${SHARED:-0}
if [ "$shared" = 1 ]; then
  export BENCHGEN_CACHE=${BENCHGEN_CACHE:-$HOME/.cache/benchgen}
  export UV_CACHE_DIR=${UV_CACHE_DIR:-$BENCHGEN_CACHE/uv}
else
  export BENCHGEN_CACHE=$S/cache UV_CACHE_DIR=$S/uv
fi
mkdir -p "$S"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$S"' EXIT
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
kib() { du -sk --total "$BENCHGEN_CACHE" "$UV_CACHE_DIR" 2>/dev/null | tail -1 | cut -f1; }
rx() { awk '$1 == "eth0:" { print $2 }' /proc/net/dev; }

if [ "$shared" = 0 ]; then
  r0=$(rx); t0=$(now)
  ./benchgen env sync >"$S/sync.log" 2>&1 || echo "env sync failed: see $S/sync.log (KEEP=1 keeps it)"
  t1=$(now); r1=$(rx)
  echo "env sync (all of data/envs, cold): $(secs "$t0" "$t1") s, eth0 received $(((r1 - r0) / 1048576)) MiB," \
    "caches $(($(kib) / 1024)) MiB"
  grep -E "^env [^ ]+: (ready in|FAILED)|installing uv" "$S/sync.log"
fi

for v in ${@:-5.23.0 5.22.0 5.20.0}; do
  if [ "$shared" = 1 ] && compgen -G "$BENCHGEN_CACHE/envs/torch+transformers-$v-*" >/dev/null; then
    echo "derived torch+transformers-$v: already in $BENCHGEN_CACHE, skipped (SHARED=1 never removes what it did not make)"
    continue
  fi
  ./benchgen run data/matrix/cpu-tiny.yaml --only backend=torch-eager --with "transformers==$v" --dry-run \
    >/dev/null 2>&1
  d0=$(kib); t0=$(now)
  ./benchgen env sync "torch+transformers-$v" >"$S/derived-$v.log" 2>&1
  t1=$(now); d1=$(kib)
  echo "derived torch+transformers-$v: $(secs "$t0" "$t1") s wall, cache +$(((d1 - d0) / 1024)) MiB," \
    "load $(cut -d' ' -f1 /proc/loadavg)"
  grep -E "to download|nothing to download|ready in|FAILED|depends on" "$S/derived-$v.log"
  if [ "$shared" = 1 ] && [ "${KEEP:-0}" = 0 ]; then
    rm -rf "$BENCHGEN_CACHE/envs/torch+transformers-$v-"* "$BENCHGEN_CACHE/derived/torch+transformers-$v.txt"
  fi
done

if [ "${PIP:-0}" = 1 ]; then
  export BENCHGEN_CACHE=$S/pipcache PIP_CACHE_DIR=$S/pipcache/pip-http BENCHGEN_UV=pip
  r0=$(rx); t0=$(now)
  ./benchgen env sync torch >"$S/pip.log" 2>&1
  t1=$(now); r1=$(rx)
  echo "pip: env sync torch (cold pip cache) $(secs "$t0" "$t1") s, eth0 received $(((r1 - r0) / 1048576)) MiB," \
    "venv $(($(du -sk "$BENCHGEN_CACHE/envs" | cut -f1) / 1024)) MiB"
fi
