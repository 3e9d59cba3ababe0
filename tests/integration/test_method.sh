#!/usr/bin/env bash
# The two methods (docs/METHOD.md) on tiny cells, checked from the facts each
# cell records: `published` does what haifeng-jin/keras-benchmarks v0.0.5 did
# (XLA off for Keras 2 SD fit and SAM predict, kept for Keras 3 JAX,
# torch.compile not applied to the forward of the compiled generate, the HF
# Trainer for native BERT, 45 new tokens and the EOS stop, recorded for torch
# and Keras generate alike, PNDM, two UNet calls per Keras SD step, 2 warm-up
# steps for native PyTorch, peft's alpha and LoRA adapters in the model's
# dtype, no synchronisation, the Trainer's grad_norm.item() each fit step,
# compiled BERT predict's timed steps on the uncompiled model as only the
# first trainer.predict call compiled, native SD predict's 101 UNet
# calls and one host copy per 100 timed steps, the compiled SD predict's
# torch.compile of the diffusers pipeline with dynamo's counters for its
# timed steps, and Keras 3 predict's window, in run.db and the report) and
# `corrected` does what it does today. Every
# `method.*` fact must equal choices() in runners/workloads/method.py, which
# also generates docs/METHOD.md's table (checked here too).
#
# One run serves every check: `method: [published, corrected]` for the cells
# where the difference is the point, `published` alone for the others; one
# timed step; cells side by side, a core each. Keras 3 SD predict runs on
# the torch backend (eager: no XLA compile of the UNet); a tiny BERT predict
# on JAX checks that published keeps XLA, and a Keras Gemma generate that
# Keras records its stop as torch does. The same run's report must set both
# methods side by side: its Method section's numbers and report.json's
# `methods` are checked against run.db, its per-cell table against the
# recorded facts, and generate's tokens/s against the tokens the cells made.
#
# Needs the torch, keras3 and keras2 environments (tests/run.sh builds them);
# a missing one makes its cells `skipped`, which fails the checks.
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

# The published-size specs: each backend on the environment the original
# pinned, under the published method; the corrected one on today's.
"$BENCHGEN" run "$ROOT/data/matrix/keras3-2024.yaml" --dry-run >"$TMP/dry2024" 2>&1
check "keras3-2024.yaml: every cell published, on the 2024 environments" python3 - "$TMP/dry2024" <<'PY'
import re, sys
want = {"torch-eager": "torch-2024", "torch-compiled": "torch-2024", "keras2-tensorflow": "keras2",
        "keras3-tensorflow": "keras3-2024", "keras3-jax": "keras3-2024", "keras3-torch": "keras3-2024"}
rows = re.findall(r"^\s+\d+\s+\S+/(\S+)\s.* env=(\S+) method=(\S+)", open(sys.argv[1]).read(), re.M)
bad = [r for r in rows if want.get(r[0]) != r[1] or r[2] != "published"]
print(bad[:3], file=sys.stderr) if bad else None
sys.exit(1 if bad or len(rows) != 72 else 0)
PY
# keras3-2024 pins the TensorFlow the original pinned (2.15.0.post1,
# requirements/keras-tensorflow.txt) with keras 3.0.5 over its keras<2.16,
# so both locks install exactly their pins.
for lock in keras3-2024 cuda/keras3-2024-cu12; do
  check "data/envs/$lock.txt: TensorFlow 2.15.0.post1 and keras 3.0.5, installed with no-deps" \
    bash -c 'grep -qx "tensorflow==2.15.0.post1" "$1" && grep -qx "keras==3.0.5" "$1" && grep -qx "# install: no-deps" "$1"' _ "$ROOT/data/envs/$lock.txt"
done
"$BENCHGEN" run "$ROOT/data/matrix/keras3-2024-corrected.yaml" --dry-run >"$TMP/drycor" 2>&1
check "keras3-2024-corrected.yaml: every cell corrected, on today's environments" python3 - "$TMP/drycor" <<'PY'
import re, sys
rows = re.findall(r" env=(\S+) method=(\S+)", open(sys.argv[1]).read())
sys.exit(0 if len(rows) == 72 and all(e in ("torch", "keras2", "keras3") and m == "corrected" for e, m in rows) else 1)
PY
"$BENCHGEN" run "$ROOT/data/matrix/cpu-tiny-both.yaml" --dry-run >"$TMP/dryboth" 2>&1
check "cpu-tiny-both.yaml: each cell under both methods, adjacent" python3 - "$TMP/dryboth" <<'PY'
import re, sys
rows = re.findall(r"^\s+\d+\s+(\S+)@(\w+)\s.* method=(\S+)", open(sys.argv[1]).read(), re.M)
ok = len(rows) == 144 and all(m == k for _, k, m in rows)
ok = ok and all(rows[i][0] == rows[i + 1][0] and (rows[i][1], rows[i + 1][1]) == ("published", "corrected")
                for i in range(0, len(rows), 2))
sys.exit(0 if ok else 1)
PY

cat >"$TMP/spec.yaml" <<YAML
name: methods
size: tiny
steps: 1
seed: 0
timeout: 900
method: [published, corrected]
backends: [torch-eager, torch-compiled, keras2-tensorflow, keras3-jax, keras3-torch]
rows:
  - {model: sd, task: predict, batch: 1, backends: [torch-compiled, torch-eager, keras3-torch], method: published}
  - {model: sd, task: fit, batch: 1, backends: [keras2-tensorflow]}
  - {model: sam, task: predict, batch: 1, backends: [keras2-tensorflow], method: published}
  - {model: sd, task: predict, batch: 2, backends: [keras3-torch], method: corrected}
  - {model: mistral, task: fit, batch: 2, precision: bfloat16, backends: [torch-eager], method: published}
  - {model: bert, task: fit, batch: 2, backends: [torch-eager]}
  - {model: gemma, task: generate, batch: 1, precision: bfloat16, backends: [torch-compiled, keras3-torch], method: published}
  - {model: bert, task: predict, batch: 2, backends: [keras3-jax], method: published}
  - {model: bert, task: predict, batch: 4, backends: [torch-compiled], method: published}
  - {model: sd, task: predict, batch: 3, backends: [torch-eager], method: published, steps: 100}
YAML
"$BENCHGEN" run "$TMP/spec.yaml" --dry-run >"$TMP/dry" 2>&1
check "dry run shows each cell's environment and method" \
  grep -q "bert/fit/b2/torch-eager@published .*warmup=2 env=torch method=published" "$TMP/dry"
check "dry run: the other method of the same cell, adjacent" \
  bash -c 'grep -A1 "bert/fit/b2/torch-eager@published" "$1" | grep -q "bert/fit/b2/torch-eager@corrected .*warmup=1 env=torch method=corrected"' _ "$TMP/dry"
check "dry run: a row's method overrides the spec's (one cell, no @): published" \
  grep -q "gemma/generate/b1/torch-compiled .*env=torch method=published" "$TMP/dry"
check "dry run: a row's method overrides the spec's (one cell, no @): corrected" \
  grep -q "sd/predict/b2/keras3-torch .*warmup=1 env=keras3 method=corrected" "$TMP/dry"

# Cells side by side, each on a core of its own: these checks read facts, not
# times. The rows go longest first (Keras 2 SD fit, with and without XLA, is
# most of the run), so the cores finish together.
"$BENCHGEN" run "$TMP/spec.yaml" --cpus-per-cell 1 --out "$TMP/run" >"$TMP/run.out" 2>&1
check "run exits 0" test $? -eq 0
if ! "$BENCHGEN" show "$TMP/run" --json >"$TMP/run.json"; then
  not_ok "the run stored its cells ($(tail -c 400 "$TMP/run.out"))"
  finish
fi
J=$TMP/run.json
f() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]['facts'].get('$2')"; }
warm() { jget "$J" "[c for c in d['cells'] if c['key']=='$1'][0]['samples']['warmup']"; }
for k in $(jget "$J" "' '.join(c['key'] for c in d['cells'])"); do
  got=$(cell "$J" "$k" status)
  if [ "$got" = ok ]; then ok "$k ends ok"; else
    not_ok "$k ends ok (got $got: $(cell "$J" "$k" detail | tail -c 600))"; fi
done

# Every cell records its method (the one its key names) and exactly
# method.py's choices and sources for it.
check "every method.* and method_source.* fact equals choices() (and the method fact is the cell's)" python3 - "$J" "$ROOT" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2] + "/runners")
from workloads import method
d = json.load(open(sys.argv[1]))
bad = 0
for c in d["cells"]:
    f = c["facts"]
    ch = method.choices(c["model"], c["task"], c["backend"], f.get("method"))
    want = {f"method.{k}": str(v) for k, (v, _) in ch.items()}
    want.update({f"method_source.{k}": r.replace(method.V, "").strip() for k, (_, r) in ch.items() if r})
    got = {k: str(v) for k, v in f.items() if k.startswith(("method.", "method_source."))}
    key_method = (c["key"].split("@")[1] if "@" in c["key"]
                  else "corrected" if c["key"] == "sd/predict/b2/keras3-torch" else "published")
    if f.get("method") not in ("published", "corrected") or f.get("method") != key_method or want != got:
        print(c["key"], f.get("method"), sorted(set(want.items()) ^ set(got.items())), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY

P=bert/fit/b2/torch-eager@published C=bert/fit/b2/torch-eager@corrected
check "the published cells record method=published" test "$(f $P method) $(f gemma/generate/b1/torch-compiled method)" = "published published"
check "the corrected cells record method=corrected (the spec's list, a row's override)" \
  test "$(f $C method) $(f sd/predict/b2/keras3-torch method)" = "corrected corrected"

# Native BERT: the Trainer under published, a bare loop under corrected.
check "published BERT fit: a HF Trainer drove the step" test "$(f $P trainer)" = Trainer
check "corrected BERT fit: no Trainer" test "$(f $C trainer)" = None
# Warm-up: 2 for native PyTorch under published, 1 under corrected.
check "published native eager warms up 2 steps" test "$(warm $P)" = 2
check "corrected native eager warms up 1 step" test "$(warm $C)" = 1
check "published Keras warms up 1 step" test "$(warm sd/fit/b1/keras2-tensorflow@published)" = 1
# Synchronisation: none under published (on a GPU; a CPU step needs none either way).
check "published native: the method declares no synchronisation" \
  test "$(f $P method.sync)" = "none, as published: on a GPU the timer can stop before queued kernels finish"

# Trainer fit reads grad_norm.item() every step (transformers 4.38.2
# trainer.py:2003-2014), warm-up and timed steps alike: 2 + 1.
check "published Trainer fit: grad_norm.item() read every step" test "$(f $P trainer.grad_norm_item_reads)" = 3

# Native compiled BERT predict: only the first trainer.predict call (the
# first warm-up step) compiles; the timed steps run the uncompiled model,
# with TF32 as TrainingArguments(torch_compile=True) sets it (on where the
# GPU has TF32, off on a CPU).
K=bert/predict/b4/torch-compiled
check "published compiled BERT predict: the first step ran the compiled model, the timed ones the uncompiled" \
  test "$(f $K trainer.steps_compiled_model) $(f $K trainer.timed_steps_compiled_model) $(f $K trainer.timed_steps_model)" \
  = "1 0 uncompiled (self.model)"
check "published compiled BERT predict: nothing compiled in the timed steps" test "$(f $K compile.compiles_in_timed_steps)" = 0
check "published compiled BERT predict: TF32 as the Trainer sets it (on with a CUDA GPU, else off)" python3 - "$J" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [c for c in d["cells"] if c["key"] == "bert/predict/b4/torch-compiled"][0]["facts"]
gpu = f.get("device", "").startswith("cuda")
ok = str(f.get("trainer.tf32", "")).startswith("on" if gpu else "off") and f.get("tf32.matmul") == str(gpu)
sys.exit(0 if ok else f"{f.get('device')}: trainer.tf32 {f.get('trainer.tf32')!r}, tf32.matmul {f.get('tf32.matmul')}")
PY

# Native SD predict under published: PNDM's 101-step call makes 102 UNet
# calls, the 1-step call subtracted one, so 100 timed steps make 101, with
# one host copy (the call's image output).
K=sd/predict/b3/torch-eager
check "published native SD predict: 101 UNet calls over 100 timed steps (1.01 per step)" \
  test "$(f $K sd.unet_calls_timed) $(f $K sd.unet_calls_per_timed_step)" = "101 1.01"
check "published native SD predict: one host copy over the window" test "$(f $K sd.host_copies_timed)" = 1

# Native compiled SD predict: torch.compile wraps the diffusers pipeline
# object, as the original did; each timed step is one iteration of its own
# denoising loop. What dynamo did in the timed steps is measured: the UNet's
# forward ran compiled, and PNDM's step, which dynamo guards on the
# scheduler's state, recompiled as its counter moved on.
K=sd/predict/b1/torch-compiled
check "published compiled SD predict: torch.compile wrapped the StableDiffusionPipeline" \
  test "$(f $K compile.wrapped) $(f $K sd.pipeline)" = "StableDiffusionPipeline StableDiffusionPipeline"
check "published compiled SD predict: the timed steps ran the compiled UNet forward" \
  test "$(f $K compile.timed.took_effect)" = True
check "published compiled SD predict: graphs, breaks and recompiles of the timed steps recorded (dynamo's counters)" python3 - "$J" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [c for c in d["cells"] if c["key"] == "sd/predict/b1/torch-compiled"][0]["facts"]
n = {k: int(f[k]) for k in ("compile.timed.unique_graphs", "compile.timed.graph_breaks", "compile.timed.frames_ok",
                            "compile.recompiles_in_timed_steps", "compile.compiles_in_timed_steps",
                            "compile.unet_forward_versions", "compile.unique_graphs")}
# PNDM's step meets a new counter in the timed step: at least one recompile,
# each a new graph; never more graphs in the timed steps than in all
ok = (n["compile.recompiles_in_timed_steps"] >= 1 and
      n["compile.recompiles_in_timed_steps"] <= n["compile.compiles_in_timed_steps"] and
      1 <= n["compile.timed.unique_graphs"] <= n["compile.unique_graphs"] and n["compile.unet_forward_versions"] >= 1)
sys.exit(0 if ok else repr(n))
PY

# Keras 3 predict under published also times the original's window:
# model.predict over steps + 1 batches, one clock read as batch 1 begins
# and one as the last batch ends (markers), no wait between; Keras 2's
# callbacks waited every batch, so it has none.
check "published Keras 3 predict: a window over its timed steps' calls, after them" python3 - "$J" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["cells"] if c["key"] == "bert/predict/b2/keras3-jax"][0]
m, f = c["markers"], c["facts"]
ok = (int(f.get("window.calls", 0)) == c["steps"] and int(m["timed"]) < int(m["window.begin"]) < int(m["window.end"])
      and f.get("method.sync", "").startswith("per step, the result fetched as NumPy; beside the steps"))
others = [c["key"] for c in d["cells"] if "window.begin" in (c.get("markers") or {}) and c["key"] != "bert/predict/b2/keras3-jax"]
sys.exit(0 if ok and not others else repr((m, {k: v for k, v in f.items() if k.startswith("window")}, others)))
PY

# Compiled generate: torch.compile(model) then model.generate compiles nothing that runs.
K=gemma/generate/b1/torch-compiled
check "published compiled generate: no graph compiled for the forward" test "$(f $K compile.unique_graphs)" = 0
check "published compiled generate: compile did not take effect" test "$(f $K compile.took_effect)" = False
# Generate's stop, recorded from the output tokens for torch and Keras alike
# (method.generate_stop): new tokens made, at most the method's maximum,
# fewer only when every sequence stopped at EOS.
stop_ok() { # stop_ok KEY MAX_NEW PROMPT_PLUS_MAX
  python3 - "$J" "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["cells"] if c["key"] == sys.argv[2]][0]
f, limit, full = c["facts"], int(sys.argv[3]), int(sys.argv[4])
shape = json.loads(f["generate.output_shape"])
new, eos, seqs = int(f["generate.new_tokens"]), f["generate.stopped_at_eos"], int(f["generate.eos_sequences"])
ok = int(f["generate.max_new_tokens"]) == limit and 1 <= new <= limit and 0 <= seqs <= c["batch"]
ok = ok and (eos == "True") == (new < limit) and (eos == "False" or seqs == c["batch"])
# torch's output ends where decoding stopped; Keras' is padded to max_length
ok = ok and shape[0] == c["batch"] and shape[1] == (6 + new if c["backend"].startswith("torch") else full)
sys.exit(0 if ok else "%s: %r" % (c["key"], {k: v for k, v in f.items() if k.startswith("generate.")}))
PY
}
check "published torch generate: 45 new tokens (6-token prompt), or fewer only at EOS" stop_ok $K 45 51
check "published Keras generate: up to 44 new tokens (max_length 50), fewer only at EOS" \
  stop_ok gemma/generate/b1/keras3-torch 44 50

# LLM fit: the Trainer, peft's default alpha, adapters in the model's dtype.
K=mistral/fit/b2/torch-eager
check "published LLM fit: Trainer" test "$(f $K trainer)" = Trainer
check "published LoRA: peft's default alpha 8" test "$(f $K lora.alpha)" = 8
check "published LoRA: adapters in the model's dtype (bfloat16)" test "$(f $K lora.adapter_dtype)" = bfloat16

# SD predict: PNDM for native PyTorch; two UNet calls of the batch for Keras.
check "published native SD predict runs PNDM" test "$(f sd/predict/b1/torch-eager sd.scheduler)" = PNDMScheduler
check "published Keras SD predict: two UNet calls per step" test "$(f sd/predict/b1/keras3-torch sd.unet_calls_per_step)" = 2.0
check "corrected Keras SD predict: one UNet call per step" test "$(f sd/predict/b2/keras3-torch sd.unet_calls_per_step)" = 1.0
check "inputs byte-identical across backends (published SD predict)" python3 - "$J" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
s = [c["input_sha256"] for c in d["cells"] if c["key"].startswith("sd/predict/b1/")]
sys.exit(0 if len(s) == 3 and len(set(s)) == 1 and re.fullmatch(r"[0-9a-f]{64}", str(s[0])) else 1)
PY

# XLA: off for Keras 2 SD fit and SAM predict under published, on under
# corrected; Keras 3 JAX keeps it under published.
check "published Keras 2 SD fit runs without XLA" test "$(f sd/fit/b1/keras2-tensorflow@published jit_compile)" = False
check "corrected Keras 2 SD fit runs with XLA" test "$(f sd/fit/b1/keras2-tensorflow@corrected jit_compile)" = True
# Keras SD and SAM fit data: float64 batches under published, as the
# original's np.random.rand through an uncached tf.data; float32 corrected.
check "published Keras SD fit is fed float64 batches, corrected float32" \
  test "$(f sd/fit/b1/keras2-tensorflow@published inputs.fed_dtype) $(f sd/fit/b1/keras2-tensorflow@corrected inputs.fed_dtype)" = "float64 float32"
check "published Keras 2 SAM predict runs without XLA" test "$(f sam/predict/b1/keras2-tensorflow jit_compile)" = False
check "published Keras 3 JAX keeps XLA" test "$(f bert/predict/b2/keras3-jax jit_compile)" = True

# The report sets both methods side by side: numbers from run.db (in the
# document and in report.json), the per-cell table from the recorded facts;
# generate's tokens/s counts the tokens the cell made.
"$BENCHGEN" report "$TMP/run" --out "$TMP/report" --format md -q >"$TMP/report.out" 2>&1
check "report exits 0" test $? -eq 0
check "the Method section's tables (side by side, what differs, timed as a window) and report.json match run.db and the facts" \
  python3 - "$TMP/report/report.md" "$TMP/run/run.db" "$TMP/report/report.json" <<'PY'
import json, re, sqlite3, sys
md = open(sys.argv[1]).read()
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
rep = json.load(open(sys.argv[3]))
method = md[md.index("## Method"):]
method = method[:method.index("\n## ", 4)]

def table(after):
    """The body rows of the first table after the heading `after`."""
    lines = method[method.index(after):].split("\n")
    first = next(i for i, l in enumerate(lines) if l.startswith("|"))
    rows = []
    for l in lines[first:]:
        if not l.startswith("|"):
            break
        rows.append(l)
    out = []
    for l in rows[2:]:
        out.append([re.sub(r"\\(.)", r"\1", c.strip().strip("`")) for c in re.split(r"(?<!\\)\|", l.strip()[1:-1])])
    return out

def mean_ms(key):
    xs = [r[0] for r in db.execute("SELECT s.ns FROM samples s JOIN cells c ON c.id = s.cell_id "
                                   "WHERE c.key = ? AND s.phase = 'timed'", (key,))]
    return sum(xs) / len(xs) / 1e6

def num(s):
    return float(s.replace(",", "").rstrip("x"))

side = table("Published vs corrected, side by side")
want = {"bert/fit/b2/torch-eager", "sd/fit/b1/keras2-tensorflow"}
got = {r[0] for r in side}
bad = []
if got != want:
    bad.append(f"side-by-side cells {sorted(got)} != {sorted(want)}")
js = {m["cell"]: m for m in rep["methods"]}
if set(js) != want:
    bad.append(f"report.json methods {sorted(js)} != {sorted(want)}")
for r in side:
    pub, cor = mean_ms(r[0] + "@published"), mean_ms(r[0] + "@corrected")
    for shown, true in ((num(r[1]), pub), (num(r[2]), cor), (num(r[3]), pub / cor)):
        if abs(shown - true) > 0.006 * max(1.0, abs(true)):
            bad.append(f"{r[0]}: shows {shown}, run.db gives {true:.4f}")
    m = js.get(r[0], {})
    for shown, true in ((m.get("published", {}).get("mean_ms"), pub), (m.get("corrected", {}).get("mean_ms"), cor),
                        (m.get("ratio"), pub / cor)):
        if shown is None or abs(shown - true) > 1e-9 * true:
            bad.append(f"{r[0]}: report.json {shown}, run.db gives {true}")

facts = {}
for key, name, value in db.execute("SELECT c.key, f.name, f.value FROM facts f JOIN cells c ON c.id = f.cell_id"):
    facts.setdefault(key, {})[name] = value
diff = table("What differs per cell")
seen = set()
for cellname, fact, pv, cv, src in diff:
    p, c = facts[cellname + "@published"], facts[cellname + "@corrected"]
    seen.add((cellname, fact))
    if (pv, cv) != (p.get("method." + fact, "-"), c.get("method." + fact, "-")) or pv == cv:
        bad.append(f"{cellname} {fact}: table {pv!r} / {cv!r}")
    if src != p.get("method_source." + fact, ""):
        bad.append(f"{cellname} {fact}: source {src!r}")
for cellname in want:
    p, c = facts[cellname + "@published"], facts[cellname + "@corrected"]
    for name in set(p) | set(c):
        if name.startswith("method.") and p.get(name) != c.get(name) and (cellname, name[7:]) not in seen:
            bad.append(f"{cellname} {name}: differs but not in the table")

# tokens/s: batch x the new tokens the cell recorded making
for c in rep["cells"]:
    if c["task"] == "generate":
        want_ps = c["batch"] * int(facts[c["key"]]["generate.new_tokens"])
        if c["throughput"]["per_step"] != want_ps:
            bad.append(f"{c['key']}: throughput per_step {c['throughput']['per_step']} != {want_ps}")
# the cell timed as a window: its ms/step, run.db's markers over its calls
key = "bert/predict/b2/keras3-jax"
m = dict(db.execute("SELECT m.name, m.ns FROM markers m JOIN cells c ON c.id = m.cell_id WHERE c.key = ?", (key,)))
calls = int(facts[key].get("window.calls", 0))
want = (m["window.end"] - m["window.begin"]) / calls / 1e6 if calls and "window.end" in m else None
win = table("Timed as a window") if "### Timed as a window" in method else []
wjs = {c["key"]: c["window_ms_per_step"] for c in rep["cells"] if "window_ms_per_step" in c}
if want is None or [r[0] for r in win] != [key] or abs(num(win[0][2]) - want) > 0.006 * max(1, want):
    bad.append(f"timed as a window: {win} (run.db: {want})")
if want is None or set(wjs) != {key} or abs(wjs[key] - want) > 1e-9 * want:
    bad.append(f"report.json window_ms_per_step: {wjs} (run.db: {want})")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad or not diff else 0)
PY
check "the summary shows the first listed method (published)" \
  grep -q "tables and charts above show the published cells" "$TMP/report/report.md"
finish
