"""Synthetic inputs of the built-in models, declared once for every backend.

for_cell(cell) depends only on cell.model, .task, .batch and .size, so every
backend receives byte-identical data from the C generator. Images are NHWC
float32 (a channels-first framework transposes), token ids int32. Shapes
come from sizes.SIZES.

What each model gets (B = batch):
  bert  fit: token_ids, segment_ids (zeros), padding_mask (ones), labels;
        predict: the same without labels.
  gemma, mistral  fit: tokens (B, seq+1): inputs are tokens[:, :-1], targets
        tokens[:, 1:]; generate: prompt (B, prompt) generated to `total` tokens.
  sd    fit: images (B, H, W, 3) in [-1, 1), targets (B, H/8, W/8, 8);
        predict: latents (B, H/8, W/8, 4), prompt tokens (B, 77) and the
        negative prompt's tokens (B, 77) for classifier-free guidance.
  sam   fit: images (B, H, W, 3) in [0, 1), targets (B, H/16, W/16, C);
        predict: images, points (1, N, 2) and labels (1, N): one prompt shared
        by the batch, as the benchmark's PyTorch predict did.
"""

from workloads import sizes


def _tokens(name, shape, vocab):
    return {"name": name, "dtype": "int32", "shape": list(shape), "dist": "uniform",
            "low": sizes.FIRST_ORDINARY_TOKEN, "high": vocab}


def _const(name, shape, value, dtype="int32"):
    return {"name": name, "dtype": dtype, "shape": list(shape), "dist": "const", "low": value, "high": value}


def _uniform(name, shape, low, high, dtype="float32"):
    return {"name": name, "dtype": dtype, "shape": list(shape), "dist": "uniform", "low": low, "high": high}


def _normal(name, shape):
    return {"name": name, "dtype": "float32", "shape": list(shape), "dist": "normal", "low": 0.0, "high": 1.0}


def for_cell(cell):
    cfg = sizes.get(cell)
    b = cell.batch
    model, task = cell.model, cell.task
    if model == "bert":
        shape = (b, cfg["seq"])
        out = [_tokens("token_ids", shape, cfg["vocab"]), _const("segment_ids", shape, 0),
               _const("padding_mask", shape, 1)]
        if task == "fit":
            out.append(_uniform("labels", (b,), 0, cfg["classes"], dtype="int32"))
        return out
    if model in ("gemma", "mistral"):
        if task == "fit":
            return [_tokens("tokens", (b, cfg["seq"] + 1), cfg["vocab"])]
        return [_tokens("prompt", (b, cfg["prompt"]), cfg["vocab"])]
    if model == "sd":
        h = cfg["image"]
        if task == "fit":
            return [_uniform("images", (b, h, h, 3), -1.0, 1.0),
                    _normal("targets", (b, h // 8, h // 8, 2 * cfg["latent_ch"]))]
        return [_normal("latents", (b, h // 8, h // 8, cfg["latent_ch"])),
                _tokens("prompt_tokens", (b, cfg["text_len"]), cfg["text_vocab"]),
                _const("negative_tokens", (b, cfg["text_len"]), cfg["text_vocab"] - 1)]
    if model == "sam":
        h = cfg["image"]
        grid = h // cfg["patch"]
        if task == "fit":
            return [_uniform("images", (b, h, h, 3), 0.0, 1.0),
                    _normal("targets", (b, grid, grid, cfg["out_ch"]))]
        return [_uniform("images", (b, h, h, 3), 0.0, 1.0),
                _uniform("points", (1, cfg["points"], 2), 0.0, float(h)),
                _uniform("labels", (1, cfg["points"]), 0, 2, dtype="int32")]
    raise KeyError(f"no built-in inputs for model {model!r}")
