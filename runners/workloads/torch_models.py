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

import math
import os

import _benchgen

from workloads import sizes

LORA_RANK = 4
LEARNING_RATE = 1e-3
ADAMW_WEIGHT_DECAY = 0.004  # Keras AdamW's default, so both stacks run the same update

_state = {}


def supported(cell):
    if cell.model not in sizes.SIZES:
        return f"no PyTorch workload for model {cell.model!r}"
    allowed = {"bert": ("fit", "predict"), "sd": ("fit", "predict"), "sam": ("fit", "predict"),
               "gemma": ("fit", "generate"), "mistral": ("fit", "generate")}
    if cell.task not in allowed[cell.model]:
        return f"{cell.model} has no {cell.task} task"
    return None


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


def _ddim_schedule(cfg):
    """keras-cv's StableDiffusion schedule: scaled-linear betas, 1000 train
    steps, `schedule_steps` evenly spaced timesteps from 981 down to 1."""
    betas = [(math.sqrt(0.00085) + i * (math.sqrt(0.012) - math.sqrt(0.00085)) / 999) ** 2 for i in range(1000)]
    alphas, acc = [], 1.0
    for b in betas:
        acc *= 1.0 - b
        alphas.append(acc)
    stride = 1000 // cfg["schedule_steps"]
    timesteps = list(range(1, 1000, stride))[::-1]
    return alphas, timesteps, stride


def setup(cell, data):
    import torch
    import transformers

    cfg = sizes.get(cell)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    pdtype, autocast = _dtype(torch, cell.precision)
    compiled = _compiled(cell)
    locale_fix = _utf8_locale_for_dynamo() if compiled else None
    torch.manual_seed(cell.seed)  # weights only; inputs come from C
    transformers.logging.set_verbosity_error()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    def maybe_compile(fn):
        return torch.compile(fn, mode="reduce-overhead") if compiled else fn

    def ctx():
        if autocast is not None:
            return torch.autocast(device.type, dtype=autocast)
        import contextlib
        return contextlib.nullcontext()

    _benchgen.mark("build")
    prev_dtype = torch.get_default_dtype()
    torch.set_default_dtype(pdtype if pdtype.is_floating_point else torch.float32)
    try:
        with device:
            mods = build(cell.model, cell.size, cell.task)
    finally:
        torch.set_default_dtype(prev_dtype)
    for m in mods.values():
        m.to(device=device, dtype=pdtype)
    _benchgen.mark("built")

    st = _state
    st.clear()
    st.update(device=device, compiled=compiled, pdtype=pdtype, autocast=autocast, locale_fix=locale_fix)
    step = None

    if cell.model == "bert":
        model = mods["model"]
        ids = _ids(torch, data["token_ids"], device)
        seg = _ids(torch, data["segment_ids"], device)
        mask = _ids(torch, data["padding_mask"], device)
        if cell.task == "fit":
            model.train()
            labels = _ids(torch, data["labels"], device)
            opt = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=ADAMW_WEIGHT_DECAY)

            def loss_fn():
                with ctx():
                    logits = model(input_ids=ids, attention_mask=mask, token_type_ids=seg).logits
                return torch.nn.functional.cross_entropy(logits.float(), labels)
            loss_fn = maybe_compile(loss_fn)
            step = _train_step(opt, loss_fn, sync)
        else:
            model.eval()

            def fwd():
                with torch.no_grad(), ctx():
                    return model(input_ids=ids, attention_mask=mask, token_type_ids=seg).logits
            fwd = maybe_compile(fwd)

            def step():
                fwd()
                sync()
        st["modules"] = [model]

    elif cell.model in ("gemma", "mistral"):
        model = mods["model"]
        if cell.task == "fit":
            import peft
            lcfg = peft.LoraConfig(r=LORA_RANK, lora_alpha=LORA_RANK, lora_dropout=0.0,
                                   target_modules=["q_proj", "v_proj"])
            model = peft.get_peft_model(model, lcfg)
            model.to(device)
            model.train()
            tok = _ids(torch, data["tokens"], device)
            x, y = tok[:, :-1].contiguous(), tok[:, 1:].contiguous()
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LEARNING_RATE,
                                    weight_decay=ADAMW_WEIGHT_DECAY)

            def loss_fn():
                with ctx():
                    logits = model(input_ids=x, use_cache=False).logits
                return torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                                         y.reshape(-1))
            loss_fn = maybe_compile(loss_fn)
            step = _train_step(opt, loss_fn, sync)
        else:
            model.eval()
            prompt = _ids(torch, data["prompt"], device)
            attn = torch.ones_like(prompt)
            new = cfg["total"] - prompt.shape[1]
            gc = model.generation_config
            gc.eos_token_id = None
            gc.do_sample = False
            gc.pad_token_id = 0
            if compiled:
                model.forward = torch.compile(model.forward, mode="reduce-overhead")
            st["tokens"] = None

            def step():
                with torch.no_grad(), ctx():
                    out = model.generate(input_ids=prompt, attention_mask=attn, max_new_tokens=new,
                                         min_new_tokens=new, do_sample=False)
                sync()
                st["tokens"] = tuple(out.shape)
        st["modules"] = [model]

    elif cell.model == "sd":
        if cell.task == "fit":
            enc = mods["vae"].encoder.train()
            images = _nchw(torch, data["images"], device, pdtype)
            targets = _nchw(torch, data["targets"], device, pdtype)
            opt = torch.optim.Adam(enc.parameters(), lr=LEARNING_RATE)

            def loss_fn():
                with ctx():
                    out = enc(images)
                return torch.nn.functional.mse_loss(out.float(), targets.float())
            loss_fn = maybe_compile(loss_fn)
            step = _train_step(opt, loss_fn, sync)
            st["modules"] = [enc]
        else:
            unet, te = mods["unet"].eval(), mods["text_encoder"].eval()
            with torch.no_grad(), ctx():
                cond = te(input_ids=_ids(torch, data["prompt_tokens"], device)).last_hidden_state
                uncond = te(input_ids=_ids(torch, data["negative_tokens"], device)).last_hidden_state
            context = torch.cat([uncond, cond]).to(pdtype)
            start = _nchw(torch, data["latents"], device, pdtype)
            alphas, timesteps, stride = _ddim_schedule(cfg)
            guidance = cfg["guidance"]

            def eps_fn(latents, t):
                with torch.no_grad(), ctx():
                    e = unet(torch.cat([latents, latents]), t, encoder_hidden_states=context).sample
                u, c = e.chunk(2)
                return u + guidance * (c - u)
            eps_fn = maybe_compile(eps_fn)
            tvals = [torch.tensor(t, device=device, dtype=torch.int64) for t in timesteps]
            pos = {"i": 0, "lat": start}

            def step():
                i = pos["i"]
                lat = start if i == 0 else pos["lat"]
                t = timesteps[i]
                a_t = alphas[t]
                a_prev = alphas[t - stride] if t - stride >= 0 else 1.0
                eps = eps_fn(lat, tvals[i])
                x0 = (lat - math.sqrt(1 - a_t) * eps) / math.sqrt(a_t)
                pos["lat"] = math.sqrt(a_prev) * x0 + math.sqrt(1 - a_prev) * eps
                pos["i"] = (i + 1) % len(timesteps)
                sync()
            st["modules"] = [unet, te]

    elif cell.model == "sam":
        sam = mods["sam"]
        images = _nchw(torch, data["images"], device, pdtype)
        if cell.task == "fit":
            enc = sam.image_encoder.train()
            targets = _nchw(torch, data["targets"], device, pdtype)
            opt = torch.optim.Adam(enc.parameters(), lr=LEARNING_RATE)

            def loss_fn():
                with ctx():
                    out = enc(images)
                return torch.nn.functional.mse_loss(out.float(), targets.float())
            loss_fn = maybe_compile(loss_fn)
            step = _train_step(opt, loss_fn, sync)
            st["modules"] = [enc]
        else:
            sam.eval()
            points = torch.from_numpy(data["points"].copy()).to(device=device, dtype=pdtype)
            labels = torch.from_numpy(data["labels"].astype("int64")).to(device)

            def fwd():
                with torch.no_grad(), ctx():
                    feats = sam.image_encoder(images)
                    sparse, dense = sam.prompt_encoder(points=(points, labels), boxes=None, masks=None)
                    return sam.mask_decoder(image_embeddings=feats, image_pe=sam.prompt_encoder.get_dense_pe(),
                                            sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense,
                                            multimask_output=True)
            fwd = maybe_compile(fwd)

            def step():
                fwd()
                sync()
            st["modules"] = [sam]

    if step is None:
        raise ValueError(f"no torch workload for {cell.model}/{cell.task}")
    return step


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
        out["compile.cudagraphs"] = bool(device is not None and device.type == "cuda")
        if st.get("locale_fix"):
            out["compile.locale"] = st["locale_fix"]
    else:
        out["compile"] = "none (eager)"
        out["compile.took_effect"] = False
    out["method"] = METHOD.get(cell.task, "")
    return out


METHOD = {
    "fit": "one optimizer step on one batch (forward, loss, backward, update)",
    "predict": "one forward pass on one batch (SD: one CFG denoising step)",
    "generate": "one generate call to the total length, greedy, EOS disabled",
}
