#!/usr/bin/env bash
# The built-in workloads through the real frameworks: one tiny cell per
# backend and per task kind (fit, predict, generate) from
# data/matrix/cpu-tiny.yaml (3 timed steps), plus a Keras 2 LLM cell that must end
# `unsupported` (NA in the published table). Checks statuses and the fairness
# facts through `benchgen show --json`. Needs the torch, keras3 and keras2
# environments (`./benchgen env sync torch keras3 keras2`); a missing one
# makes its cells `skipped`, which fails the checks: no silent pass.
set -u
. "$(dirname "$0")/lib.sh"

python3 tests/python/test_memory.py || not_ok "the memory.* facts' unit tests pass (tests/python/test_memory.py)"

# cpu-tiny.yaml as it is but for 3 timed steps instead of 10: these checks
# read statuses, facts and sample counts, not times.
STEPS=3
SPEC=$TMP/cpu-tiny.yaml
sed "s/^steps: 10\$/steps: $STEPS/" data/matrix/cpu-tiny.yaml >"$SPEC"
check "cpu-tiny.yaml, with $STEPS timed steps instead of 10" \
  test "$(grep -c "^steps: $STEPS\$" "$SPEC") $(diff data/matrix/cpu-tiny.yaml "$SPEC" | grep -c '^[<>]')" = "1 2"
RUN=$TMP/run
CELLS=(
  gemma/generate/b1/torch-eager        # generate, torch eager (HF generate, bf16)
  sam/predict/b4/torch-compiled        # predict, torch.compile
  bert/fit/b32/keras2-tensorflow       # fit, Keras 2 (keras-nlp 0.8)
  sd/predict/b13/keras3-tensorflow     # predict, keras-cv SD denoising step
  mistral/fit/b8/keras3-jax            # fit, LoRA on JAX
  mistral/generate/b1/keras3-torch     # generate, Keras 3 on torch
)
UNSUPPORTED=gemma/fit/b8/keras2-tensorflow

only=""
for k in "${CELLS[@]}" "$UNSUPPORTED"; do only="$only${only:+,}key=$k"; done
# Cells side by side, each on a core of its own (--cpus-per-cell 1): these
# checks read statuses and facts, not times.
"$BENCHGEN" run "$SPEC" --only "$only" --cpus-per-cell 1 --out "$RUN" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
check "run exits 0 (every cell ok or unsupported)" test "$rc" -eq 0
"$BENCHGEN" show "$RUN" --json >"$TMP/run.json"
check "show --json exits 0" test $? -eq 0
J=$TMP/run.json
check "seven cells recorded" test "$(jget "$J" 'len(d["cells"])')" = 7

for k in "${CELLS[@]}"; do
  got=$(cell "$J" "$k" status)
  if [ "$got" = ok ]; then ok "$k ends ok"; else
    not_ok "$k ends ok (got $got: $(cell "$J" "$k" detail | tail -c 400))"; fi
  fact() { jget "$J" "[c for c in d['cells'] if c['key']=='$k'][0]['facts'].get('$1')"; }
  check "$k records a parameter count" test "$(fact parameters)" -gt 0 2>/dev/null
  check "$k records synchronisation" test "$(fact synchronisation)" != None
  check "$k records TF32 state" test "$(fact tf32.matmul)" != None
  check "$k records whether compilation took effect" test "$(fact compile.took_effect)" != None
  check "$k records its resident memory after setup and the first step" \
    test "$(fact memory.rss_after_setup)" -gt 0 -a "$(fact memory.rss_after_first_step)" -gt 0 2>/dev/null
  check "$k records its peak resident memory, at least that after setup" \
    test "$(fact memory.rss_peak)" -ge "$(fact memory.rss_after_setup)" 2>/dev/null
  check "$k has $STEPS timed samples" \
    test "$(jget "$J" "[c for c in d['cells'] if c['key']=='$k'][0]['samples']['timed']")" = $STEPS
done

got=$(cell "$J" "$UNSUPPORTED" status)
if [ "$got" = unsupported ]; then ok "$UNSUPPORTED ends unsupported"; else
  not_ok "$UNSUPPORTED ends unsupported (got $got)"; fi

fact_of() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]['facts'].get('$2')"; }
check "torch.compile really compiled (dynamo graphs > 0)" \
  test "$(fact_of sam/predict/b4/torch-compiled compile.unique_graphs)" -gt 0 2>/dev/null
check "cells run the corrected method by default" test "$(fact_of sam/predict/b4/torch-compiled method)" = corrected
check "corrected compiled scope recorded" \
  test "$(fact_of sam/predict/b4/torch-compiled method.compile_scope)" = "the forward pass"
check "torch-compiled ran 2 warm-up steps" \
  test "$(jget "$J" "[c for c in d['cells'] if c['key']=='sam/predict/b4/torch-compiled'][0]['samples']['warmup']")" = 2
check "XLA on keras3-jax" test "$(fact_of mistral/fit/b8/keras3-jax jit_compile)" = True
check "no XLA on keras3-torch (as published)" test "$(fact_of mistral/generate/b1/keras3-torch jit_compile)" = False
check "LLM rows run in bfloat16" test "$(fact_of mistral/fit/b8/keras3-jax dtype_policy)" = bfloat16
check "generate makes exactly 50 tokens (torch)" \
  test "$(fact_of gemma/generate/b1/torch-eager generate.output_shape)" = "[1, 50]"
check "generate makes exactly 50 tokens (keras)" \
  test "$(fact_of mistral/generate/b1/keras3-torch generate.output_shape)" = "[1, 50]"
# the autotuning state (runners/workloads/autotune.py), values on a CPU too
check "autotune facts: cudnn.benchmark on every torch cell, inductor.max_autotune when compiled" \
  test "$(fact_of gemma/generate/b1/torch-eager cudnn.benchmark) $(fact_of sam/predict/b4/torch-compiled cudnn.benchmark) $(fact_of sam/predict/b4/torch-compiled inductor.max_autotune) $(fact_of mistral/generate/b1/keras3-torch cudnn.benchmark)" = "False False False False"
check "autotune facts: xla.autotune_level on JAX and TensorFlow, tf.cudnn_autotune on TensorFlow" \
  test "$(fact_of mistral/fit/b8/keras3-jax xla.autotune_level) $(fact_of sd/predict/b13/keras3-tensorflow xla.autotune_level) $(fact_of bert/fit/b32/keras2-tensorflow tf.cudnn_autotune)" = "default default on (default)"
check "every process of a plain run records a cold compile cache" \
  test "$(jget "$J" "sorted(set(c['facts'].get('compile.cache') for c in d['cells'] if c['status'] == 'ok'))")" = "['cold']"
check "LoRA leaves only a few trainable parameters" test "$(python3 -c "
import json; d=json.load(open('$J')); f=[c for c in d['cells'] if c['key']=='mistral/fit/b8/keras3-jax'][0]['facts']
print(int(int(f['parameters.trainable']) < int(f['parameters']) / 10))")" = 1
finish
