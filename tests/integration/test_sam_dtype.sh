#!/usr/bin/env bash
# SAM predict in bfloat16 (issue 21, "first-contact defects"): segment_anything
# multiplies float32 point coordinates by its prompt encoder's Gaussian
# matrix, so casting every buffer to bfloat16 made each torch SAM predict
# cell in bfloat16 fail with a dtype error, on a CPU as on a GPU. A tiny SAM
# predict cell in bfloat16 on torch-eager must end ok; on Keras 2, where
# keras-cv's SAM cannot run in bfloat16, the cell must end unsupported with
# the reason (not error).
# Needs the torch and keras2 environments.
set -u
. "$(dirname "$0")/lib.sh"

cat >"$TMP/spec.yaml" <<'YAML'
name: sam-bf16
size: tiny
precision: bfloat16
steps: 2
warmup: 1
timeout: 300
backends: [torch-eager, keras2-tensorflow]
rows:
  - {model: sam, task: predict, batch: 2}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --out "$TMP/run" --cpus-per-cell 1 >"$TMP/run.out" 2>&1
rc=$?
"$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json"
K=sam/predict/b2/torch-eager
got=$(cell "$TMP/run.json" $K status)
if [ "$got" = ok ]; then ok "$K in bfloat16 ends ok"; else
  not_ok "$K in bfloat16 ends ok (got $got: $(cell "$TMP/run.json" $K detail | tail -c 300))"; fi
check "$K: two timed samples" test "$(jget "$TMP/run.json" "[c for c in d['cells'] if c['key']=='$K'][0]['samples']['timed']")" = 2
check "$K: ran with bfloat16 parameters" \
  test "$(jget "$TMP/run.json" "[c for c in d['cells'] if c['key']=='$K'][0]['facts'].get('dtype_policy')")" = bfloat16
check "$K: the positional encoding's dtype is recorded" \
  grep -q "^float32" <<<"$(jget "$TMP/run.json" "[c for c in d['cells'] if c['key']=='$K'][0]['facts'].get('sam.positional_encoding')")"
K2=sam/predict/b2/keras2-tensorflow
check "$K2 in bfloat16 ends unsupported" test "$(cell "$TMP/run.json" $K2 status)" = unsupported
check "$K2: the reason names Keras 3 and bfloat16" \
  grep -q "needs Keras 3.*bfloat16" <<<"$(cell "$TMP/run.json" $K2 detail)"
check "run exits 0 (ok and unsupported only)" test "$rc" -eq 0
finish
