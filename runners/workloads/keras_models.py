"""Keras workloads: keras3-tensorflow, keras3-jax, keras3-torch and
keras2-tensorflow, one code path.

Keras 3 builds BERT, Gemma, Mistral and SAM with keras-hub and Stable
Diffusion v1 with keras-cv (keras-hub only has SD3). Keras 2 (tf.keras,
TF_USE_LEGACY_KERAS or TensorFlow 2.15) uses the keras-nlp / keras-cv
releases that still support it: BERT from keras-nlp, SAM and SD from
keras-cv. Gemma and Mistral are unsupported on Keras 2, as in the published
table (keras-nlp's Gemma requires Keras 3 and its LoRA needs Keras 3 layers).
Keras 3 without keras-hub (the 2024 stack, data/envs/keras3-2024.txt: keras
3.0.5, keras-nlp and keras-cv 0.8.2, as the published benchmark ran) takes
BERT, Gemma and Mistral from keras-nlp and SAM from keras-cv: the same
architectures, sizes, inputs and steps, only the library that spells them.

Every model is built from constructor arguments with random weights
(download_weights=False for keras-cv SD); sizes come from sizes.SIZES. The
method matches torch_models.py:
  fit       train_on_batch: one optimizer step. BERT AdamW, 2 classes; LLMs
            LoRA rank 4 on query/value (enable_lora), AdamW, next-token
            loss; SD the VAE image encoder up to its 8-channel conv, Adam,
            MSE; SAM the ViTDet image encoder, Adam, MSE.
  predict   predict_on_batch: one forward pass. SD: one classifier-free-
            guidance denoising step (UNet on 2B latents + DDIM update).
  generate  CausalLM.generate on a prompt padded to the total length,
            greedy sampler, stop_token_ids=None (no early stop).
XLA: jit_compile=True on TensorFlow and JAX, False on the torch backend, as
published. train_on_batch / predict_on_batch / generate return NumPy values,
which waits for the device: that is the step's synchronisation. The
published Keras 3 predict cells also time the original's window, with no wait
per batch, after the timed steps (window(), docs/METHOD.md).
"""

import inspect
import os

import _benchgen

from workloads import autotune, memory, method, sizes

_state = {}


def _is_keras2(cell):
    return cell.backend == "keras2-tensorflow" or os.environ.get("TF_USE_LEGACY_KERAS") == "1"


def supported(cell):
    reason = method.unsupported_task(cell.model, cell.task, "Keras")
    if reason is None and _is_keras2(cell) and cell.model in ("gemma", "mistral"):
        return (f"{cell.model} needs Keras 3: keras-nlp's Gemma/Mistral and LoRA do not run on "
                "Keras 2 (NA in the published table)")
    if reason is None and _is_keras2(cell) and cell.model == "sam":
        reason = _keras2_sam(cell)
    return reason


def _keras2_sam(cell):
    """Why keras-cv 0.8's SAM cannot run this cell on Keras 2, or None."""
    if cell.precision == "mixed_bfloat16":
        # ViTDet's AddRelativePositionalEmbedding adds its float32 variables
        # to the bfloat16 attention logits.
        return ("SAM in mixed_bfloat16 needs Keras 3: keras-cv's ViTDet relative position embedding adds "
                "float32 to bfloat16 on Keras 2")
    if cell.precision == "bfloat16" and cell.task == "predict":
        # The prompt encoder and mask decoder call keras-core's sin/cos/sqrt,
        # which TF 2.15 runs through tf.experimental.numpy: that refuses
        # bfloat16 (not a NumPy inexact type to it). fit trains the image
        # encoder alone, which runs.
        return ("SAM predict in bfloat16 needs Keras 3: keras-cv's prompt encoder and mask decoder fail "
                "on Keras 2 (TF 2.15's tf.experimental.numpy sin/cos/sqrt refuse bfloat16)")
    return None


def _libs(keras2):
    """(keras, keras-hub or keras-nlp, backend name)."""
    if keras2:
        import tensorflow as tf
        keras = tf.keras
        return keras, "tensorflow"
    import keras
    return keras, keras.config.backend()


def _set_policy(keras, keras2, precision):
    if keras2:
        keras.mixed_precision.set_global_policy(precision)
    else:
        keras.config.set_dtype_policy(precision)


# ---------------------------------------------------------------- builders

def _keras_hub():
    """keras-hub, or None where only keras-nlp is installed (Keras 2, or the
    2024 Keras 3 stack, which predates keras-hub)."""
    try:
        import keras_hub
    except ImportError:
        return None
    return keras_hub


def _nlp(keras2):
    """The library with BERT, Gemma and Mistral: keras-hub on today's Keras 3,
    keras-nlp on Keras 2 and on Keras 3 before keras-hub existed. The
    constructor arguments used here are the same in both."""
    hub = None if keras2 else _keras_hub()
    if hub is not None:
        return hub
    import keras_nlp
    return keras_nlp


def _build_bert(keras2, cfg):
    lib = _nlp(keras2)
    # keras-hub renamed BertClassifier to BertTextClassifier; same model.
    cls = getattr(lib.models, "BertTextClassifier", None) or lib.models.BertClassifier
    backbone = lib.models.BertBackbone(
        vocabulary_size=cfg["vocab"], num_layers=cfg["layers"], num_heads=cfg["heads"],
        hidden_dim=cfg["hidden"], intermediate_dim=cfg["ffn"], max_sequence_length=cfg["max_pos"],
        num_segments=cfg["segments"])
    return backbone, cls(backbone, num_classes=cfg["classes"], preprocessor=None)


def _build_llm(model, cfg):
    lib = _nlp(False)
    if model == "gemma":
        backbone = lib.models.GemmaBackbone(
            vocabulary_size=cfg["vocab"], num_layers=cfg["layers"], num_query_heads=cfg["heads"],
            num_key_value_heads=cfg["kv_heads"], hidden_dim=cfg["hidden"],
            intermediate_dim=2 * cfg["ffn"], head_dim=cfg["head_dim"])
        return backbone, lib.models.GemmaCausalLM(backbone=backbone, preprocessor=None)
    backbone = lib.models.MistralBackbone(
        vocabulary_size=cfg["vocab"], num_layers=cfg["layers"], num_query_heads=cfg["heads"],
        num_key_value_heads=cfg["kv_heads"], hidden_dim=cfg["hidden"], intermediate_dim=cfg["ffn"],
        rope_max_wavelength=cfg["rope"], layer_norm_epsilon=cfg["eps"], sliding_window=cfg["window"])
    return backbone, lib.models.MistralCausalLM(backbone=backbone, preprocessor=None)


def _build_sam(keras2, cfg, full=True):
    """(image encoder, full segmenter); full=False: (image encoder, None),
    all that fit trains."""
    grid = cfg["image"] // cfg["patch"]
    if keras2 or _keras_hub() is None:
        import keras_cv
        try:
            from keras_cv.src.models.segmentation.segment_anything.sam_transformer import TwoWayTransformer
        except ImportError:
            from keras_cv.models.segmentation.segment_anything.sam_transformer import TwoWayTransformer
        enc = keras_cv.models.ViTDetBackbone(
            include_rescaling=False, input_shape=(cfg["image"], cfg["image"], 3), patch_size=cfg["patch"],
            embed_dim=cfg["width"], depth=cfg["depth"], mlp_dim=cfg["mlp"], num_heads=cfg["heads"],
            out_chans=cfg["out_ch"], window_size=cfg["window"],
            global_attention_indices=list(cfg["global_attn"]))
        if not full:
            return enc, None
        pe = keras_cv.models.SAMPromptEncoder(
            embed_dim=cfg["out_ch"], image_embedding_size=(grid, grid),
            input_image_size=(cfg["image"], cfg["image"]), mask_in_chans=cfg["mask_in"])
        md = keras_cv.models.SAMMaskDecoder(
            transformer_dim=cfg["out_ch"],
            transformer=TwoWayTransformer(depth=cfg["dec_depth"], embed_dim=cfg["out_ch"],
                                          mlp_dim=cfg["dec_mlp"], num_heads=cfg["dec_heads"]),
            num_multimask_outputs=3, iou_head_depth=3, iou_head_hidden_dim=cfg["iou_hidden"])
        return enc, keras_cv.models.SegmentAnythingModel(backbone=enc, prompt_encoder=pe, mask_decoder=md)
    import keras_hub
    enc = keras_hub.models.ViTDetBackbone(
        hidden_size=cfg["width"], num_layers=cfg["depth"], intermediate_dim=cfg["mlp"],
        num_heads=cfg["heads"], global_attention_layer_indices=list(cfg["global_attn"]),
        patch_size=cfg["patch"], num_output_channels=cfg["out_ch"], window_size=cfg["window"],
        image_shape=(cfg["image"], cfg["image"], 3))
    if not full:
        return enc, None
    pe = keras_hub.layers.SAMPromptEncoder(
        hidden_size=cfg["out_ch"], image_embedding_size=(grid, grid),
        input_image_size=(cfg["image"], cfg["image"]), mask_in_channels=cfg["mask_in"])
    md = keras_hub.layers.SAMMaskDecoder(
        num_layers=cfg["dec_depth"], hidden_size=cfg["out_ch"], intermediate_dim=cfg["dec_mlp"],
        num_heads=cfg["dec_heads"], embedding_dim=cfg["out_ch"], num_multimask_outputs=3,
        iou_head_depth=3, iou_head_hidden_dim=cfg["iou_hidden"])
    backbone = keras_hub.models.SAMBackbone(image_encoder=enc, prompt_encoder=pe, mask_decoder=md)
    return enc, keras_hub.models.SAMImageSegmenter(backbone=backbone, preprocessor=None)


def _sd_blocks():
    try:
        from keras_cv.src.models.stable_diffusion import (attention_block, diffusion_model, image_encoder,
                                                          padded_conv2d, resnet_block, text_encoder)
    except ImportError:  # keras-cv 0.8 keeps the modules outside src/
        from keras_cv.models.stable_diffusion import (attention_block, diffusion_model, image_encoder,
                                                      padded_conv2d, resnet_block, text_encoder)
    return attention_block, diffusion_model, image_encoder, padded_conv2d, resnet_block, text_encoder


def _build_sd_encoder(keras, cfg, published):
    """The VAE image encoder up to its 8-channel conv (the benchmark's SD fit
    model: image_encoder.layers[-3]). Published: keras-cv's ImageEncoder;
    tiny: the same layer sequence with the narrower widths of sizes.SIZES."""
    attn, _, ienc, pconv, rblock, _ = _sd_blocks()
    if published:
        full = ienc.ImageEncoder(download_weights=False)
        return keras.Model(full.inputs, full.layers[-3].output)
    blocks, n_layers = cfg["vae_blocks"], cfg["vae_layers"]
    inp = keras.layers.Input((cfg["image"], cfg["image"], 3))
    x = pconv.PaddedConv2D(blocks[0], 3, padding=1)(inp)
    for i, ch in enumerate(blocks):
        for _ in range(n_layers):
            x = rblock.ResnetBlock(ch)(x)
        if i < len(blocks) - 1:
            x = pconv.PaddedConv2D(ch, 3, padding=((0, 1), (0, 1)), strides=2)(x)
    x = rblock.ResnetBlock(blocks[-1])(x)
    x = attn.AttentionBlock(blocks[-1])(x)
    x = rblock.ResnetBlock(blocks[-1])(x)
    x = keras.layers.GroupNormalization(epsilon=1e-5)(x)
    x = keras.layers.Activation("swish")(x)
    x = pconv.PaddedConv2D(2 * cfg["latent_ch"], 3, padding=1)(x)
    return keras.Model(inp, x)


def _build_sd_unet(keras, cfg, published):
    """keras-cv's SD v1 DiffusionModel (published) or the same topology with
    the tiny widths: per level `unet_layers` ResBlock+SpatialTransformer (no
    attention at the deepest level), mid ResBlock/Transformer/ResBlock, and
    the mirrored up path; 8 heads of width ch/8 as in SD v1."""
    _, dm, _, pconv, _, _ = _sd_blocks()
    hw = cfg["image"] // 8
    if published:
        return dm.DiffusionModel(cfg["image"], cfg["image"], cfg["text_len"], download_weights=False)
    blocks, n_layers, heads = cfg["unet_blocks"], cfg["unet_layers"], cfg["unet_head_dim"]
    n = len(blocks)
    context = keras.layers.Input((cfg["text_len"], cfg["text_hidden"]), name="context")
    t_in = keras.layers.Input((blocks[0],), name="timestep_embedding")
    latent = keras.layers.Input((hw, hw, cfg["latent_ch"]), name="latent")
    t = keras.layers.Dense(4 * blocks[0])(t_in)
    t = keras.layers.Activation("swish")(t)
    t = keras.layers.Dense(4 * blocks[0])(t)
    skips = []
    x = pconv.PaddedConv2D(blocks[0], kernel_size=3, padding=1)(latent)
    skips.append(x)
    for i, ch in enumerate(blocks):
        for _ in range(n_layers):
            x = dm.ResBlock(ch)([x, t])
            if i < n - 1:
                x = dm.SpatialTransformer(heads, ch // heads, fully_connected=False)([x, context])
            skips.append(x)
        if i < n - 1:
            x = pconv.PaddedConv2D(ch, 3, strides=2, padding=1)(x)
            skips.append(x)
    x = dm.ResBlock(blocks[-1])([x, t])
    x = dm.SpatialTransformer(heads, blocks[-1] // heads, fully_connected=False)([x, context])
    x = dm.ResBlock(blocks[-1])([x, t])
    for i in reversed(range(n)):
        ch = blocks[i]
        for _ in range(n_layers + 1):
            x = keras.layers.Concatenate()([x, skips.pop()])
            x = dm.ResBlock(ch)([x, t])
            if i < n - 1:
                x = dm.SpatialTransformer(heads, ch // heads, fully_connected=False)([x, context])
        if i > 0:
            x = dm.Upsample(ch)(x)
    x = keras.layers.GroupNormalization(epsilon=1e-5)(x)
    x = keras.layers.Activation("swish")(x)
    out = pconv.PaddedConv2D(cfg["latent_ch"], kernel_size=3, padding=1)(x)
    return keras.Model([latent, t_in, context], out)


def _build_sd_text(keras, cfg, published):
    _, _, _, _, _, te = _sd_blocks()
    if published:
        return te.TextEncoder(cfg["text_len"], vocab_size=cfg["text_vocab"], download_weights=False)
    tokens = keras.layers.Input((cfg["text_len"],), dtype="int32", name="tokens")
    positions = keras.layers.Input((cfg["text_len"],), dtype="int32", name="positions")
    x = te.CLIPEmbedding(cfg["text_vocab"], cfg["text_hidden"], cfg["text_len"])([tokens, positions])
    for _ in range(cfg["text_layers"]):
        x = te.CLIPEncoderLayer(cfg["text_hidden"], cfg["text_heads"], activation=te.quick_gelu)(x)
    x = keras.layers.LayerNormalization(epsilon=1e-5)(x)
    return keras.Model([tokens, positions], x)


def _plain_method(model, name):
    """model.<name>, skipping keras-nlp 0.8's PipelineModel override: with no
    preprocessor it only converts the inputs, and it fails on a dict of arrays
    (convert_to_tensor of a dict). keras-hub has no such class: there this is
    model.<name> itself."""
    for cls in type(model).__mro__:
        if cls.__name__ == "PipelineModel":
            return getattr(super(cls, model), name)
    return getattr(model, name)


# ------------------------------------------------------------------- setup

class _Env:
    """What every builder needs: the Keras module, its backend, XLA or not."""

    def __init__(self, cell):
        self.keras2 = _is_keras2(cell)
        self.keras, self.backend = _libs(self.keras2)
        self.jit = self.backend != "torch"
        self.published = method.of(cell) == method.PUBLISHED

    def adamw(self):
        return self.keras.optimizers.AdamW(learning_rate=method.LEARNING_RATE,
                                           weight_decay=method.ADAMW_WEIGHT_DECAY)

    def adam(self):
        return self.keras.optimizers.Adam(learning_rate=method.LEARNING_RATE)

    def scce(self):
        return self.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def _setup_bert(env, cell, cfg, data):
    _, model = _build_bert(env.keras2, cfg)
    x = {"token_ids": data["token_ids"], "segment_ids": data["segment_ids"],
         "padding_mask": data["padding_mask"]}
    model.compile(loss=env.scce(), optimizer=env.adamw(), jit_compile=env.jit)
    train_on_batch = _plain_method(model, "train_on_batch")
    predict_on_batch = _plain_method(model, "predict_on_batch")
    _state["model"] = model
    if cell.task == "fit":
        y = data["labels"]

        def step():
            np.asarray(train_on_batch(x, y))
        return step

    _state["window"] = (model, x)

    def step():
        np.asarray(predict_on_batch(x))
    return step


def _setup_llm_fit(env, cell, cfg, backbone, lm, data):
    backbone.enable_lora(rank=method.LORA_RANK)
    lm.compile(loss=env.scce(), optimizer=env.adamw(), weighted_metrics=[], sampler="greedy",
               jit_compile=env.jit)
    tok = data["tokens"]
    x = {"token_ids": np.ascontiguousarray(tok[:, :-1]), "padding_mask": np.ones(tok[:, :-1].shape, "int32")}
    y = np.ascontiguousarray(tok[:, 1:])
    train_on_batch = _plain_method(lm, "train_on_batch")

    def step():
        np.asarray(train_on_batch(x, y))
    return step


def _setup_llm_generate(env, cell, cfg, lm, data):
    keras = env.keras
    lm.compile(sampler="greedy", jit_compile=env.jit)
    prompt = data["prompt"]
    b, p = prompt.shape
    ids = np.zeros((b, cfg["total"]), "int32")
    ids[:, :p] = prompt
    mask = np.zeros((b, cfg["total"]), bool)
    mask[:, :p] = True
    inputs = {"token_ids": ids, "padding_mask": mask}

    # keras-hub stops at the preprocessor's end token unless told not to;
    # keras-nlp 0.8 has no stop_token_ids and, with no preprocessor, no end
    # token either: both run to the full length.
    # Published: generate(prompts, max_length=50) stopped at the
    # preprocessor's end token; here the end token is the backbone's EOS id
    # (Gemma 1, Mistral 2, as the torch models' configs).
    eos = {"gemma": 1, "mistral": 2}[cell.model]
    gen_kwargs = {}
    has_stop = "stop_token_ids" in inspect.signature(lm.generate).parameters
    if has_stop:
        gen_kwargs["stop_token_ids"] = (eos,) if env.published else None
    if env.published and not has_stop:
        # keras-nlp 0.8: generate() takes the end token from the
        # preprocessor (none here); its generate function takes it directly.
        fn = lm.make_generate_function()

        def generate(x):
            return fn(x, end_token_id=eos)
    else:
        generate = lm.generate
    # keras-nlp 0.8 on the torch backend runs generate uncompiled and hands
    # the NumPy token ids straight to the embedding layer, which Keras 3.0's
    # Layer.__call__ casts to the compute dtype: bfloat16 ids are rounded
    # (999 -> 1000: out of range). The compiled TF and JAX paths trace them
    # as int32. So there the step converts them to backend tensors first, as
    # the compiled paths effectively do.
    as_tensors = env.backend == "torch" and _keras_hub() is None

    # The generate.* facts (method.generate_stop): new tokens made, and
    # whether every sequence reached the end token before max_length.
    _state["stop"] = (p, cfg["total"] - p, eos if env.published else None)

    def step():
        x = ({k: keras.ops.convert_to_tensor(v) for k, v in inputs.items()} if as_tensors else inputs)
        out = generate(x, **gen_kwargs)
        ids = np.asarray(out["token_ids"])
        _state["tokens"] = list(ids.shape)
        _state["generated"] = ids
    return step


def _setup_llm(env, cell, cfg, data):
    backbone, lm = _build_llm(cell.model, cfg)
    _state["model"] = lm
    if cell.task == "fit":
        return _setup_llm_fit(env, cell, cfg, backbone, lm, data)
    return _setup_llm_generate(env, cell, cfg, lm, data)


def _setup_encoder_fit(env, enc, data, default_jit=False):
    """SD and SAM fit: an image encoder trained to random targets (MSE, Adam).
    default_jit: compile without jit_compile, leaving XLA to the framework's
    default, as the published SD fit did (off on Keras 2, on for Keras 3
    TensorFlow and JAX)."""
    if default_jit:
        enc.compile(loss="mse", optimizer=env.adam())
    else:
        enc.compile(loss="mse", optimizer=env.adam(), jit_compile=env.jit)
    images, targets = data["images"], data["targets"]
    if env.published:
        # The original fed np.random.rand batches, float64, through an
        # uncached tf.data (sam/keras/fit.py:10-22,
        # stable_diffusion/keras/fit.py:10-22): each step converts a float64
        # batch and casts it to the model's dtype (method.choices: fit_inputs).
        images, targets = images.astype("float64"), targets.astype("float64")
    _state["model"] = enc
    _state["fit_inputs_dtype"] = str(images.dtype)

    def step():
        np.asarray(enc.train_on_batch(images, targets))
    return step


def _setup_sd(env, cell, cfg, data):
    keras, published = env.keras, cell.size == "published"
    if cell.task == "fit":
        return _setup_encoder_fit(env, _build_sd_encoder(keras, cfg, published), data, default_jit=env.published)
    unet = _build_sd_unet(keras, cfg, published)
    te = _build_sd_text(keras, cfg, published)
    unet.compile(jit_compile=env.jit)
    te.compile(jit_compile=env.jit)
    b = data["latents"].shape[0]
    pos = np.repeat(np.arange(cfg["text_len"], dtype="int32")[None], b, axis=0)
    cond = np.asarray(te.predict_on_batch({"tokens": data["prompt_tokens"], "positions": pos}))
    uncond = np.asarray(te.predict_on_batch({"tokens": data["negative_tokens"], "positions": pos}))
    context = np.concatenate([uncond, cond]).astype("float32")
    _, timesteps, _ = method.ddim_schedule(cfg)
    tdim = cfg["unet_blocks"][0]
    temb = [method.timestep_embedding(np, t, tdim, 2 * b) for t in timesteps]
    guidance = cfg["guidance"]

    if env.published:
        # keras-cv's generate_image: two UNet calls of the batch per step,
        # unconditional then conditional.
        temb_b = [t[:b] for t in temb]
        uncond_ctx, cond_ctx = context[:b], context[b:]

        def eps_fn(lat, i):
            u = np.asarray(unet.predict_on_batch({"latent": lat, "timestep_embedding": temb_b[i],
                                                  "context": uncond_ctx}), dtype="float32")
            c = np.asarray(unet.predict_on_batch({"latent": lat, "timestep_embedding": temb_b[i],
                                                  "context": cond_ctx}), dtype="float32")
            return method.guide(u, c, guidance)
    else:
        def eps_fn(lat, i):
            e = np.asarray(unet.predict_on_batch({"latent": np.concatenate([lat, lat]),
                                                  "timestep_embedding": temb[i], "context": context}),
                           dtype="float32")
            return method.guide(e[:b], e[b:], guidance)
    calls = {"unet": 0, "steps": 0}
    predict_unet = unet.predict_on_batch

    def counted(x):
        calls["unet"] += 1
        return predict_unet(x)
    unet.predict_on_batch = counted
    _state["calls"] = calls
    loop = method.Denoiser(cfg, np.asarray(data["latents"], dtype="float32"), eps_fn)
    _state["model"] = unet
    _state["extra_params"] = te.count_params()
    _state["extra_models"] = [te]

    def step():
        loop.step()
        calls["steps"] += 1
    return step


def _setup_sam(env, cell, cfg, data):
    enc, sam = _build_sam(env.keras2, cfg, full=cell.task != "fit")
    if cell.task == "fit":
        return _setup_encoder_fit(env, enc, data)
    _state["sam.positional_encoding"] = "the compute dtype (Keras' own)"
    images = data["images"]
    if env.published:
        # backbone.compile(jit_compile=...), then predict on the full model,
        # which stays uncompiled: XLA is the framework's default there.
        enc.compile(jit_compile=env.jit)
    else:
        sam.compile(jit_compile=env.jit)
    b = images.shape[0]
    inputs = {"images": images,
              "points": np.repeat(np.asarray(data["points"], "float32"), b, axis=0),
              "labels": np.repeat(np.asarray(data["labels"], "float32"), b, axis=0)}
    # keras-hub's SAMImageSegmenter (and keras-cv's SAM) predict_step fills in
    # absent prompts but breaks on the (state, data) / (data,) tuple it is
    # called with by predict_on_batch; give every prompt input (no boxes, no
    # masks) and use the plain Keras predict_step.
    grid4 = 4 * (cfg["image"] // cfg["patch"])
    inputs["boxes"] = np.zeros((b, 0, 2, 2), "float32")
    inputs["masks"] = np.zeros((b, 0, grid4, grid4, 1), "float32")
    sam.predict_step = super(type(sam), sam).predict_step
    _state["model"] = sam
    _state["window"] = (sam, inputs)

    def step():
        out = sam.predict_on_batch(inputs)
        for v in (out.values() if isinstance(out, dict) else [out]):
            np.asarray(v)
    return step


BUILDERS = {"bert": _setup_bert, "gemma": _setup_llm, "mistral": _setup_llm, "sd": _setup_sd, "sam": _setup_sam}


def _keep_on_host(cell):
    """device: cpu (plan/device.h): the frameworks place nothing on a GPU,
    even where they see one. Before Keras imports its backend."""
    if getattr(cell, "device", None) != "cpu":
        return
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ["KERAS_TORCH_DEVICE"] = "cpu"
    if _is_keras2(cell) or os.environ.get("KERAS_BACKEND") == "tensorflow":
        import tensorflow as tf
        try:
            tf.config.set_visible_devices([], "GPU")
        except (RuntimeError, ValueError):
            pass  # already initialised: the device guard will say where it ran


def _tf_memory_growth(cell):
    """TensorFlow beside JAX or torch (Keras 3 imports it for keras-hub /
    keras-cv) would map every GPU's memory when it first touches one, leaving
    the backend that runs the cell short: TF allocates on demand there. Set
    before anything imports TensorFlow; a value the caller set is kept."""
    if _is_keras2(cell) or cell.backend.endswith("-tensorflow"):
        return None
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    return os.environ["TF_FORCE_GPU_ALLOW_GROWTH"]


def setup(cell, data):
    growth = _tf_memory_growth(cell)
    _keep_on_host(cell)
    env = _Env(cell)
    cfg = sizes.get(cell)
    env.keras.utils.set_random_seed(cell.seed % (2 ** 32))  # weights only; inputs come from C
    _set_policy(env.keras, env.keras2, cell.precision)

    st = _state
    st.clear()
    st.update(keras2=env.keras2, backend=env.backend, jit=env.jit, tf_growth=growth)
    _benchgen.mark("build")
    builder = BUILDERS.get(cell.model)
    if builder is None:
        raise ValueError(f"no Keras workload for {cell.model}/{cell.task}")
    step = builder(env, cell, cfg, data)
    _benchgen.mark("built")
    st["ninputs"] = len(data)
    return memory.after_setup(step)  # memory.* facts: resident bytes after setup and the first step


def window(cell):
    """The original's timing window, for the published cells that had one
    (method.timed_as_window: Keras 3 BERT and SAM predict): model.predict
    over steps + 1 batches with a callback that reads the clock as batch 1
    begins (marker window.begin) and as the last batch ends (window.end),
    as benchmark/keras_utils.py:9-48 did with time.time(); nothing waits
    for the device between (Keras 3.0.5 hands callbacks the outputs
    unconverted), and predict fetches the outputs after the window. The
    batches come from a tf.data dataset of the one batch, repeated (the
    original's BERT dataset was cached in memory), or a generator where
    TensorFlow is missing. The report derives ms/step as the original did:
    the window over its `window.calls` calls."""
    st = _state
    if st.get("window") is None or not method.timed_as_window(cell.model, cell.task, cell.backend,
                                                              method.of(cell)):
        return
    model, x = st["window"]
    keras, _ = _libs(False)
    n = cell.steps

    class Window(keras.callbacks.Callback):
        def on_predict_batch_begin(self, batch, logs=None):
            if batch == 1:
                _benchgen.mark("window.begin")

        def on_predict_batch_end(self, batch, logs=None):
            if batch == n:
                _benchgen.mark("window.end")
    try:
        import tensorflow as tf
        feed = tf.data.Dataset.from_tensors(x).repeat(n + 1)
        st["window_feed"] = "tf.data: the one batch, repeated"
    except ImportError:
        def batches():
            for _ in range(n + 1):
                yield x
        feed = batches()
        st["window_feed"] = "a Python generator of the one batch (no TensorFlow here)"
    model.predict(feed, callbacks=[Window()])
    st["window_calls"] = n


def placement(cell):
    """Where the weights live, and where Keras puts the step's NumPy inputs
    (it converts them every step: a converted probe shows where), with why
    the framework sees no GPU (workloads/placement.py)."""
    from workloads import placement as guard
    st = _state
    keras, backend = _libs(st.get("keras2", _is_keras2(cell)))
    weights = []
    for m in [st.get("model")] + list(st.get("extra_models", [])):
        for w in (getattr(m, "weights", None) or []) if m is not None else []:
            v = getattr(w, "value", w)
            if callable(v):  # tf.keras (Keras 2): a tf.Variable, whose value() is a method
                v = w
            weights.append((guard.array_device(v), int(np.prod(w.shape))))
    probe = np.zeros((1,), "float32")
    if st.get("keras2"):
        import tensorflow as tf
        landed = guard.array_device(tf.identity(tf.convert_to_tensor(probe)))
    else:
        landed = guard.array_device(keras.ops.convert_to_tensor(probe))
    env = cell.env or ("keras2" if st.get("keras2") else "keras3")
    if backend == "jax":
        import jax
        why = guard.jax_no_gpu(jax, env)
    elif backend == "tensorflow":
        import tensorflow as tf
        why = guard.tf_no_gpu(tf, env)
    else:
        import torch
        why = guard.torch_no_gpu(torch, env)
    return {"model": guard.tally(weights), "inputs": {landed: st.get("ninputs", 1)}, "gpu": why}


def facts(cell):
    st = _state
    keras2 = st.get("keras2", _is_keras2(cell))
    keras, backend = _libs(keras2)
    version = getattr(keras, "__version__", None)
    if version is None:
        import importlib.metadata
        version = importlib.metadata.version("keras")
    out = {"framework": "keras2" if keras2 else "keras3", "keras.version": version,
           "keras.backend": backend, "precision": cell.precision}
    try:
        pol = keras.mixed_precision.global_policy() if keras2 else keras.config.dtype_policy()
        out["dtype_policy"] = pol.name
    except Exception as e:  # facts must never fail a finished cell
        out["dtype_policy"] = f"unknown ({e})"
    model = st.get("model")
    if model is not None:
        out["parameters"] = int(model.count_params()) + int(st.get("extra_params", 0))
        try:
            out["parameters.trainable"] = int(sum(int(np.prod(w.shape)) for w in model.trainable_weights))
        except Exception:
            pass
        out["jit_compile"] = bool(getattr(model, "jit_compile", False))
    if not st.get("jit"):
        out["compile"] = "none (jit_compile=False, as published)"
    elif out.get("jit_compile", True):
        out["compile"] = "XLA (jit_compile=True)"
    else:
        out["compile"] = "none (the framework's default: no XLA)"
    out["compile.took_effect"] = bool(out.get("jit_compile", False))
    if backend == "tensorflow":
        import tensorflow as tf
        out["tensorflow.version"] = tf.__version__
        out["tf32.matmul"] = bool(tf.config.experimental.tensor_float_32_execution_enabled())
        gpus = tf.config.list_physical_devices("GPU")
        out["device"] = "gpu" if gpus else "cpu"
        if gpus:
            try:
                out["device.name"] = tf.config.experimental.get_device_details(gpus[0]).get("device_name", "")
            except Exception:
                pass
        out["tf.memory_growth"] = ("on (TF_FORCE_GPU_ALLOW_GROWTH=true)"
                                   if os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH") == "true"
                                   else "off: TensorFlow maps the GPU's memory when it starts")
        out["synchronisation"] = "step result fetched as NumPy (waits for the device)"
        out.update(autotune.tensorflow_facts())
    elif backend == "jax":
        import jax
        out["jax.version"] = jax.__version__
        out["jax.default_matmul_precision"] = str(jax.config.jax_default_matmul_precision)
        out["tf32.matmul"] = ("default: TF32 on Ampere+ GPUs" if jax.config.jax_default_matmul_precision is None
                              else str(jax.config.jax_default_matmul_precision))
        out["device"] = jax.devices()[0].platform
        if out["device"] == "gpu":
            out["device.name"] = getattr(jax.devices()[0], "device_kind", "")
        out["synchronisation"] = "step result fetched as NumPy (blocks until ready)"
        out.update(autotune.jax_facts())
    elif backend == "torch":
        import torch
        out["torch.version"] = torch.__version__
        out["tf32.matmul"] = bool(torch.backends.cuda.matmul.allow_tf32)
        out["tf32.cudnn"] = bool(torch.backends.cudnn.allow_tf32)
        out.update(autotune.torch_facts(torch))
        out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
        out["device"] = "cuda" if torch.cuda.is_available() else "cpu"
        if out["device"] == "cuda":
            out["device.name"] = torch.cuda.get_device_name(0)
        out["synchronisation"] = "step result fetched as NumPy (copies to host, waits for CUDA)"
    if st.get("tokens") is not None:
        out["generate.output_shape"] = st["tokens"]
    if st.get("generated") is not None:
        out.update(method.generate_stop(st["generated"].tolist(), *st["stop"]))
    calls = st.get("calls")
    if calls and calls["steps"]:
        out["sd.unet_calls_per_step"] = calls["unet"] / calls["steps"]
    if st.get("sam.positional_encoding"):
        out["sam.positional_encoding"] = st["sam.positional_encoding"]
    if st.get("window_calls"):
        out["window.calls"] = st["window_calls"]
        out["window.first_batch"] = 1
        out["window.feed"] = st["window_feed"]
    if st.get("fit_inputs_dtype"):
        out["inputs.fed_dtype"] = st["fit_inputs_dtype"]
    if st.get("tf_growth") is not None:
        out["tf.memory_growth"] = (f"TF_FORCE_GPU_ALLOW_GROWTH={st['tf_growth']}, set where TensorFlow is "
                                   f"imported beside {backend}")
    # *_on_batch and generate take NumPy arrays: every call converts them
    # (on a GPU, copies them to the device); SD predict's UNet calls too.
    out["inputs.host_to_device"] = "every step (NumPy inputs to every train_on_batch / predict_on_batch / generate call)"
    out["step"] = METHOD.get(cell.task, "")
    out.update(memory.facts())
    out.update(method.facts(cell))
    return out


METHOD = {
    "fit": "one optimizer step on one batch (train_on_batch)",
    "predict": "one forward pass on one batch (predict_on_batch; SD: one CFG denoising step)",
    "generate": "one generate call, greedy (generate.* facts: the new tokens made and whether it stopped at EOS)",
}

import numpy as np  # noqa: E402  (NumPy is cheap and every Keras env has it)
