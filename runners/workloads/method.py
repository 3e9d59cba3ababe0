"""The method every framework family shares, in one place.

torch_models.py and keras_models.py build the same models from sizes.SIZES,
feed them the same inputs (inputs.py) and run the same step. What that step
is - which tasks a model has, the optimizer, the LoRA adapters, the Stable
Diffusion schedule and its denoising update - lives here, so the families
cannot drift apart. Nothing here imports a framework: the arithmetic helpers
take whatever array type the caller has (torch tensors, NumPy arrays).

The model x task table is checked against the C catalog (gen/plan/catalog.c)
by tests/unit/test_method_table.c.
"""

import math

# ---------------------------------------------------------------- the table

# Which tasks each built-in model has: the same as gen/plan/catalog.c.
MODEL_TASKS = {
    "bert": ("fit", "predict"),
    "gemma": ("fit", "generate"),
    "mistral": ("fit", "generate"),
    "sd": ("fit", "predict"),
    "sam": ("fit", "predict"),
}

# What one timed step is, per task (recorded as the `step` fact).
STEP = {
    "fit": "one optimizer step on one batch (forward, loss, backward, update)",
    "predict": "one forward pass on one batch (SD: one CFG denoising step)",
    "generate": "one generate call to the total length, greedy",
}


def unsupported_task(model, task, family):
    """The reason a built-in model/task pair does not exist, or None."""
    tasks = MODEL_TASKS.get(model)
    if tasks is None:
        return f"no {family} workload for model {model!r}"
    if task not in tasks:
        return f"{model} has no {task} task"
    return None


# ------------------------------------------------------------ optimization

LEARNING_RATE = 1e-3
# Keras AdamW's default weight decay, so both stacks run the same update.
ADAMW_WEIGHT_DECAY = 0.004

# LoRA on the query and value projections of every attention block (what
# keras-nlp's enable_lora() targets; peft spells them q_proj / v_proj).
LORA_RANK = 4
LORA_ALPHA = 4  # Keras' alpha is the rank
LORA_TORCH_TARGETS = ("q_proj", "v_proj")

# ------------------------------------------------------ Stable Diffusion


def ddim_schedule(cfg):
    """keras-cv's StableDiffusion schedule: scaled-linear betas over 1000
    train steps, `schedule_steps` evenly spaced timesteps from 981 down to 1.
    Returns (alphas_cumprod, timesteps, stride)."""
    betas = [(math.sqrt(0.00085) + i * (math.sqrt(0.012) - math.sqrt(0.00085)) / 999) ** 2 for i in range(1000)]
    alphas, acc = [], 1.0
    for b in betas:
        acc *= 1.0 - b
        alphas.append(acc)
    stride = 1000 // cfg["schedule_steps"]
    timesteps = list(range(1, 1000, stride))[::-1]
    return alphas, timesteps, stride


def guide(uncond, cond, guidance):
    """Classifier-free guidance: the noise estimate from the two halves."""
    return uncond + guidance * (cond - uncond)


class Denoiser:
    """The DDIM loop of SD predict, one step per call.

    eps_fn(latents, i) returns the guided noise estimate at timestep index i.
    Each call advances one timestep from the latents of the previous call
    and wraps around to `start` after the last timestep, so any number of
    warm-up and timed steps walks the same schedule on every backend.
    """

    def __init__(self, cfg, start, eps_fn):
        self.alphas, self.timesteps, self.stride = ddim_schedule(cfg)
        self.start = start
        self.eps_fn = eps_fn
        self.i = 0
        self.latents = start

    def step(self):
        i = self.i
        lat = self.start if i == 0 else self.latents
        t = self.timesteps[i]
        a_t = self.alphas[t]
        a_prev = self.alphas[t - self.stride] if t - self.stride >= 0 else 1.0
        eps = self.eps_fn(lat, i)
        x0 = (lat - math.sqrt(1 - a_t) * eps) / math.sqrt(a_t)
        self.latents = math.sqrt(a_prev) * x0 + math.sqrt(1 - a_prev) * eps
        self.i = (i + 1) % len(self.timesteps)
        return self.latents


def timestep_embedding(np, t, dim, batch):
    """keras-cv StableDiffusion._get_timestep_embedding, in NumPy."""
    half = dim // 2
    freqs = np.exp(-math.log(10000) * np.arange(half, dtype="float32") / half)
    args = float(t) * freqs
    emb = np.concatenate([np.cos(args), np.sin(args)])[None].astype("float32")
    return np.repeat(emb, batch, axis=0)


# ------------------------------------------------ published vs corrected
#
# A cell runs one of two methods (the spec's `method` key, docs/METHOD.md):
#   published  what haifeng-jin/keras-benchmarks v0.0.5 did, wherever it
#              changes the work or the timing of a step;
#   corrected  benchgen's method: synchronised, really compiled, the same
#              work on every backend.
# choices() says, for one cell, what each method does; the workloads act on
# it and record it as `method.*` facts, docs/METHOD.md is generated from it
# (scripts/method-table.py) and tests/integration/test_method.sh checks that
# real cells record exactly these values.

PUBLISHED = "published"
CORRECTED = "corrected"

# The original's generate: prompts of NUM_WORDS words, max_new_tokens =
# MAX_LENGTH - NUM_WORDS (benchmark/__init__.py:8,17,22;
# benchmark/torch_utils.py:58); Keras' max_length counts the prompt.
PUBLISHED_MAX_LENGTH = 50
PUBLISHED_NUM_WORDS = 5
PEFT_DEFAULT_ALPHA = 8  # LoraConfig(r=4) with peft's default lora_alpha

V = "keras-benchmarks@v0.0.5 "  # prefix of every reference


def generate_stop(rows, prompt_len, limit, eos):
    """What one generate call did, from its output token ids.

    rows: the output, one sequence of token ids per batch row (prompt
    first); prompt_len: the prompt's length; limit: the most new tokens the
    call could make; eos: the end token it stopped on, or None. Decoding
    stops once every sequence has made a new EOS (HF generate, keras-nlp's
    and keras-hub's samplers alike), so the decoding steps that ran are the
    latest first EOS, or the limit. Returns the `generate.*` facts:
    new_tokens (steps run), max_new_tokens, eos_sequences (sequences that
    made an EOS) and stopped_at_eos (every sequence did, before the limit).
    """
    firsts = []
    for row in rows:
        new = [int(t) for t in row[prompt_len:prompt_len + limit]]
        firsts.append(new.index(eos) + 1 if eos is not None and eos in new else None)
    done = [f for f in firsts if f is not None]
    stopped = bool(rows) and len(done) == len(firsts) and max(done) < limit
    return {"generate.new_tokens": max(done) if stopped else limit,
            "generate.max_new_tokens": limit,
            "generate.eos_sequences": len(done),
            "generate.stopped_at_eos": stopped}


def of(cell):
    """The cell's method; plans stored before the key existed ran corrected."""
    return getattr(cell, "method", None) or CORRECTED


def _family(backend):
    if backend.startswith("torch-"):
        return "torch"
    if backend.startswith("keras"):
        return "keras"
    return "other"


# Keras 3 predict (BERT, SAM): the original timed one window of model.predict
# with a callback (clock reads as batch 1 begins and batch 100 ends, over
# 100), and Keras 3.0.5 hands the callbacks each batch's outputs unconverted
# (backend/{tensorflow,jax,torch}/trainer.py predict), so nothing in the
# window waits for the device: the one wait is the outputs fetched after it.
# Keras 2 (tf.keras 2.15) converts the logs for such a callback: a wait every
# batch, as benchgen's per-step samples.
WINDOW_SYNC = ("per step, the result fetched as NumPy; beside the steps, the original's window: model.predict "
               "over steps + 1 batches, the clock read as batch 1 begins and as the last batch ends with no "
               "wait between, the outputs fetched after it (markers window.begin and window.end; ms/step = "
               "the window / steps)")
WINDOW_SOURCE = ("benchmark/keras_utils.py:27-36,45-48; keras 3.0.5 backend/tensorflow/trainer.py:507-522, "
                 "backend/jax/trainer.py:635-665, backend/torch/trainer.py:421-431")


def timed_as_window(model, task, backend, method):
    """Whether the cell also times the original's window (WINDOW_SYNC)."""
    return (method == PUBLISHED and task == "predict" and model in ("bert", "sam")
            and backend in ("keras3-tensorflow", "keras3-jax", "keras3-torch"))


def choices(model, task, backend, method):
    """{name: (value, reference)} for one built-in cell under one method.

    The value is what the workload does (and records as fact
    `method.<name>`); the reference points at the v0.0.5 source the
    published value follows ("" for corrected values and where the two
    agree). Pure: no framework is imported, so docs and tests can call it.
    """
    pub = method == PUBLISHED
    fam = _family(backend)
    out = {}
    if fam == "torch":
        compiled = backend == "torch-compiled"
        trainer = model == "bert" or (model in ("gemma", "mistral") and task == "fit")
        if trainer:
            ref = {("bert", "fit"): "benchmark/bert/torch/fit.py:21-40; transformers 4.38.2 trainer.py:2003-2014",
                   ("bert", "predict"): "benchmark/bert/torch/predict.py:23-48"}.get(
                (model, task), f"benchmark/{model}/torch/fit.py:25-44; transformers 4.38.2 trainer.py:2003-2014")
            out["driver"] = (("HF Trainer: collated batch, training_step, grad clipping, grad_norm.item() "
                              "(a host sync), LR schedule"
                              if task == "fit" else "HF Trainer: collated batch, prediction_step")
                             if pub else "bare loop", V + ref if pub else "")
        else:
            out["driver"] = ("bare loop", "")
        if not compiled:
            scope, ref = "none (eager)", ""
        elif pub:
            scope, ref = {
                ("bert", "fit"): ("TrainingArguments(torch_compile=True): the model, through the Trainer",
                                  "benchmark/bert/torch/fit.py:26-29"),
                ("bert", "predict"): ("TrainingArguments(torch_compile=True): only the first trainer.predict "
                                      "call compiles the model; later calls, the timed one included, run the "
                                      "uncompiled model, with TF32 on",
                                      "benchmark/bert/torch/predict.py:23-36; transformers 4.38.2 "
                                      "trainer.py:3346-3356, training_args.py:1575-1583"),
                ("gemma", "fit"): ("TrainingArguments(torch_compile=True): the model, through the Trainer",
                                   "benchmark/gemma/torch/fit.py:29-32"),
                ("mistral", "fit"): ("TrainingArguments(torch_compile=True): the model, through the Trainer",
                                     "benchmark/mistral/torch/fit.py:29-32"),
                ("gemma", "generate"): ("torch.compile(model), then model.generate: the forward that runs "
                                        "is the uncompiled one", "benchmark/gemma/torch/predict.py:14-15"),
                ("mistral", "generate"): ("torch.compile(model), then model.generate: the forward that runs "
                                          "is the uncompiled one", "benchmark/mistral/torch/predict.py:14-15"),
                ("sd", "fit"): ("the whole train function: zero_grad, forward, loss, backward, optimizer step",
                                "benchmark/stable_diffusion/torch/fit.py:13-21"),
                ("sd", "predict"): ("torch.compile(pipeline): the diffusers StableDiffusionPipeline object, "
                                    "as the original; dynamo skips its __call__ frame and compiles the frames "
                                    "it calls (UNet2DConditionModel.forward, PNDMScheduler.step), recompiling "
                                    "as they meet new state, in the timed steps too (compile.timed.*)",
                                    "benchmark/stable_diffusion/torch/predict.py:37-41"),
                ("sam", "fit"): ("the whole train function: zero_grad, forward, loss, backward, optimizer step",
                                 "benchmark/sam/torch/fit.py:39-47"),
                ("sam", "predict"): ("the inference function (encoder, prompt encoder, mask decoder)",
                                     "benchmark/sam/torch/predict.py:56-60"),
            }[(model, task)]
            ref = V + ref
        else:
            scope = {"fit": "forward and loss; the optimizer step stays eager",
                     "predict": "the forward pass",
                     "generate": "model.forward (every decoding step)"}[task]
            if model == "sd" and task == "predict":
                scope = "UNet and guidance of the denoising step"
            ref = ""
        out["compile_scope"] = (scope, ref)
        out["sync"] = (("none, as published: on a GPU the timer can stop before queued kernels finish",
                        V + "benchmark/torch_utils.py:67-78") if pub
                       else ("torch.cuda.synchronize() at the end of every step", ""))
        if model in ("gemma", "mistral") and task == "fit":
            out["lora_alpha"] = ((PEFT_DEFAULT_ALPHA, V + f"benchmark/{model}/torch/fit.py:22") if pub
                                 else (LORA_ALPHA, ""))
            out["lora_adapter_dtype"] = (("the model's (bfloat16), as peft 0.9 made them",
                                          V + "requirements/torch.txt (peft==0.9.0)") if pub
                                         else ("peft's default (float32 adapters on a bfloat16 model since "
                                               "peft 0.12)", ""))
    if fam == "keras":
        keras2 = backend == "keras2-tensorflow"
        jit = backend != "keras3-torch"
        ref = ""
        if pub and keras2 and model == "sd" and task == "fit":
            jit, ref = False, V + "benchmark/stable_diffusion/keras/fit.py:31 (compile without jit_compile)"
        elif pub and keras2 and model == "sam" and task == "predict":
            jit, ref = False, V + "benchmark/sam/keras/predict.py:30-33 (predict on the uncompiled model)"
        elif pub:
            ref = V + "benchmark/keras_utils.py:73-79"
        out["xla"] = ("on (jit_compile=True)" if jit else "off", ref)
        out["sync"] = ((WINDOW_SYNC, V + WINDOW_SOURCE) if timed_as_window(model, task, backend, method)
                       else ("step result fetched as NumPy", ""))
        if model in ("sd", "sam") and task == "fit":
            src = {"sd": "benchmark/stable_diffusion/keras/fit.py:10-22",
                   "sam": "benchmark/sam/keras/fit.py:10-22"}[model]
            out["fit_inputs"] = (("float64 arrays, as the original's np.random.rand batches through an uncached "
                                  "tf.data: converted and cast to the model's dtype every step", V + src) if pub
                                 else ("float32 arrays", ""))
    if task == "generate":
        if pub and fam == "torch":
            out["new_tokens"] = (PUBLISHED_MAX_LENGTH - PUBLISHED_NUM_WORDS, V + "benchmark/torch_utils.py:56-60")
        elif pub:
            out["new_tokens"] = ("up to a total length of 50", V + "benchmark/keras_utils.py:51-55")
        else:
            out["new_tokens"] = ("to a total length of 50", "")
        out["stop_at_eos"] = (("yes", V + ("benchmark/torch_utils.py:56-60" if fam == "torch"
                                           else "benchmark/keras_utils.py:55")) if pub else ("no", ""))
    if model == "sd" and task == "predict":
        if fam == "torch":
            out["scheduler"] = (("PNDM (diffusers' default for SD v1.4)",
                                 V + "benchmark/stable_diffusion/torch/predict.py:19-24") if pub
                                else ("DDIM, keras-cv's schedule", ""))
        else:
            out["scheduler"] = ("DDIM, keras-cv's schedule", "")
        if fam == "keras" and pub:
            out["unet_calls"] = ("two of the batch (unconditional, then conditional)",
                                 V + "benchmark/stable_diffusion/keras/predict.py:24-28")
        elif pub:
            out["unet_calls"] = ("one iteration of the pipeline's denoising loop (one UNet call of twice the "
                                 "batch) per step: 101 per 100 timed steps (PNDM's 101-step call makes 102, less "
                                 "the 1-step call's one), each 100-step call's output copied to the host at its "
                                 "end", V + "benchmark/stable_diffusion/torch/predict.py:14-33")
        else:
            out["unet_calls"] = ("one of twice the batch (unconditional and conditional together)", "")
    if fam == "torch":
        # where each native script ran its two untimed calls
        warm = {("bert", "fit"): "benchmark/bert/torch/fit.py:25; benchmark/torch_utils.py:26-31",
                ("bert", "predict"): "benchmark/bert/torch/predict.py:35-36",
                ("sd", "fit"): "benchmark/stable_diffusion/torch/fit.py:23-24",
                ("sd", "predict"): "benchmark/stable_diffusion/torch/predict.py:14-16",
                ("sam", "fit"): "benchmark/sam/torch/fit.py:49-50",
                ("sam", "predict"): "benchmark/sam/torch/predict.py:62-64"}.get(
            (model, task), f"benchmark/{model}/torch/fit.py:33; benchmark/torch_utils.py:26-31" if task == "fit"
            else "benchmark/torch_utils.py:63-65")
        out["warmup"] = ((2, V + warm) if pub else (2 if backend == "torch-compiled" else 1, ""))
    elif fam == "keras":
        out["warmup"] = (1, V + "benchmark/keras_utils.py:39-48" if pub else "")
    return out


def where(model, task, backend, name):
    """Where benchgen reproduces one published choice: "path:symbol" (a
    function, Class.method or C function), which scripts/method-table.py
    turns into the file:line of docs/METHOD.md's table."""
    fam = _family(backend)
    t = "runners/workloads/torch_models.py:"
    k = "runners/workloads/keras_models.py:"
    trainer = model == "bert" or (model in ("gemma", "mistral") and task == "fit")
    if name == "warmup":
        return "gen/plan/matrix.c:resolve_warmup"
    if fam == "torch":
        if name == "driver":
            return t + ("_trainer_fit" if task == "fit" else "_trainer_predict")
        if name == "compile_scope":
            if trainer:
                return t + ("_trainer_predict" if task == "predict" else "_trainer")
            return t + {"generate": "_setup_llm_generate", "fit": "_setup_encoder_fit"}.get(
                task, "_sd_pipeline" if model == "sd" else "_setup_sam")
        if name == "sync":
            return t + "_Env.sync"
        if name in ("lora_alpha", "lora_adapter_dtype"):
            return t + "_setup_llm_fit"
        if name in ("new_tokens", "stop_at_eos"):
            return t + "_setup_llm_generate"
        if name in ("scheduler", "unet_calls"):
            return t + "_sd_pipeline"
    if fam == "keras":
        if name == "xla":
            return k + {("sd", "fit"): "_setup_encoder_fit", ("sam", "predict"): "_setup_sam"}.get(
                (model, task), "_Env.__init__")
        if name == "sync":
            return k + "window"
        if name == "fit_inputs":
            return k + "_setup_encoder_fit"
        if name in ("new_tokens", "stop_at_eos"):
            return k + "_setup_llm_generate"
        if name == "unet_calls":
            return k + "_setup_sd"
    return ""


def facts(cell):
    """The `method.*` facts of one cell (its values), and a
    `method_source.<name>` fact for each choice that follows the original's
    source (its v0.0.5 file:line): the report's per-cell table of what
    differs between the methods is built from these."""
    out = {}
    for k, (v, ref) in choices(cell.model, cell.task, cell.backend, of(cell)).items():
        out[f"method.{k}"] = v
        if ref:
            out[f"method_source.{k}"] = ref.replace(V, "").strip()
    return out
