#!/usr/bin/env bash
# `run --with PKG==VERSION` (derived environments) and `--repeats N`.
set -u
. "$(dirname "$0")/lib.sh"

RUN=$TMP/with
"$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy==2.2.6 --repeats 2 --out "$RUN" \
  >"$TMP/with.out" 2>&1
check "run --with exits 0" test $? -eq 0
"$BENCHGEN" show "$RUN" --json >"$TMP/with.json"
J=$TMP/with.json
check "--repeats 2 doubles the cells" test "$(jget "$J" 'len(d["cells"])')" = 4
check "repeats are interleaved across the matrix" \
  test "$(jget "$J" '",".join(c["key"] for c in d["cells"])')" = \
  "mlp/fit/b8/numpy,mlp/predict/b16/numpy,mlp/fit/b8/numpy#r2,mlp/predict/b16/numpy#r2"
check "cells run in the derived environment" \
  test "$(jget "$J" '{c["env"] for c in d["cells"]}')" = "{'base+numpy-2.2.6'}"
check "the pinned version is what ran" \
  test "$(jget "$J" '{c["environment"]["pkg.numpy"] for c in d["cells"]}')" = "{'2.2.6'}"
check "the pins are recorded with the run" test "$(jget "$J" 'd["run"]["environment"]["run.with"]')" = numpy==2.2.6
check "derived env listed with its hash" grep -q "base+numpy-2.2.6" <<<"$("$BENCHGEN" env list)"

# The derived lock's bytes name its venv, and the cache is shared by every
# checkout: they must not depend on where this checkout is (the parent lock's
# absolute path in its comment made each checkout build its own venv, and
# two checkouts' runs raced over one derived lock).
D=$("$BENCHGEN" info 2>/dev/null | sed -n 's/.*cached in \(.*\)$/\1/p')/derived/base+numpy-2.2.6.txt
check "the derived lock exists" test -f "$D"
check "it names its parent by name" grep -qx '# derived by `benchgen run --with` from environment base' "$D"
check "it holds no path of this checkout" bash -c '! grep -qF "$1" "$2"' _ "$PWD" "$D"
cp "$D" "$TMP/derived-here.txt"
mkdir -p "$TMP/other"
cp -r data "$TMP/other/"
BENCHGEN_HOME=$TMP/other "$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy==2.2.6 --dry-run \
  >/dev/null 2>&1
check "another checkout writes the same bytes (one venv for both)" cmp -s "$D" "$TMP/derived-here.txt"

"$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy --dry-run >/dev/null 2>"$TMP/bad.err"
check "a pin without ==VERSION is a usage error (exit 2)" test $? -eq 2
check "the message says what is expected" grep -q "PKG==VERSION" "$TMP/bad.err"
finish
