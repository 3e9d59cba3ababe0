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

"$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy --dry-run >/dev/null 2>"$TMP/bad.err"
check "a pin without ==VERSION is a usage error (exit 2)" test $? -eq 2
check "the message says what is expected" grep -q "PKG==VERSION" "$TMP/bad.err"
finish
