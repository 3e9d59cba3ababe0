#!/usr/bin/env bash
# Environments that can run (issue 27, item 3): `env add` imports, in the
# candidate, numpy (every cell needs it) and what the backends mapped to the
# name need (--for's, else those whose default environment it is), names what
# is missing with how to add it, exits 2 and registers nothing; re-adding a
# name says that it replaces the old registration; `env list` prints one
# line per environment, and the packages with --packages. The candidate without
# numpy is a fresh venv (no packages); the one with numpy is the shared
# cache's base interpreter. A cache of its own: nothing shared is touched.
set -u
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/container/spec.sh"
base_python
export BENCHGEN_CACHE=$TMP/cache
REG=$BENCHGEN_CACHE/external

python3 -m venv --without-pip "$TMP/bare" || not_ok "python3 -m venv"
BARE=$TMP/bare/bin/python
check "the bare venv lacks numpy (the case under test)" sh -c "! '$BARE' -s -c 'import numpy' 2>/dev/null"

"$BENCHGEN" env add py312 "$BARE" --for numpy >"$TMP/out" 2>"$TMP/err"
rc=$?
check "no numpy, mapped to numpy: exit 2" test "$rc" -eq 2
check "... names the missing module and its error" grep -qF "numpy (ModuleNotFoundError: No module named 'numpy'; every backend needs it)" "$TMP/err"
check "... says how to add it" grep -qF "\`$BARE -m pip install numpy\`" "$TMP/err"
check "... nothing registered" test ! -e "$REG/py312"

"$BENCHGEN" env add plain "$BARE" >"$TMP/out" 2>"$TMP/err"
check "no numpy, no backend named: exit 2 all the same (every cell needs numpy)" test $? -eq 2
check "... nothing registered" test ! -e "$REG/plain"

# a name that is a backend's default environment maps that backend to it
"$BENCHGEN" env add torch "$PY" >"$TMP/out" 2>"$TMP/err"
check "base's Python as 'torch': exit 2 (the torch backends need torch)" test $? -eq 2
check "... names torch and the backends that need it" grep -qF "torch (ModuleNotFoundError: No module named 'torch'; torch-eager, torch-compiled need it)" "$TMP/err"
check "... and not numpy, which it has" sh -c "! grep -qF 'numpy (' '$TMP/err'"
check "... nothing registered" test ! -e "$REG/torch"

# --for names the backends it will run, instead of the name's defaults (the
# kit registers `keras3` with only the Keras backends a node has)
"$BENCHGEN" env add torch "$PY" --for numpy >"$TMP/out" 2>"$TMP/err"
check "base's Python as 'torch' --for numpy: registered (exit 0), torch not asked for" test $? -eq 0
check "... registration written" test -f "$REG/torch"
rm -f "$REG/torch"

"$BENCHGEN" env add np "$PY" --for keras3-jax >"$TMP/out" 2>"$TMP/err"
check "--for keras3-jax without jax or keras: exit 2" test $? -eq 2
check "... names jax and keras" sh -c "grep -qF 'jax (ModuleNotFoundError' '$TMP/err' && grep -qF 'keras (ModuleNotFoundError' '$TMP/err'"

"$BENCHGEN" env add np "$PY" --for bogus >"$TMP/out" 2>"$TMP/err"
check "--for an unknown backend: exit 2" test $? -eq 2
check "... says it is unknown" grep -qF "unknown backend 'bogus'" "$TMP/err"

"$BENCHGEN" env add np "$PY" --for numpy >"$TMP/out" 2>"$TMP/err"
check "base's Python for numpy: registered (exit 0)" test $? -eq 0
check "... says what it imported" grep -qE "^env np: imports numpy [0-9]" "$TMP/out"
check "... registration written" test -f "$REG/np"
check "... first time: nothing about replacing" sh -c "! grep -q replaces '$TMP/out'"

"$BENCHGEN" env add np "$PY" >"$TMP/out" 2>"$TMP/err"
check "adding the same name again: exit 0" test $? -eq 0
check "... says it replaces the earlier registration" grep -qF "env np: replaces its earlier registration ($PY)" "$TMP/out"

# env list: one line per environment; the packages with --packages
"$BENCHGEN" env list >"$TMP/list" 2>&1
check "env list: exit 0" test $? -eq 0
check "env list: the registration's line" grep -qE "^np  external  -  $PY  external$" "$TMP/list"
check "env list: no package line by default" sh -c "! grep -qE '^  [A-Za-z0-9_.-]+==' '$TMP/list'"
check "env list: says how to see them" grep -qF '# installed packages: `benchgen env list --packages`' "$TMP/list"
"$BENCHGEN" env list --packages >"$TMP/listp" 2>&1
check "env list --packages: exit 0" test $? -eq 0
check "env list --packages: the registration's packages follow its line" \
  sh -c "sed -n '/^np  external/,/^[^ ]/p' '$TMP/listp' | grep -qE '^  numpy==[0-9]'"

check "no process left" test -z "$(pgrep -f "$TMP/" 2>/dev/null)"
finish
