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

# A mistake must never cost a download (issue 14: the upgrade recipe built a
# 3 GB environment before finding --out taken): --out and the spec are
# checked before anything is derived or built. Own cache, so "nothing" is
# checkable.
mkdir -p "$TMP/taken" && echo x >"$TMP/taken/notes.txt"
BENCHGEN_CACHE=$TMP/ocache "$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy==2.1.3 \
  --out "$TMP/taken" >"$TMP/taken.out" 2>&1
check "--with and a taken --out: exit 2" test $? -eq 2
check "... saying so" grep -q "taken exists and is not empty; choose another --out" "$TMP/taken.out"
check "... before deriving or building anything" test -z "$(find "$TMP/ocache/derived" "$TMP/ocache/envs" -mindepth 1 2>/dev/null)"
check "... and the directory is untouched" test "$(ls -A "$TMP/taken")" = notes.txt
BENCHGEN_CACHE=$TMP/ocache "$BENCHGEN" run tests/specs/bad-syntax.yaml --with numpy==2.1.3 --out "$TMP/new" \
  >"$TMP/badspec.out" 2>&1
check "--with and a bad spec: exit 2" test $? -eq 2
check "... with file:line:col" grep -q "bad-syntax.yaml:[0-9]*:[0-9]*: " "$TMP/badspec.out"
check "... before deriving or building anything" test -z "$(find "$TMP/ocache/derived" "$TMP/ocache/envs" -mindepth 1 2>/dev/null)"

# Package names are compared PEP 503-normalised (docs/UPGRADE-STUDY.md): NumPy
# replaces the lock's numpy line rather than adding a second one.
BENCHGEN_CACHE=$TMP/ncache "$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with NumPy==2.2.6 \
  --dry-run >"$TMP/norm.out" 2>&1
check "--with NumPy==2.2.6 makes base+numpy-2.2.6" grep -q "env=base+numpy-2.2.6 " "$TMP/norm.out"
check "... whose lock pins numpy once, as given" \
  test "$(grep -iv '^#' "$TMP/ncache/derived/base+numpy-2.2.6.txt" | grep -ic '^numpy')" = 1

"$BENCHGEN" run tests/specs/pipeline.yaml --only model=mlp --with numpy --dry-run >/dev/null 2>"$TMP/bad.err"
check "a pin without ==VERSION is a usage error (exit 2)" test $? -eq 2
check "the message says what is expected" grep -q "PKG==VERSION" "$TMP/bad.err"
finish
