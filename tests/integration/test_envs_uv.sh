#!/usr/bin/env bash
# Environments built with uv (issue 14 item 1): `env sync` uses uv when it
# can be had, installing it into the cache's tools/ when it is not on PATH;
# a second environment that shares a package with the first gets that
# package as a hard link from uv's cache (same inode, nothing downloaded
# again); an unusable BENCHGEN_UV falls back to pip (BENCHGEN_UV=pip forces it).
# Uses tiny lock files (six, idna) in a scratch BENCHGEN_HOME and cache.
set -u
. "$(dirname "$0")/lib.sh"

H=$TMP/home
mkdir -p "$H/data/envs"
printf 'six==1.17.0\n' >"$H/data/envs/tiny.txt"
printf 'six==1.17.0\nidna==3.20\n' >"$H/data/envs/tiny2.txt"
printf 'six==1.17.0\n' >"$H/data/envs/tinypip.txt"
export BENCHGEN_HOME=$H BENCHGEN_CACHE=$TMP/cache
# reuse a uv this machine already installed for benchgen, else let benchgen install one
for u in "${BENCHGEN_TEST_UV:-}" "$(command -v uv || true)" "${XDG_CACHE_HOME:-$HOME/.cache}/benchgen/tools/uv/bin/uv"; do
  if [ -n "$u" ] && [ -x "$u" ]; then export BENCHGEN_UV=$u; break; fi
done

timeout 300 "$BENCHGEN" env sync tiny >"$TMP/uv1.out" 2>&1
check "env sync with uv exits 0" test $? -eq 0
check "it says it builds with uv" grep -q "env tiny: creating .*with uv)" "$TMP/uv1.out"
V1=$(ls -d "$TMP"/cache/envs/tiny-*)
six1=$(ls "$V1"/lib/python3*/site-packages/six.py)
check "the venv has the locked package" test -f "$six1"
check "its files are hard links into uv's cache" test "$(stat -c %h "$six1")" -ge 2
check "uv's cache is inside benchgen's cache" test -d "$TMP/cache/uv"

timeout 300 "$BENCHGEN" env sync tiny2 >"$TMP/uv2.out" 2>&1
check "a second environment sharing six builds (exit 0)" test $? -eq 0
six2=$(ls "$(ls -d "$TMP"/cache/envs/tiny2-*)"/lib/python3*/site-packages/six.py)
check "the shared package is the same file (one inode, no second copy)" \
  test "$(stat -c %i "$six1")" = "$(stat -c %i "$six2")"

BENCHGEN_UV=$TMP/no-such-uv timeout 300 "$BENCHGEN" env sync tinypip >"$TMP/pip.out" 2>&1
check "an unusable BENCHGEN_UV falls back to pip (exit 0)" test $? -eq 0
check "and says why" grep -q "does not run; building with pip" "$TMP/pip.out"
check "the build says pip" grep -q "env tinypip: creating .*with pip)" "$TMP/pip.out"
six3=$(ls "$(ls -d "$TMP"/cache/envs/tinypip-*)"/lib/python3*/site-packages/six.py)
check "pip copies: a file of its own" test "$(stat -c %h "$six3")" -eq 1
"$BENCHGEN" env list >"$TMP/list.out" 2>&1
check "all three environments are ready" test "$(grep -c '  ready  ' "$TMP/list.out")" -eq 3
finish
