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
