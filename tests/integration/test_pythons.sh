#!/usr/bin/env bash
# One spec's cells under several Python minor versions: 3.10, 3.11, 3.12 and
# 3.13, each a venv made by `env sync` from data/envs/py3.X.txt (whose
# `# python: 3.X` line picks the interpreter). Every cell must end ok and the
# input hashes must be byte-identical across versions: the same
# _benchgen.abi3.so generates and hashes them in every interpreter. A version
# this machine lacks is skipped, and the output says so. The venvs live in a
# test cache ($BENCHGEN_TEST_CACHE, default ~/.cache/benchgen-tests), built
# once.
set -u
. "$(dirname "$0")/lib.sh"

check "benchgen links no libpython (ldd)" test -z "$(ldd "$BENCHGEN" | grep -i libpython)"
# ./benchgen uses build/python; BUILD=build/asan's binary build/asan/python.
bindir=$(cd "$(dirname "$BENCHGEN")" && pwd)
[ "$bindir" = "$ROOT" ] && bindir=$ROOT/build
check "one stable-ABI module was built ($bindir/python/_benchgen.abi3.so)" test -f "$bindir/python/_benchgen.abi3.so"

export BENCHGEN_CACHE=${BENCHGEN_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchgen-tests}
ran=()
for v in 3.10 3.11 3.12 3.13; do
  out=$("$BENCHGEN" env sync "py$v" 2>&1)
  if [ $? -ne 0 ]; then
    if grep -q "which this machine does not have" <<<"$out"; then
      echo "# skip: Python $v is not installed here ($(grep -o 'install it[^)]*)' <<<"$out" | head -1))"
      continue
    fi
    not_ok "env sync py$v"
    echo "$out" | tail -5
    continue
  fi
  sed "s|^backends: \[numpy\]|backends: [numpy]\nenvs: {numpy: py$v}|; s|\.\./workloads/|$ROOT/tests/workloads/|" \
    tests/specs/pythons.yaml >"$TMP/py$v.yaml"
  "$BENCHGEN" run "$TMP/py$v.yaml" --out "$TMP/run-$v" >"$TMP/run-$v.out" 2>&1
  check "Python $v: run exits 0" test $? -eq 0
  "$BENCHGEN" show "$TMP/run-$v" --json >"$TMP/$v.json"
  got=$(jget "$TMP/$v.json" '" ".join(c["status"] for c in d["cells"])')
  check "Python $v: every cell ok ($got)" test "$got" = "ok ok"
  pv=$(jget "$TMP/$v.json" 'sorted(set(c["environment"].get("python.version","?") for c in d["cells"]))[0]')
  case "$pv" in "$v".*) ok "Python $v: cells record python.version $pv" ;;
    *) not_ok "Python $v: cells record python.version (got $pv)" ;; esac
  jget "$TMP/$v.json" '"\n".join(c["key"]+" "+c["input_sha256"]+" "+c["facts"].get("bytes.sha256","") for c in d["cells"])' \
    >"$TMP/hashes-$v"
  ran+=("$v")
done
check "at least three Python versions ran (${ran[*]:-none})" test "${#ran[@]}" -ge 3
for v in "${ran[@]:1}"; do
  check "input hashes byte-identical: Python ${ran[0]} and $v" cmp -s "$TMP/hashes-${ran[0]}" "$TMP/hashes-$v"
done
if [ "${#ran[@]}" -ge 2 ]; then
  "$BENCHGEN" compare "$TMP/run-${ran[0]}" "$TMP/run-${ran[1]}" >"$TMP/compare.txt" 2>&1
  check "compare lists the Python change" grep -q "python.version ${ran[0]}.* -> ${ran[1]}" "$TMP/compare.txt"
fi
finish
