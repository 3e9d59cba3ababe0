#!/usr/bin/env bash
# The two methods (docs/METHOD.md) on tiny cells, checked from the facts each
# cell records: `published` does what haifeng-jin/keras-benchmarks v0.0.5 did
# (XLA off for Keras 2 SD fit and SAM predict, torch.compile not applied to
# the forward of the compiled generate, the HF Trainer for native BERT, 45
# new tokens, PNDM, two UNet calls per Keras SD step, 2 warm-up steps for
# native PyTorch, LoRA adapters in the model's dtype) and `corrected` does
# what it does today. Every `method.*` fact must equal choices() in
# runners/workloads/method.py, which also generates docs/METHOD.md's table
# (checked here too). Needs the torch, keras3 and keras2 environments
# (tests/run.sh builds them); a missing one makes its cells `skipped`, which
# fails the checks.
set -u
. "$(dirname "$0")/lib.sh"

check "docs/METHOD.md's table is generated from method.py" python3 "$ROOT/scripts/method-table.py" --check "$ROOT/docs/METHOD.md"

# Generate's stop facts (torch and Keras alike) come from the output tokens:
# decoding ends once every sequence has made a new EOS, else at the limit.
check "generate_stop(): new tokens and the EOS stop from the output tokens" python3 - "$ROOT" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/runners")
from workloads.method import generate_stop as g
P = [5, 6, 7]  # a 3-token prompt, then the new tokens
cases = [
    # every sequence made an EOS (2) by the 2nd/3rd new token: 3 steps ran
    (g([P + [9, 2, 0, 0], P + [9, 9, 2, 0]], 3, 4, 2), (3, 4, 2, True)),
    # one sequence never did: the limit
    (g([P + [9, 2, 2, 2], P + [9, 9, 9, 9]], 3, 4, 2), (4, 4, 1, False)),
    # an EOS as the last allowed token is not an early stop
    (g([P + [9, 9, 9, 2]], 3, 4, 2), (4, 4, 1, False)),
    # an EOS inside the prompt does not count
    (g([[2, 6, 7, 9, 9]], 3, 2, 2), (2, 2, 0, False)),
    # no end token (corrected): the limit, whatever the tokens
    (g([P + [2, 2]], 3, 2, None), (2, 2, 0, False)),
    # torch's output ends where decoding stopped (shorter than the limit)
    (g([P + [9, 2]], 3, 45, 2), (2, 45, 1, True)),
]
keys = ("generate.new_tokens", "generate.max_new_tokens", "generate.eos_sequences", "generate.stopped_at_eos")
bad = [(got, want) for got, want in cases if tuple(got[k] for k in keys) != want]
print(bad, file=sys.stderr) if bad else None
sys.exit(1 if bad else 0)
PY

cat >"$TMP/spec.yaml" <<YAML
name: methods
size: tiny
steps: 2
seed: 0
timeout: 900
method: published
backends: [torch-eager, torch-compiled, keras2-tensorflow, keras3-jax]
rows:
  - {model: bert, task: fit, batch: 2, backends: [torch-eager]}
  - {model: bert, task: fit, batch: 3, backends: [torch-eager], method: corrected}
  - {model: gemma, task: generate, batch: 1, precision: bfloat16, backends: [torch-compiled]}
  - {model: mistral, task: fit, batch: 2, precision: bfloat16, backends: [torch-eager]}
  - {model: sd, task: predict, batch: 1, backends: [torch-eager, keras3-jax]}
  - {model: sd, task: predict, batch: 2, backends: [keras3-jax], method: corrected}
  - {model: sd, task: fit, batch: 1, backends: [keras2-tensorflow]}
  - {model: sd, task: fit, batch: 2, backends: [keras2-tensorflow], method: corrected}
  - {model: sam, task: predict, batch: 1, backends: [keras2-tensorflow]}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --dry-run >"$TMP/dry" 2>&1
check "dry run shows each cell's environment and method" \
  grep -q "bert/fit/b2/torch-eager .*warmup=2 env=torch method=published" "$TMP/dry"
check "dry run: a row's method overrides the spec's" \
  grep -q "bert/fit/b3/torch-eager .*warmup=1 env=torch method=corrected" "$TMP/dry"

# Two cells at a time, each on a core of its own: these checks read facts, not times.
"$BENCHGEN" run "$TMP/spec.yaml" --cpus-per-cell 1 --out "$TMP/run" >"$TMP/run.out" 2>&1
check "run exits 0" test $? -eq 0
"$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json"
J=$TMP/run.json
f() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]['facts'].get('$2')"; }
warm() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]['samples']['warmup']"; }
for k in $(jget "$J" "' '.join(c['key'] for c in d['cells'])"); do
  got=$(cell "$J" "$k" status)
  if [ "$got" = ok ]; then ok "$k ends ok"; else
    not_ok "$k ends ok (got $got: $(cell "$J" "$k" detail | tail -c 600))"; fi
done

# Every cell records its method and exactly method.py's choices for it.
check "every method.* fact equals choices() (and the method fact is the cell's)" python3 - "$J" "$ROOT" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2] + "/runners")
from workloads import method
d = json.load(open(sys.argv[1]))
bad = 0
for c in d["cells"]:
    f = c["facts"]
    want = {f"method.{k}": str(v) for k, (v, _) in method.choices(c["model"], c["task"], c["backend"], f.get("method")).items()}
    got = {k: str(v) for k, v in f.items() if k.startswith("method.")}
    if f.get("method") not in ("published", "corrected") or want != got:
        print(c["key"], f.get("method"), sorted(set(want.items()) ^ set(got.items())), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY
check "the published cells record method=published" test "$(f bert/fit/b2/torch-eager method)" = published
check "the row override records method=corrected" test "$(f bert/fit/b3/torch-eager method)" = corrected

# Native BERT: the Trainer under published, a bare loop under corrected.
check "published BERT fit: a HF Trainer drove the step" test "$(f bert/fit/b2/torch-eager trainer)" = Trainer
check "corrected BERT fit: no Trainer" test "$(f bert/fit/b3/torch-eager trainer)" = None
# Warm-up: 2 for native PyTorch under published, 1 under corrected.
check "published native eager warms up 2 steps" test "$(warm bert/fit/b2/torch-eager)" = 2
check "corrected native eager warms up 1 step" test "$(warm bert/fit/b3/torch-eager)" = 1
check "published Keras warms up 1 step" test "$(warm sd/fit/b1/keras2-tensorflow)" = 1

# Compiled generate: torch.compile(model) then model.generate compiles nothing that runs.
K=gemma/generate/b1/torch-compiled
check "published compiled generate: no graph compiled for the forward" test "$(f $K compile.unique_graphs)" = 0
check "published compiled generate: compile did not take effect" test "$(f $K compile.took_effect)" = False
check "published generate: 45 new tokens (6-token prompt), or fewer only at EOS" python3 -c "
import sys; shape=$(f $K generate.output_shape); eos='$(f $K generate.stopped_at_eos)'
sys.exit(0 if shape == [1, 51] or (eos == 'True' and shape[1] < 51) else 1)"

# LLM fit: the Trainer, peft's default alpha, adapters in the model's dtype.
K=mistral/fit/b2/torch-eager
check "published LLM fit: Trainer" test "$(f $K trainer)" = Trainer
check "published LoRA: peft's default alpha 8" test "$(f $K lora.alpha)" = 8
check "published LoRA: adapters in the model's dtype (bfloat16)" test "$(f $K lora.adapter_dtype)" = bfloat16

# SD predict: PNDM for native PyTorch; two UNet calls of the batch for Keras.
check "published native SD predict runs PNDM" test "$(f sd/predict/b1/torch-eager sd.scheduler)" = PNDMScheduler
check "published Keras SD predict: two UNet calls per step" test "$(f sd/predict/b1/keras3-jax sd.unet_calls_per_step)" = 2.0
check "corrected Keras SD predict: one UNet call per step" test "$(f sd/predict/b2/keras3-jax sd.unet_calls_per_step)" = 1.0
check "inputs byte-identical across backends (published SD predict)" \
  test "$(cell "$J" sd/predict/b1/torch-eager input_sha256)" = "$(cell "$J" sd/predict/b1/keras3-jax input_sha256)"

# Keras 2: XLA off for SD fit and SAM predict under published, on under corrected.
check "published Keras 2 SD fit runs without XLA" test "$(f sd/fit/b1/keras2-tensorflow jit_compile)" = False
check "corrected Keras 2 SD fit runs with XLA" test "$(f sd/fit/b2/keras2-tensorflow jit_compile)" = True
check "published Keras 2 SAM predict runs without XLA" test "$(f sam/predict/b1/keras2-tensorflow jit_compile)" = False
check "published Keras 3 JAX keeps XLA" test "$(f sd/predict/b1/keras3-jax jit_compile)" = True
finish
