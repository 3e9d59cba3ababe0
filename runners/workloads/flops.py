"""Analytic FLOPs per step of the built-in models (docs/GPU.md, "FLOPs").

A FLOP here is one multiply or one add of a matrix product or convolution:
a (M x K) @ (K x N) product is 2*M*N*K, a convolution 2*out_elements*Cin*kh*kw.
Normalisations, activations, softmax, bias and residual adds, embedding
lookups, optimizer updates and the DDIM update are not counted: they are
memory-bound and small, and torch.utils.flop_counter.FlopCounterMode (the
cross-check, tests/flops/) does not count them either.

Per task (B = the cell's batch):
  predict   one forward pass (SD: the UNet on 2B latents, classifier-free
            guidance, one denoising step; SAM: image encoder, prompt
            encoder's dense positional encoding and mask decoder).
  fit       forward + backward. A weight's backward costs one product for
            its gradient when it is trained, and one for its input's
            gradient when something below it is trained; so full training
            is 3x forward but for the first layer (no gradient to the
            image), and LoRA (rank 4 on the query and value projections of
            Gemma and Mistral) is about 2x forward: frozen weights get no
            gradient, layer 0's projections need no input gradient, and the
            LoRA factors are counted as the small products they are.
            Fused attention's backward counts 2x its forward.
  generate  the useful work of a KV-cached generate: a prefill over the
            prompt then one token at a time to `total` tokens, attention over
            the tokens so far, logits for the last position only. A backend
            that pads to the full length (Keras) does more arithmetic than
            this; MFU counts only the useful part. facts() also gives
            flops.per_token (per generated token).

facts(cell) returns flops.per_step (and flops.forward, flops.per_token);
count(model, task, size, batch) is the same for tests.
"""

from workloads import sizes

LORA_RANK = 4


class _Count:
    """Forward and backward FLOPs of a step."""

    def __init__(self, train):
        self.train = train
        self.fwd = 0
        self.bwd = 0
        self.convs = 0  # forward + backward FLOPs of convolutions (for TF32: cuDNN's switch)

    def weight(self, flops, trained=True, grad_in=True):
        """A product with a weight (linear or convolution)."""
        self.fwd += flops
        if self.train:
            self.bwd += flops * (int(trained) + int(grad_in))

    def conv(self, flops, trained=True, grad_in=True):
        """A convolution (a product with a weight that cuDNN runs)."""
        before = self.fwd + self.bwd
        self.weight(flops, trained, grad_in)
        self.convs += self.fwd + self.bwd - before

    def act(self, flops):
        """A product of two activations (attention scores, attention x values)."""
        self.fwd += flops
        if self.train:
            self.bwd += 2 * flops


def _conv(n, cin, cout, h, w, k):
    """A k x k convolution to an h x w output."""
    return 2 * n * h * w * cout * cin * k * k


# ---- BERT -------------------------------------------------------------------

def _bert(c, cfg, b):
    L, H, F = cfg["seq"], cfg["hidden"], cfg["ffn"]
    t = b * L
    for _ in range(cfg["layers"]):
        for _ in range(4):  # query, key, value, output
            c.weight(2 * t * H * H)
        c.act(2 * b * L * L * H)  # scores
        c.act(2 * b * L * L * H)  # x values
        c.weight(2 * t * H * F)
        c.weight(2 * t * F * H)
    c.weight(2 * b * H * H)  # pooler, on the first token
    c.weight(2 * b * H * cfg["classes"])


# ---- Gemma, Mistral ---------------------------------------------------------

def _llm_dims(model, cfg):
    heads, kv = cfg["heads"], cfg["kv_heads"]
    hd = cfg.get("head_dim") or cfg["hidden"] // heads
    return cfg["hidden"], heads * hd, kv * hd, cfg["ffn"], hd


def _llm_layer(c, model, cfg, t, ctx_pairs, first, lora):
    """One decoder layer over t tokens; ctx_pairs = sum over query tokens of
    the keys each attends to (b * L * L for full causal-free counting)."""
    H, Q, KV, F, _ = _llm_dims(model, cfg)
    gin = not first  # layer 0's input (the frozen embedding) needs no gradient
    frozen = lora
    c.weight(2 * t * H * Q, trained=not frozen, grad_in=gin)   # q_proj
    c.weight(2 * t * H * KV, trained=not frozen, grad_in=gin)  # k_proj
    c.weight(2 * t * H * KV, trained=not frozen, grad_in=gin)  # v_proj
    if lora:
        for out in (Q, KV):  # LoRA on q_proj and v_proj: x @ A (H x r), then @ B (r x out)
            c.weight(2 * t * H * LORA_RANK, trained=True, grad_in=gin)
            c.weight(2 * t * LORA_RANK * out, trained=True, grad_in=True)
    c.act(2 * ctx_pairs * Q)  # scores: every query head over its keys (GQA shares keys, not work)
    c.act(2 * ctx_pairs * Q)  # x values
    c.weight(2 * t * Q * H, trained=not frozen)  # o_proj
    c.weight(2 * t * H * F, trained=not frozen)  # gate
    c.weight(2 * t * H * F, trained=not frozen)  # up
    c.weight(2 * t * F * H, trained=not frozen)  # down


def _llm_fit(c, model, cfg, b):
    L = cfg["seq"]  # inputs are tokens[:, :-1]: seq tokens
    t = b * L
    # Causal attention: the fused kernels skip the masked half, but what
    # FlopCounterMode and the kernels' own accounting count is the full
    # L x L product (is_causal is a mask, not less arithmetic in the count).
    for i in range(cfg["layers"]):
        _llm_layer(c, model, cfg, t, b * L * L, i == 0, lora=True)
    c.weight(2 * t * cfg["hidden"] * cfg["vocab"], trained=False)  # LM head, frozen


def _llm_generate(c, model, cfg, b):
    P, total = cfg["prompt"], cfg["total"]
    H, V = cfg["hidden"], cfg["vocab"]
    # prefill over the prompt
    for i in range(cfg["layers"]):
        _llm_layer(c, model, cfg, b * P, b * P * P, i == 0, lora=False)
    c.weight(2 * b * H * V)  # logits of the last position
    # then one token at a time: token j (j = 1..total-P-1) attends to P + j keys
    for j in range(1, total - P):
        for i in range(cfg["layers"]):
            _llm_layer(c, model, cfg, b, b * (P + j), i == 0, lora=False)
        c.weight(2 * b * H * V)


# ---- Stable Diffusion ----------------------------------------------------------

def _resnet(c, n, cin, cout, r, temb=None):
    c.conv(_conv(n, cin, cout, r, r, 3))
    if temb:
        c.weight(2 * n * temb * cout)  # time embedding projection
    c.conv(_conv(n, cout, cout, r, r, 3))
    if cin != cout:
        c.conv(_conv(n, cin, cout, r, r, 1))


def _self_attn(c, n, ch, tokens):
    for _ in range(4):
        c.weight(2 * n * tokens * ch * ch)
    c.act(2 * n * tokens * tokens * ch)
    c.act(2 * n * tokens * tokens * ch)


def _vae_encoder(c, cfg, b):
    blocks, layers, r = cfg["vae_blocks"], cfg["vae_layers"], cfg["image"]
    c.conv(_conv(b, 3, blocks[0], r, r, 3), grad_in=False)  # conv_in: no gradient to the image
    cin = blocks[0]
    for i, cout in enumerate(blocks):
        for k in range(layers):
            _resnet(c, b, cin if k == 0 else cout, cout, r)
        cin = cout
        if i < len(blocks) - 1:
            r //= 2
            c.conv(_conv(b, cout, cout, r, r, 3))  # downsample, stride 2
    ch = blocks[-1]
    _resnet(c, b, ch, ch, r)
    _self_attn(c, b, ch, r * r)  # mid-block attention, one head
    _resnet(c, b, ch, ch, r)
    c.conv(_conv(b, ch, 2 * cfg["latent_ch"], r, r, 3))  # conv_out: mean and log-variance


def _transformer(c, n, ch, r, text_len, text_hidden):
    t = r * r
    c.weight(2 * n * t * ch * ch)  # proj_in (1x1)
    _self_attn(c, n, ch, t)
    c.weight(2 * n * t * ch * ch)  # cross-attention query
    c.weight(2 * n * text_len * text_hidden * ch)  # key
    c.weight(2 * n * text_len * text_hidden * ch)  # value
    c.act(2 * n * t * text_len * ch)
    c.act(2 * n * t * text_len * ch)
    c.weight(2 * n * t * ch * ch)  # cross-attention output
    c.weight(2 * n * t * ch * 8 * ch)  # GEGLU: ch -> 2 x 4ch
    c.weight(2 * n * t * 4 * ch * ch)
    c.weight(2 * n * t * ch * ch)  # proj_out


def _unet(c, cfg, n):
    blocks, layers = cfg["unet_blocks"], cfg["unet_layers"]
    r = cfg["image"] // 8
    tl, th = cfg["text_len"], cfg["text_hidden"]
    temb = 4 * blocks[0]
    c.weight(2 * n * blocks[0] * temb)  # time embedding MLP
    c.weight(2 * n * temb * temb)
    c.conv(_conv(n, cfg["latent_ch"], blocks[0], r, r, 3))
    skips = [(blocks[0], r)]
    cin = blocks[0]
    last = len(blocks) - 1
    for i, cout in enumerate(blocks):
        for _ in range(layers):
            _resnet(c, n, cin, cout, r, temb)
            if i < last:  # CrossAttnDownBlock2D, then a plain DownBlock2D
                _transformer(c, n, cout, r, tl, th)
            cin = cout
            skips.append((cout, r))
        if i < last:
            r //= 2
            c.conv(_conv(n, cout, cout, r, r, 3))
            skips.append((cout, r))
    ch = blocks[-1]
    _resnet(c, n, ch, ch, r, temb)
    _transformer(c, n, ch, r, tl, th)
    _resnet(c, n, ch, ch, r, temb)
    rev = list(reversed(blocks))
    prev = ch
    for j, cout in enumerate(rev):
        for k in range(layers + 1):
            skip_ch, _ = skips.pop()
            _resnet(c, n, (prev if k == 0 else cout) + skip_ch, cout, r, temb)
            if j > 0:  # UpBlock2D first, then CrossAttnUpBlock2D
                _transformer(c, n, cout, r, tl, th)
        prev = cout
        if j < last:
            r *= 2
            c.conv(_conv(n, cout, cout, r, r, 3))  # upsample: nearest, then a 3x3 conv
    c.conv(_conv(n, blocks[0], cfg["latent_ch"], r, r, 3))


# ---- SAM ---------------------------------------------------------------------

def _vit_attention(c, n, D, h, w):
    """segment-anything's Attention over an h x w grid (n grids), with
    decomposed relative positions: two einsums of q with the h- and
    w-position tables."""
    t = h * w
    c.weight(2 * n * t * D * 3 * D)  # qkv
    c.act(2 * n * t * t * D)  # scores
    c.act(2 * n * t * h * D)  # rel-pos einsum over h (q x trained table)
    c.act(2 * n * t * w * D)  # and over w
    c.act(2 * n * t * t * D)  # x values
    c.weight(2 * n * t * D * D)  # proj


def _sam_encoder(c, cfg, b):
    D, p, g = cfg["width"], cfg["patch"], cfg["image"] // cfg["patch"]
    c.conv(_conv(b, 3, D, g, g, p), grad_in=False)  # patch embedding: no gradient to the image
    win = cfg["window"]
    padded = -(-g // win) * win
    nwin = (padded // win) ** 2
    for i in range(cfg["depth"]):
        if i in cfg["global_attn"]:
            _vit_attention(c, b, D, g, g)
        else:  # windows over the grid padded to a multiple of the window
            _vit_attention(c, b * nwin, D, win, win)
        c.weight(2 * b * g * g * D * cfg["mlp"])
        c.weight(2 * b * g * g * cfg["mlp"] * D)
    c.conv(_conv(b, D, cfg["out_ch"], g, g, 1))  # neck
    c.conv(_conv(b, cfg["out_ch"], cfg["out_ch"], g, g, 3))


def _attn(c, b, nq, nk, dim, internal):
    """segment-anything's mask-decoder Attention, b times: q from nq tokens,
    k and v from nk tokens, projected to `internal` channels and back."""
    c.weight(2 * b * nq * dim * internal)
    c.weight(2 * b * nk * dim * internal)
    c.weight(2 * b * nk * dim * internal)
    c.act(2 * b * nq * nk * internal)
    c.act(2 * b * nq * nk * internal)
    c.weight(2 * b * nq * internal * dim)


def _sam_decoder(c, cfg, b):
    E, g = cfg["out_ch"], cfg["image"] // cfg["patch"]
    img = g * g
    # dense positional encoding of the grid: (g*g, 2) @ (2, E/2)
    c.weight(2 * img * 2 * (E // 2))
    # sparse prompt: the points plus one padding point, encoded the same way
    npts = cfg["points"] + 1
    c.weight(2 * npts * 2 * (E // 2))
    nmask = 4  # 1 + num_multimask_outputs
    tokens = 1 + nmask + npts  # IoU token, mask tokens, prompt tokens
    half = E // 2  # attention_downsample_rate = 2 for the cross-attentions
    for layer in range(cfg["dec_depth"]):
        _attn(c, b, tokens, tokens, E, E)  # token self-attention
        _attn(c, b, tokens, img, E, half)  # tokens to image
        c.weight(2 * b * tokens * E * cfg["dec_mlp"])
        c.weight(2 * b * tokens * cfg["dec_mlp"] * E)
        _attn(c, b, img, tokens, E, half)  # image to tokens
    _attn(c, b, tokens, img, E, half)  # final tokens to image
    # output upscaling: two 2x2 stride-2 transposed convolutions
    c.conv(2 * b * (2 * g) ** 2 * (E // 4) * E)
    c.conv(2 * b * (4 * g) ** 2 * (E // 8) * (E // 4))
    for _ in range(nmask):  # hypernetwork MLPs, one per mask token
        c.weight(2 * b * E * E)
        c.weight(2 * b * E * E)
        c.weight(2 * b * E * (E // 8))
    c.act(2 * b * nmask * (E // 8) * (4 * g) ** 2)  # masks = hyper_in @ upscaled
    hid = cfg["iou_hidden"]
    c.weight(2 * b * E * hid)  # IoU head
    c.weight(2 * b * hid * hid)
    c.weight(2 * b * hid * nmask)


# ---- entry points -------------------------------------------------------------

def count(model, task, size, batch):
    """(forward FLOPs, FLOPs per step) of one step; None for an unknown model."""
    c = _count(model, task, size, batch)
    return None if c is None else (c.fwd, c.fwd + c.bwd)


def _count(model, task, size, batch):
    if model == "mlp":  # the NumPy reference (workloads/numpy_ref.py)
        from workloads.numpy_ref import SIZES as MLP
        if size not in MLP:
            return None
        d, h, k = MLP[size]
        c = _Count(train=task == "fit")
        c.weight(2 * batch * d * h, grad_in=False)
        c.weight(2 * batch * h * k)
        return c
    cfg = sizes.SIZES.get(model, {}).get(size)
    if cfg is None:
        return None
    c = _Count(train=task == "fit")
    if model == "bert":
        _bert(c, cfg, batch)
    elif model in ("gemma", "mistral"):
        if task == "fit":
            _llm_fit(c, model, cfg, batch)
        else:
            _llm_generate(c, model, cfg, batch)
    elif model == "sd":
        if task == "fit":
            _vae_encoder(c, cfg, batch)
        else:
            _unet(c, cfg, 2 * batch)  # classifier-free guidance: conditioned and not
    elif model == "sam":
        _sam_encoder(c, cfg, batch)
        if task != "fit":
            _sam_decoder(c, cfg, batch)
    else:
        return None
    return c


def facts(cell):
    c = _count(cell.model, cell.task, cell.size, cell.batch)
    if c is None:
        return {}
    fwd, step = c.fwd, c.fwd + c.bwd
    out = {"flops.per_step": step, "flops.forward": fwd,
           # the share cuDNN runs (its TF32 switch differs from the matmuls')
           "flops.conv_share": round(c.convs / step, 4) if step else 0.0,
           "flops.counting": "analytic: matrix products and convolutions, 2 per multiply-add "
                             "(runners/workloads/flops.py)"}
    if cell.task == "generate":
        cfg = sizes.SIZES[cell.model][cell.size]
        out["flops.per_token"] = step // (cell.batch * (cfg["total"] - cfg["prompt"]))
    return out
