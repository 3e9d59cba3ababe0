"""Native PyTorch workloads: torch-eager and torch-compiled.

Models are built from configs with random weights (nothing is downloaded):
BERT, Gemma and Mistral with HuggingFace transformers (LoRA through peft),
Stable Diffusion v1 components with diffusers (+ transformers' CLIP text
encoder), SAM with Meta's segment-anything. Sizes come from sizes.SIZES.

The method, identical on every backend (see keras_models.py for the Keras
side):
  fit       one optimizer step on one batch. BERT: 2-class classifier,
            AdamW. Gemma/Mistral: LoRA rank 4 (alpha 4) on the query and
            value projections, next-token cross-entropy, AdamW. SD: the VAE
            image encoder, MSE to random 8-channel targets, Adam. SAM: the
            image encoder, MSE to random embeddings, Adam.
  predict   one forward pass. SD: one classifier-free-guidance denoising
            step (UNet on 2B latents + DDIM update) at the cell's batch; text
            encoding happens in setup, so the fixed costs the benchmark
            cancelled by subtraction are outside the timed step.
  generate  one generate() call from the fixed prompt to `total` tokens,
            greedy, with EOS disabled so every backend makes the same number
            of tokens.
torch-compiled wraps the step's forward (and loss) in
torch.compile(mode="reduce-overhead"); the optimizer step stays eager.
Every step ends with torch.cuda.synchronize() on CUDA.
"""

import os

import _benchgen

from workloads import autotune, memory, method, sizes

_state = {}


def supported(cell):
    why = method.unsupported_task(cell.model, cell.task, "PyTorch")
    if why is None and cell.model == "sam":
        import importlib.util
        if importlib.util.find_spec("torchvision") is None:
            # segment_anything's __init__ imports it; a node without it (the
            # kit's torch nodes may lack it) cannot build SAM at all
            return ("segment_anything needs torchvision, which this environment lacks "
                    "(install torchvision for SAM cells)")
    return why


def _compiled(cell):
    if cell.backend == "torch-compiled":
        return True
    if cell.backend == "torch-eager":
        return False
    return os.environ.get("BENCHGEN_TORCH_COMPILE") == "1"


def _utf8_locale_for_dynamo():
    """Lets an older dynamo read UTF-8 sources; returns what it changed, or None.

    torch 2.2's dynamo reads Python sources with a plain open(), in the locale
    encoding (fixed later with tokenize.open). The embedded worker runs in the
    C locale, whose encoding is ASCII, and transformers' sources hold UTF-8
    (emoji), so compiling any frame that inlines them fails with "'ascii'
    codec can't decode" (pytorch#124960). Switching LC_CTYPE to C.UTF-8 gives
    the worker what a `python` started under a UTF-8 locale has. Only done
    where that dynamo is installed, so today's stack runs exactly as before.
    """
    import codecs
    import inspect
    import locale
    if codecs.lookup(locale.getpreferredencoding(False)).name == "utf-8":
        return None
    try:
        from torch._dynamo import funcname_cache
        if "tokenize.open" in inspect.getsource(funcname_cache._add_file):
            return None
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        return None
    return "LC_CTYPE=C.UTF-8 (this torch's dynamo reads sources in the locale encoding)"


def _dtype(torch, precision):
    """(parameter dtype, autocast dtype or None) for the spec's precision."""
    if precision == "bfloat16":
        return torch.bfloat16, None
    if precision == "float16":
        return torch.float16, None
    if precision == "mixed_bfloat16":
        return torch.float32, torch.bfloat16
    return torch.float32, None


def _nchw(torch, arr, device, dtype):
    return torch.from_numpy(arr.copy()).to(device).permute(0, 3, 1, 2).contiguous().to(dtype)


def _ids(torch, arr, device):
    return torch.from_numpy(arr.astype("int64")).to(device)


def _build_bert(transformers, cfg):
    conf = transformers.BertConfig(
        vocab_size=cfg["vocab"], hidden_size=cfg["hidden"], num_hidden_layers=cfg["layers"],
        num_attention_heads=cfg["heads"], intermediate_size=cfg["ffn"],
        max_position_embeddings=cfg["max_pos"], type_vocab_size=cfg["segments"], num_labels=cfg["classes"])
    return transformers.BertForSequenceClassification(conf)


def _build_llm(transformers, model, cfg):
    if model == "gemma":
        conf = transformers.GemmaConfig(
            vocab_size=cfg["vocab"], hidden_size=cfg["hidden"], intermediate_size=cfg["ffn"],
            num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
            num_key_value_heads=cfg["kv_heads"], head_dim=cfg["head_dim"],
            max_position_embeddings=max(8192 if cfg["vocab"] > 1000 else 128, cfg["total"]),
            pad_token_id=0, eos_token_id=1, bos_token_id=2)
        return transformers.GemmaForCausalLM(conf)
    conf = transformers.MistralConfig(
        vocab_size=cfg["vocab"], hidden_size=cfg["hidden"], intermediate_size=cfg["ffn"],
        num_hidden_layers=cfg["layers"], num_attention_heads=cfg["heads"],
        num_key_value_heads=cfg["kv_heads"], sliding_window=cfg["window"], rms_norm_eps=cfg["eps"],
        max_position_embeddings=max(cfg["window"], cfg["total"], 128), pad_token_id=0,
        bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    return transformers.MistralForCausalLM(conf)


def _build_sd_vae(diffusers, cfg):
    n = len(cfg["vae_blocks"])
    return diffusers.AutoencoderKL(
        in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * n,
        up_block_types=("UpDecoderBlock2D",) * n, block_out_channels=tuple(cfg["vae_blocks"]),
        layers_per_block=cfg["vae_layers"], latent_channels=cfg["latent_ch"],
        norm_num_groups=cfg["vae_groups"], sample_size=cfg["image"])


def _build_sd_unet(diffusers, cfg):
    n = len(cfg["unet_blocks"])
    return diffusers.UNet2DConditionModel(
        sample_size=cfg["image"] // 8, in_channels=cfg["latent_ch"], out_channels=cfg["latent_ch"],
        down_block_types=("CrossAttnDownBlock2D",) * (n - 1) + ("DownBlock2D",),
        up_block_types=("UpBlock2D",) + ("CrossAttnUpBlock2D",) * (n - 1),
        block_out_channels=tuple(cfg["unet_blocks"]), layers_per_block=cfg["unet_layers"],
        cross_attention_dim=cfg["text_hidden"], attention_head_dim=cfg["unet_head_dim"],
        norm_num_groups=cfg["unet_groups"])


def _build_sd_text(transformers, cfg):
    conf = transformers.CLIPTextConfig(
        vocab_size=cfg["text_vocab"], hidden_size=cfg["text_hidden"], intermediate_size=cfg["text_ffn"],
        num_hidden_layers=cfg["text_layers"], num_attention_heads=cfg["text_heads"],
        max_position_embeddings=cfg["text_len"], hidden_act="quick_gelu", projection_dim=cfg["text_hidden"])
    return transformers.CLIPTextModel(conf)


def _build_sam(cfg):
    from functools import partial

    import torch
    from segment_anything.modeling import (ImageEncoderViT, MaskDecoder, PromptEncoder, Sam,
                                           TwoWayTransformer)
    grid = cfg["image"] // cfg["patch"]
    return Sam(
        image_encoder=ImageEncoderViT(
            img_size=cfg["image"], patch_size=cfg["patch"], embed_dim=cfg["width"], depth=cfg["depth"],
            num_heads=cfg["heads"], mlp_ratio=cfg["mlp"] / cfg["width"], out_chans=cfg["out_ch"],
            qkv_bias=True, norm_layer=partial(torch.nn.LayerNorm, eps=1e-6), use_rel_pos=True,
            window_size=cfg["window"], global_attn_indexes=tuple(cfg["global_attn"])),
        prompt_encoder=PromptEncoder(
            embed_dim=cfg["out_ch"], image_embedding_size=(grid, grid),
            input_image_size=(cfg["image"], cfg["image"]), mask_in_chans=cfg["mask_in"]),
        mask_decoder=MaskDecoder(
            num_multimask_outputs=3,
            transformer=TwoWayTransformer(depth=cfg["dec_depth"], embedding_dim=cfg["out_ch"],
                                          mlp_dim=cfg["dec_mlp"], num_heads=cfg["dec_heads"]),
            transformer_dim=cfg["out_ch"], iou_head_depth=3, iou_head_hidden_dim=cfg["iou_hidden"]),
        pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375])


def build(model, size, task="predict"):
    """The model of one cell, on the current default device and dtype.

    Returns a dict of modules; used by setup() and by tests/params (on the
    meta device) so both count the same objects.
    """
    import transformers
    cfg = sizes.SIZES[model][size]
    if model == "bert":
        return {"model": _build_bert(transformers, cfg)}
    if model in ("gemma", "mistral"):
        return {"model": _build_llm(transformers, model, cfg)}
    if model == "sd":
        import diffusers
        if task == "fit":
            return {"vae": _build_sd_vae(diffusers, cfg)}
        return {"unet": _build_sd_unet(diffusers, cfg), "text_encoder": _build_sd_text(transformers, cfg)}
    if model == "sam":
        return {"sam": _build_sam(cfg)}
    raise KeyError(model)


class _Env:
    """What every builder needs: device, dtypes, compile switch, sync."""

    def __init__(self, torch, cell):
        self.torch = torch
        # device: cpu (plan/device.h) keeps the cell on the host even where torch sees a GPU.
        gpu = torch.cuda.is_available() and getattr(cell, "device", None) != "cpu"
        self.device = torch.device("cuda" if gpu else "cpu")
        self.input_devices = []  # where each of the step's inputs lives (placement())
        self.pdtype, self.autocast = _dtype(torch, cell.precision)
        self.compiled = _compiled(cell)
        self.published = method.of(cell) == method.PUBLISHED
        self.batch = cell.batch

    def sync(self):
        # The published scripts never synchronised (method.choices: sync).
        if self.device.type == "cuda" and not self.published:
            self.torch.cuda.synchronize()

    def maybe_compile(self, fn):
        return self.torch.compile(fn, mode="reduce-overhead") if self.compiled else fn

    def amp(self):
        if self.autocast is not None:
            return self.torch.autocast(self.device.type, dtype=self.autocast)
        import contextlib
        return contextlib.nullcontext()

    def ids(self, arr):
        return self.placed(_ids(self.torch, arr, self.device))

    def nchw(self, arr):
        return self.placed(_nchw(self.torch, arr, self.device, self.pdtype))

    def placed(self, t):
        """t, noted as one of the step's inputs."""
        self.input_devices.append(str(t.device))
        return t

    def adamw(self, params):
        return self.torch.optim.AdamW(params, lr=method.LEARNING_RATE, weight_decay=method.ADAMW_WEIGHT_DECAY)

    def adam(self, params):
        return self.torch.optim.Adam(params, lr=method.LEARNING_RATE)


def _forward_step(env, fwd):
    fwd = env.maybe_compile(fwd)

    def step():
        fwd()
        env.sync()
    return step


def _setup_bert(env, cell, cfg, mods, data):
    torch = env.torch
    model = mods["model"]
    if env.published:
        rows = {"input_ids": data["token_ids"], "token_type_ids": data["segment_ids"],
                "attention_mask": data["padding_mask"]}
        if cell.task == "fit":
            rows["labels"] = data["labels"]
            return _trainer_fit(env, model, _examples(rows, tensors=False)), [model]
        return _trainer_predict(env, model, _examples(rows, tensors=False)), [model]
    ids, seg, mask = env.ids(data["token_ids"]), env.ids(data["segment_ids"]), env.ids(data["padding_mask"])
    if cell.task == "fit":
        model.train()
        labels = env.ids(data["labels"])
        opt = env.adamw(model.parameters())

        def loss_fn():
            with env.amp():
                logits = model(input_ids=ids, attention_mask=mask, token_type_ids=seg).logits
            return torch.nn.functional.cross_entropy(logits.float(), labels)
        return _train_step(opt, env.maybe_compile(loss_fn), env.sync), [model]
    model.eval()

    def fwd():
        with torch.no_grad(), env.amp():
            return model(input_ids=ids, attention_mask=mask, token_type_ids=seg).logits
    return _forward_step(env, fwd), [model]


def _setup_llm_fit(env, cell, cfg, model, data):
    torch = env.torch
    import inspect

    import peft
    if env.published:
        # LoraConfig(r=4): peft's default alpha and its per-architecture
        # targets (q_proj, v_proj); adapters in the model's dtype, as peft
        # 0.9 made them (later peft casts them to float32 unless told not to).
        lcfg = peft.LoraConfig(r=method.LORA_RANK)
        kw = {}
        if "autocast_adapter_dtype" in inspect.signature(peft.get_peft_model).parameters:
            kw["autocast_adapter_dtype"] = False
        model = peft.get_peft_model(model, lcfg, **kw)
        model.to(env.device)
        _state["lora_alpha"] = lcfg.lora_alpha
        _state["lora_dtype"] = _adapter_dtype(model)
        tok = data["tokens"][:, :-1]
        rows = {"input_ids": tok, "attention_mask": (tok * 0 + 1), "labels": tok}
        return _trainer_fit(env, model, _examples(rows, tensors=True)), [model]
    lcfg = peft.LoraConfig(r=method.LORA_RANK, lora_alpha=method.LORA_ALPHA, lora_dropout=0.0,
                           target_modules=list(method.LORA_TORCH_TARGETS))
    model = peft.get_peft_model(model, lcfg)
    model.to(env.device)
    model.train()
    _state["lora_alpha"] = lcfg.lora_alpha
    _state["lora_dtype"] = _adapter_dtype(model)
    tok = env.ids(data["tokens"])
    x, y = tok[:, :-1].contiguous(), tok[:, 1:].contiguous()
    opt = env.adamw([p for p in model.parameters() if p.requires_grad])

    def loss_fn():
        with env.amp():
            logits = model(input_ids=x, use_cache=False).logits
        return torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
    return _train_step(opt, env.maybe_compile(loss_fn), env.sync), [model]


def _setup_llm_generate(env, cell, cfg, model, data):
    torch = env.torch
    model.eval()
    prompt = env.ids(data["prompt"])
    attn = torch.ones_like(prompt)
    if env.published:
        # torch.compile(model), then model.generate: the wrapper hands back
        # the original module's generate, whose forward is not compiled.
        # max_new_tokens = 50 - 5 words; stops at EOS (pad = EOS).
        runner = torch.compile(model, mode="reduce-overhead") if env.compiled else model
        eos = model.config.eos_token_id
        gc = model.generation_config
        gc.eos_token_id = eos
        gc.pad_token_id = eos
        new = method.PUBLISHED_MAX_LENGTH - method.PUBLISHED_NUM_WORDS
        _state["tokens"] = None
        _state["stop"] = (prompt.shape[1], new, eos)

        def step():
            with torch.no_grad(), env.amp():
                out = runner.generate(input_ids=prompt, attention_mask=attn, max_new_tokens=new, pad_token_id=eos)
            env.sync()
            _state["tokens"] = tuple(out.shape)
            _state["generated"] = out
        return step, [model]
    new = cfg["total"] - prompt.shape[1]
    _state["stop"] = (prompt.shape[1], new, None)
    gc = model.generation_config
    gc.eos_token_id = None
    gc.do_sample = False
    gc.pad_token_id = 0
    if env.compiled:
        model.forward = torch.compile(model.forward, mode="reduce-overhead")
    _state["tokens"] = None

    def step():
        with torch.no_grad(), env.amp():
            out = model.generate(input_ids=prompt, attention_mask=attn, max_new_tokens=new,
                                 min_new_tokens=new, do_sample=False)
        env.sync()
        _state["tokens"] = tuple(out.shape)
        _state["generated"] = out
    return step, [model]


def _setup_llm(env, cell, cfg, mods, data):
    if cell.task == "fit":
        return _setup_llm_fit(env, cell, cfg, mods["model"], data)
    return _setup_llm_generate(env, cell, cfg, mods["model"], data)


def _setup_encoder_fit(env, enc, data):
    """SD and SAM fit: an image encoder trained to random targets (MSE, Adam)."""
    torch = env.torch
    enc.train()
    images, targets = env.nchw(data["images"]), env.nchw(data["targets"])
    opt = env.adam(enc.parameters())
    if env.published:
        # The published train_fn, compiled whole (optimizer step included).
        def train_fn():
            opt.zero_grad()
            with env.amp():
                y_pred = enc(images)
            loss = torch.nn.MSELoss()(y_pred, targets)
            loss.backward()
            opt.step()
        train_fn = env.maybe_compile(train_fn)

        def step():
            train_fn()
            env.sync()
        return step, [enc]

    def loss_fn():
        with env.amp():
            out = enc(images)
        return torch.nn.functional.mse_loss(out.float(), targets.float())
    return _train_step(opt, env.maybe_compile(loss_fn), env.sync), [enc]


def _setup_sd(env, cell, cfg, mods, data):
    torch = env.torch
    if cell.task == "fit":
        return _setup_encoder_fit(env, mods["vae"].encoder, data)
    unet, te = mods["unet"].eval(), mods["text_encoder"].eval()
    with torch.no_grad(), env.amp():
        cond = te(input_ids=env.ids(data["prompt_tokens"])).last_hidden_state
        uncond = te(input_ids=env.ids(data["negative_tokens"])).last_hidden_state
    context = torch.cat([uncond, cond]).to(env.pdtype)
    guidance = cfg["guidance"]
    if env.published:
        return _sd_pipeline(env, cell, cfg, unet, te, cond.to(env.pdtype), uncond.to(env.pdtype),
                            env.nchw(data["latents"])), [unet, te]

    def eps_fn(latents, t):
        with torch.no_grad(), env.amp():
            e = unet(torch.cat([latents, latents]), t, encoder_hidden_states=context).sample
        u, c = e.chunk(2)
        return method.guide(u, c, guidance)
    eps_fn = env.maybe_compile(eps_fn)
    _, timesteps, _ = method.ddim_schedule(cfg)
    tvals = [torch.tensor(t, device=env.device, dtype=torch.int64) for t in timesteps]
    loop = method.Denoiser(cfg, env.nchw(data["latents"]), lambda lat, i: eps_fn(lat, tvals[i]))
    _state["scheduler"] = "DDIM (keras-cv's schedule, workloads/method.py)"

    def step():
        loop.step()
        env.sync()
    return step, [unet, te]


def _setup_sam(env, cell, cfg, mods, data):
    torch = env.torch
    sam = mods["sam"]
    if cell.task == "fit":
        return _setup_encoder_fit(env, sam.image_encoder, data)
    images = env.nchw(data["images"])
    sam.eval()
    # segment_anything computes its positional encodings in float32 (it casts
    # the point coordinates and the grid to float32 itself), so the random
    # Gaussian matrix they are multiplied by stays float32 whatever the
    # model's dtype; the encodings go to the decoder in the model's dtype.
    pe = sam.prompt_encoder.pe_layer
    pe.positional_encoding_gaussian_matrix = pe.positional_encoding_gaussian_matrix.float()
    _state["sam.positional_encoding"] = "float32 (segment_anything's own), cast to the model's dtype"
    points = env.placed(torch.from_numpy(data["points"].copy()).to(device=env.device, dtype=env.pdtype))
    labels = env.placed(torch.from_numpy(data["labels"].astype("int64")).to(env.device))
    dt = env.pdtype

    def fwd():
        with torch.no_grad(), env.amp():
            feats = sam.image_encoder(images)
            sparse, dense = sam.prompt_encoder(points=(points, labels), boxes=None, masks=None)
            return sam.mask_decoder(image_embeddings=feats, image_pe=sam.prompt_encoder.get_dense_pe().to(dt),
                                    sparse_prompt_embeddings=sparse.to(dt), dense_prompt_embeddings=dense.to(dt),
                                    multimask_output=True)
    return _forward_step(env, fwd), [sam]


def _sd_pipeline(env, cell, cfg, unet, te, cond, uncond, start):
    """The published SD predict: a diffusers StableDiffusionPipeline (PNDM,
    diffusers' default for SD v1.4; classifier-free guidance), wrapped
    whole by torch.compile as the original wrapped its pipeline object
    (stable_diffusion/torch/predict.py:40-41): dynamo skips the __call__
    frame and compiles the frames it calls (UNet2DConditionModel.forward,
    PNDMScheduler.step, ...), recompiling as they see new Python state.

    The original warmed up with two 1-step calls, then timed a 101-step
    call less a 1-step call, over 100: PNDM repeats its second timestep,
    so the two calls make 102 and 1 UNet calls, 101 per 100 steps, and
    their fixed costs (prompt encoding, VAE decode, safety checker, the
    image copied to the host) cancel. Here one timed step is one iteration
    of the pipeline's own denoising loop: the pipeline's calls run in one
    thread of their own, each stopped after every iteration
    (callback_on_step_end, hidden from dynamo) until the next step. Each warm-up step is a whole
    1-step call. The timed steps walk 100-step calls (PNDM: 101 iterations):
    the first step of a call runs its set-up and the first two iterations,
    the next 99 one each, and the last ends the call with its output
    copied to the host. So any 100 timed steps make 101 UNet calls and one
    host copy, the original's per-step work (facts sd.unet_calls_*);
    output_type="latent" leaves out the VAE decode and the safety checker
    whose cost the original subtracted, the prompt embeddings come from
    setup (text encoding is outside the step on every backend)."""
    torch = env.torch
    import queue
    import threading

    import diffusers
    sched = diffusers.PNDMScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012,
                                    beta_schedule="scaled_linear", skip_prk_steps=True, set_alpha_to_one=False,
                                    steps_offset=1)
    with env.device:
        vae = _build_sd_vae(diffusers, cfg).to(device=env.device, dtype=env.pdtype).eval()
    pipe = diffusers.StableDiffusionPipeline(vae=vae, text_encoder=te, tokenizer=None, unet=unet, scheduler=sched,
                                             safety_checker=None, feature_extractor=None,
                                             requires_safety_checker=False)
    run = torch.compile(pipe, mode="reduce-overhead") if env.compiled else pipe
    n_call = 100  # NUM_STEPS: 101 UNet calls, the 101-step call's less the 1-step call's
    counts = {"unet": [], "copies": []}  # per step
    _state["scheduler"] = type(sched).__name__
    _state["sd.counts"] = counts
    _state["sd.unet_code"] = type(unet).forward.__code__
    _state["sd.pipeline"] = type(pipe).__name__
    go, done = threading.Semaphore(0), threading.Semaphore(0)
    box = {"iters": 0, "copy": False, "error": None, "end": False}

    @torch._dynamo.disable
    def pause(p, i, t, kwargs):  # after each iteration: the step is over
        box["iters"] += 1
        done.release()
        go.acquire()
        return {}

    def call(n):
        try:
            with torch.no_grad(), env.amp():
                out = run(prompt_embeds=cond, negative_prompt_embeds=uncond, num_inference_steps=n,
                          guidance_scale=cfg["guidance"], height=cfg["image"], width=cfg["image"],
                          latents=start, output_type="latent", callback_on_step_end=pause)
            out.images.cpu()  # the call's output on the host (the original's PIL images)
            box["copy"] = True
        except BaseException as e:  # raised again in the worker's step
            box["error"] = e
        box["end"] = True
        done.release()

    # One thread makes every call, as the original's one thread did: what
    # dynamo and inductor keep per thread (CUDA graph trees among it) lasts
    # from call to call.
    calls = queue.SimpleQueue()

    def caller():
        while True:
            call(calls.get())
    threading.Thread(target=caller, name="sd-pipeline", daemon=True).start()

    def wait():
        done.acquire()
        if box["error"] is not None:
            raise box["error"]

    def begin(n):  # a call, up to the end of its first iteration
        box["end"] = False
        calls.put(n)
        wait()

    def resume():  # the call under way, to the end of its next iteration (or its end)
        go.release()
        wait()

    def end():
        resume()
        if not box["end"]:
            raise RuntimeError("SD pipeline: the call did not end after its last iteration")

    n = [0]  # steps run
    left = [0]  # iterations left in the 100-step call under way

    def step():
        i, n[0] = n[0], n[0] + 1
        box["iters"], box["copy"] = 0, False
        if i < cell.warmup:  # a whole 1-step call (one iteration), as the original's warm-up
            begin(1)
            end()
        else:
            if left[0] == 0:  # a 100-step call begins: its set-up and PNDM's first two iterations
                begin(n_call)
                left[0] = n_call  # PNDM: n_call + 1 iterations, one of them run
            resume()
            left[0] -= 1
            if left[0] == 0:  # its last iteration ran: the call ends, its output copied to the host
                end()
        counts["unet"].append(box["iters"])
        counts["copies"].append(int(box["copy"]))
        env.sync()
    return step


def _examples(columns, tensors):
    """The rows of a HF dataset built from the C inputs: lists of ints (the
    published BERT dataset had no format) or tensors (set_format("torch"))."""
    import torch
    n = len(next(iter(columns.values())))
    if tensors:
        return [{k: torch.from_numpy(v[i].astype("int64")) for k, v in columns.items()} for i in range(n)]
    return [{k: v[i].tolist() for k, v in columns.items()} for i in range(n)]


def _trainer(env, model, train):
    """A HF Trainer with the published TrainingArguments (defaults: AdamW
    5e-5, linear schedule, grad clipping at 1.0; torch_compile as
    use_compile())."""
    import tempfile

    import transformers
    kw = dict(output_dir=tempfile.mkdtemp(prefix="trainer-"), report_to=[], torch_compile=env.compiled,
              torch_compile_mode="reduce-overhead" if env.compiled else None)
    kw["per_device_train_batch_size" if train else "per_device_eval_batch_size"] = env.batch
    if train:
        kw.update(num_train_epochs=1.0, max_steps=102)  # NUM_STEPS + 2
    tf32_before = env.torch.backends.cuda.matmul.allow_tf32
    trainer = transformers.Trainer(model=model, args=transformers.TrainingArguments(**kw))
    _state["trainer.tf32"] = _trainer_tf32(env, tf32_before)
    # Each step's batch is copied to the Trainer's device (_prepare_inputs).
    env.input_devices.append(str(trainer.args.device))
    return trainer


def _trainer_fit(env, model, examples):
    """One step of Trainer.train(): collate the batch, training_step (forward,
    loss, backward), the NaN/Inf check on the loss (a host sync), gradient
    clipping and the norm read back (grad_norm.item(), a host sync),
    optimizer and LR-schedule steps."""
    torch = env.torch
    trainer = _trainer(env, model, train=True)
    wrapped = trainer.accelerator.prepare(trainer.model)
    trainer.create_optimizer()
    trainer.create_scheduler(num_training_steps=trainer.args.max_steps, optimizer=trainer.optimizer)
    opt, sched, args = trainer.optimizer, trainer.lr_scheduler, trainer.args
    # Set by train()'s loop before training_step in later transformers.
    if not hasattr(trainer, "current_gradient_accumulation_steps"):
        trainer.current_gradient_accumulation_steps = args.gradient_accumulation_steps
    wrapped.train()
    _state["input_copy"] = TRAINER_COPY
    _state["trainer"] = type(trainer).__name__
    _state["trainer.compiled"] = wrapped is not trainer.model
    reads = _state["trainer.grad_norm_reads"] = [0]

    def step():
        batch = trainer._prepare_inputs(trainer.data_collator(examples))
        loss = trainer.training_step(wrapped, batch)
        if args.logging_nan_inf_filter:
            bool(torch.isnan(loss) or torch.isinf(loss))
        norm = trainer.accelerator.clip_grad_norm_(wrapped.parameters(), args.max_grad_norm)
        # The loop reads the norm back each step (transformers 4.38.2
        # trainer.py:2003-2014: grad_norm = _grad_norm.item()), a host sync.
        if norm is not None:
            norm.item()
            reads[0] += 1
        opt.step()
        sched.step()
        wrapped.zero_grad()
        env.sync()
    return step


def _trainer_tf32(env, before):
    """What TrainingArguments did to TF32 (torch.backends.cuda.matmul), as
    the `trainer.tf32` fact: torch_compile=True turns it on where the GPU
    has TF32 (transformers 4.38.2 training_args.py:1575-1583; today's
    transformers the same)."""
    after = env.torch.backends.cuda.matmul.allow_tf32
    if after:
        return ("on: TrainingArguments(torch_compile=True) turned it on" if not before
                else "on before the Trainer was made")
    if env.compiled:
        return "off: TrainingArguments(torch_compile=True) turns it on only on a CUDA GPU with TF32 (none here)"
    return "off: the Trainer leaves it (no torch_compile)"


def _trainer_predict(env, model, examples):
    """One batch of Trainer.predict(): the evaluation loop's choice of
    model, collate, prediction_step. Each step stands for one of the
    original's trainer.predict calls: evaluation_loop prepares (and, with
    torch_compile, compiles) the model only while accelerate has registered
    none (transformers 4.38.2 trainer.py:3346-3356; accelerate 0.27.2
    prepare_model appends it to _models), so the first call runs the
    compiled model and every later call, the timed one included, the
    uncompiled self.model (`trainer.steps_model` records which ran)."""
    trainer = _trainer(env, model, train=False)
    _state["input_copy"] = TRAINER_COPY
    _state["trainer"] = type(trainer).__name__
    ran = _state["trainer.steps_compiled"] = []  # per step: did the compiled model run

    def step():
        m = trainer._wrap_model(trainer.model, training=False)
        if len(trainer.accelerator._models) == 0 and m is trainer.model:
            m = trainer.accelerator.prepare_model(m, evaluation_mode=True)
        m.eval()
        ran.append(m is not trainer.model)
        batch = trainer._prepare_inputs(trainer.data_collator(examples))
        trainer.prediction_step(m, batch, prediction_loss_only=False)
        env.sync()
    return step


def _adapter_dtype(model):
    for name, p in model.named_parameters():
        if "lora_" in name:
            return str(p.dtype).replace("torch.", "")
    return "none"


TRAINER_COPY = "every step (the Trainer collates the batch and moves it to the device)"


class _CompileProbe:
    """What torch.compile did, measured: dynamo compiles and recompiles,
    and CUDA graphs recorded, each with the step it happened in (callbacks
    of torch._dynamo.callback_handler, where this torch has them), plus
    inductor's CUDA-graph skip counter (facts())."""

    def __init__(self, torch, warmup):
        self.torch = torch
        self.warmup = warmup
        self.before_timed = None  # dynamo's counters when the timed steps began
        self.calls = 0  # step() calls begun
        self.compiles = []  # (step, compile id) of each dynamo compile
        self.recordings = []  # step of each CUDA graph recorded
        self.hooked = False
        handler = getattr(getattr(torch, "_dynamo", None), "callback_handler", None)
        if handler is not None and hasattr(handler, "register_start_callback"):
            handler.register_start_callback(self._start)
            self.hooked = True

    def _start(self, *args):
        a = args[0] if args else None
        trigger = getattr(getattr(a, "callback_trigger", None), "name", "DYNAMO")
        if trigger == "DYNAMO":
            self.compiles.append((self.calls, str(getattr(a, "compile_id", ""))))
        elif trigger == "CUDAGRAPH_RECORDING":
            self.recordings.append(self.calls)

    def wrap(self, step):
        def counted():
            self.calls += 1
            r = step()
            if self.calls == self.warmup:  # the last warm-up step, outside the timed steps
                self.before_timed = self.counts()
            return r
        if self.warmup == 0:
            self.before_timed = self.counts()
        return counted

    def counts(self):
        """dynamo's own counters, now: graphs compiled, graph breaks met,
        frames converted, and guard failures (each a recompile)."""
        from torch._dynamo import utils
        gf = getattr(utils, "guard_failures", None)
        c = utils.counters
        return {"unique_graphs": int(c["stats"]["unique_graphs"]),
                "graph_breaks": int(sum(c["graph_break"].values())),
                "frames_ok": int(c["frames"]["ok"]),
                "guard_failures": sum(len(v) for v in gf.values()) if gf is not None else None}

    def timed_facts(self):
        """What dynamo did in the timed steps (counters after them less
        before them): `compile.timed.*`."""
        if self.before_timed is None:
            return {}
        now, out = self.counts(), {}
        for k in ("unique_graphs", "graph_breaks", "frames_ok", "guard_failures"):
            if now[k] is not None and self.before_timed[k] is not None:
                out[f"compile.timed.{k}"] = now[k] - self.before_timed[k]
        return out

    def facts(self, warmup):
        import re
        from torch._dynamo.utils import counters
        out = {"compile.cudagraph_skips": int(counters["inductor"]["cudagraph_skips"])}
        out.update(self.timed_facts())
        if not self.hooked:
            out["compile.probe"] = "no compile callbacks in this torch: dynamo's and inductor's counters only"
            return out
        recompiles = [c for c in self.compiles if (m := re.match(r"^(\d+)/(\d+)$", c[1])) and int(m.group(2)) > 0]
        out["compile.dynamo_compiles"] = len(self.compiles)
        out["compile.recompiles"] = len(recompiles)
        out["compile.compiles_in_timed_steps"] = sum(1 for step, _ in self.compiles if step > warmup)
        out["compile.recompiles_in_timed_steps"] = sum(1 for step, _ in recompiles if step > warmup)
        out["compile.cudagraph_recordings"] = len(self.recordings)
        out["compile.cudagraph_recordings_in_timed_steps"] = sum(1 for step in self.recordings if step > warmup)
        out["compile.probe"] = "torch._dynamo.callback_handler (compiles, CUDA graph recordings) and counters"
        return out


def _unet_compiled(code):
    """Published SD predict under torch.compile(pipeline): how many compiled
    versions of UNet2DConditionModel.forward dynamo holds (its cache
    entries), and whether the timed steps' UNet calls ran one: a version is
    held and dynamo did not give the frame up (as many versions as its
    recompile limit, after which the frame runs eagerly)."""
    import torch
    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list
        n = len(_debug_get_cache_entry_list(code))
    except (ImportError, AttributeError, TypeError):
        return {"compile.timed.took_effect": "not measured (no dynamo cache inspection in this torch)"}
    cfg = torch._dynamo.config
    limit = getattr(cfg, "recompile_limit", None) or getattr(cfg, "cache_size_limit", 8)
    return {"compile.unet_forward_versions": n, "compile.timed.took_effect": 0 < n < limit}


BUILDERS = {"bert": _setup_bert, "gemma": _setup_llm, "mistral": _setup_llm, "sd": _setup_sd, "sam": _setup_sam}


def setup(cell, data):
    import torch
    import transformers

    cfg = sizes.get(cell)
    env = _Env(torch, cell)
    locale_fix = _utf8_locale_for_dynamo() if env.compiled else None
    torch.manual_seed(cell.seed)  # weights only; inputs come from C
    transformers.logging.set_verbosity_error()

    _benchgen.mark("build")
    prev_dtype = torch.get_default_dtype()
    torch.set_default_dtype(env.pdtype if env.pdtype.is_floating_point else torch.float32)
    try:
        with env.device:
            mods = build(cell.model, cell.size, cell.task)
    finally:
        torch.set_default_dtype(prev_dtype)
    for m in mods.values():
        m.to(device=env.device, dtype=env.pdtype)
    _benchgen.mark("built")

    st = _state
    st.clear()
    st.update(device=env.device, compiled=env.compiled, pdtype=env.pdtype, autocast=env.autocast,
              locale_fix=locale_fix)
    builder = BUILDERS.get(cell.model)
    if builder is None:
        raise ValueError(f"no torch workload for {cell.model}/{cell.task}")
    probe = _CompileProbe(torch, cell.warmup) if env.compiled else None
    step, st["modules"] = builder(env, cell, cfg, mods, data)
    st["input_devices"] = env.input_devices
    if probe is not None:
        st["probe"] = probe
        step = probe.wrap(step)  # one counter increment per step: which step a compile happened in
    return memory.after_setup(step)  # memory.* facts: resident bytes after setup and the first step


def placement(cell):
    """Where the parameters and the step's inputs are (workloads/placement.py)."""
    import torch

    from workloads import placement as guard
    st = _state
    return guard.torch_report(torch, st.get("modules") or [], st.get("input_devices") or [], cell.env or "torch")


def _train_step(opt, loss_fn, sync):
    def step():
        loss = loss_fn()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync()
    return step


def count_params(modules):
    total = trainable = 0
    seen = set()
    for m in modules:
        for p in m.parameters():
            if id(p) in seen:
                continue
            seen.add(id(p))
            total += p.numel()
            trainable += p.numel() if p.requires_grad else 0
    return total, trainable


def facts(cell):
    import torch
    st = _state
    out = {"framework": "pytorch", "torch.version": torch.__version__}
    device = st.get("device")
    out["device"] = str(device)
    if device is not None and device.type == "cuda":
        out["device.name"] = torch.cuda.get_device_name(device)
        out["synchronisation"] = "torch.cuda.synchronize() at the end of every step"
    else:
        out["synchronisation"] = "none needed: CPU kernels finish before the step returns"
    out["tf32.matmul"] = bool(torch.backends.cuda.matmul.allow_tf32)
    out["tf32.cudnn"] = bool(torch.backends.cudnn.allow_tf32)
    out.update(autotune.torch_facts(torch, compiled=bool(st.get("compiled"))))
    out["inputs.host_to_device"] = st.get("input_copy", "once, in setup (every step reuses the device tensors)")
    out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    pd = st.get("pdtype")
    out["dtype_policy"] = (f"autocast {st['autocast']} over {pd}" if st.get("autocast") is not None
                           else str(pd).replace("torch.", ""))
    out["precision"] = cell.precision
    if "modules" in st:
        total, trainable = count_params(st["modules"])
        out["parameters"] = total
        out["parameters.trainable"] = trainable
    if st.get("tokens") is not None:
        out["generate.output_shape"] = list(st["tokens"])
    if st.get("compiled"):
        from torch._dynamo.utils import counters
        frames_ok = int(counters["frames"]["ok"])
        graphs = int(counters["stats"]["unique_graphs"])
        breaks = int(sum(counters["graph_break"].values()))
        out["compile"] = 'torch.compile(mode="reduce-overhead")'
        out["compile.frames_ok"] = frames_ok
        out["compile.unique_graphs"] = graphs
        out["compile.graph_breaks"] = breaks
        out["compile.took_effect"] = graphs > 0
        probe = st.get("probe")
        pf = probe.facts(cell.warmup) if probe is not None else {}
        out.update(pf)
        if "compile.cudagraph_recordings" in pf:
            # measured: CUDA graphs were recorded (reduce-overhead's replays)
            out["compile.cudagraphs"] = pf["compile.cudagraph_recordings"] > 0
        else:
            # no callbacks: inductor found nothing to skip on a CUDA device
            out["compile.cudagraphs"] = bool(device is not None and device.type == "cuda" and graphs > 0
                                             and pf.get("compile.cudagraph_skips", 0) == 0)
        if st.get("locale_fix"):
            out["compile.locale"] = st["locale_fix"]
        if st.get("sd.unet_code") is not None:
            out.update(_unet_compiled(st["sd.unet_code"]))
    else:
        out["compile"] = "none (eager)"
        out["compile.took_effect"] = False
    out["step"] = METHOD.get(cell.task, "")
    if st.get("generated") is not None:
        out.update(method.generate_stop(st["generated"].tolist(), *st["stop"]))
    if st.get("scheduler"):
        out["sd.scheduler"] = st["scheduler"]
    if st.get("sd.pipeline"):
        # the object the step drives, and what torch.compile wrapped
        out["sd.pipeline"] = st["sd.pipeline"]
        out["compile.wrapped"] = st["sd.pipeline"] if st.get("compiled") else "nothing"
    if st.get("sd.counts"):
        unet, copies = st["sd.counts"]["unet"][cell.warmup:], st["sd.counts"]["copies"][cell.warmup:]
        out["sd.unet_calls_timed"] = sum(unet)
        out["sd.unet_calls_per_timed_step"] = round(sum(unet) / len(unet), 4) if unet else 0
        out["sd.host_copies_timed"] = sum(copies)
    if st.get("sam.positional_encoding"):
        out["sam.positional_encoding"] = st["sam.positional_encoding"]
    if st.get("trainer"):
        out["trainer"] = st["trainer"]
        out["trainer.tf32"] = st["trainer.tf32"]
        if st.get("trainer.grad_norm_reads") is not None:
            out["trainer.grad_norm_item_reads"] = st["trainer.grad_norm_reads"][0]
        ran = st.get("trainer.steps_compiled")
        if ran is None:
            out["trainer.compiled_model"] = st["trainer.compiled"]
        else:
            # predict: which model each step ran, the timed ones apart
            timed = ran[cell.warmup:]
            out["trainer.compiled_model"] = bool(timed) and all(timed)
            out["trainer.steps_compiled_model"] = sum(ran)
            out["trainer.timed_steps_compiled_model"] = sum(timed)
            out["trainer.timed_steps_model"] = ("compiled" if timed and all(timed) else
                                                "uncompiled (self.model)" if not any(timed) else "mixed")
    if st.get("lora_dtype"):
        out["lora.alpha"] = st["lora_alpha"]
        out["lora.adapter_dtype"] = st["lora_dtype"]
    out.update(memory.facts())
    out.update(method.facts(cell))
    if device is not None and device.type == "cuda" and method.of(cell) == method.PUBLISHED:
        out["synchronisation"] = "none, as published (the timer may stop before queued kernels finish)"
    return out


METHOD = {
    "fit": "one optimizer step on one batch (forward, loss, backward, update)",
    "predict": "one forward pass on one batch (SD: one CFG denoising step)",
    "generate": "one generate call, greedy (generate.* facts: the new tokens made and whether it stopped at EOS)",
}
