"""The two sizes of every built-in model: `published` (what the 2024 Keras 3
benchmark ran) and `tiny` (the same architecture shrunk so a step runs on two
CPU cores in well under a second).

One table serves every framework family, so the torch and Keras workloads
build the same architecture from the same numbers and inputs.py declares
matching input shapes. Values for the published sizes come from the released
configs (bert-base-cased, gemma-7b, Mistral-7B-v0.1, SD v1.4, SAM ViT-H); see
the project notes on building the models offline (shared/research/models.md) for where each number was checked.
"""

SIZES = {
    "bert": {
        # BERT-base cased, 2-class classifier, sequence 512.
        "published": dict(vocab=28996, layers=12, heads=12, hidden=768, ffn=3072, max_pos=512,
                          segments=2, seq=512, classes=2),
        "tiny": dict(vocab=1000, layers=2, heads=2, hidden=32, ffn=64, max_pos=64,
                     segments=2, seq=32, classes=2),
    },
    "gemma": {
        # Gemma 7B. `ffn` is HF's intermediate_size; keras' intermediate_dim is
        # twice it (keras counts both gate branches).
        "published": dict(vocab=256000, layers=28, heads=16, kv_heads=16, head_dim=256, hidden=3072,
                          ffn=24576, seq=128, prompt=6, total=50),
        "tiny": dict(vocab=1000, layers=2, heads=4, kv_heads=1, head_dim=8, hidden=32,
                     ffn=32, seq=32, prompt=6, total=50),
    },
    "mistral": {
        # Mistral-7B-v0.1 (rms eps 1e-5 as in the checkpoint).
        "published": dict(vocab=32000, layers=32, heads=32, kv_heads=8, hidden=4096, ffn=14336,
                          window=4096, rope=10000.0, eps=1e-5, seq=128, prompt=6, total=50),
        "tiny": dict(vocab=1000, layers=2, heads=4, kv_heads=2, hidden=32, ffn=64,
                     window=128, rope=10000.0, eps=1e-5, seq=32, prompt=6, total=50),
    },
    "sd": {
        # Stable Diffusion v1.4 at 512x512: latent 64x64x4, CLIP text 77x768.
        # fit trains the VAE image encoder (output 8 channels = mean and logvar).
        "published": dict(image=512, latent_ch=4, text_len=77, text_vocab=49408, text_hidden=768,
                          text_layers=12, text_heads=12, text_ffn=3072,
                          unet_blocks=(320, 640, 1280, 1280), unet_layers=2, unet_head_dim=8,
                          unet_groups=32, vae_blocks=(128, 256, 512, 512), vae_layers=2, vae_groups=32,
                          guidance=7.5, schedule_steps=50),
        "tiny": dict(image=64, latent_ch=4, text_len=77, text_vocab=1000, text_hidden=32,
                     text_layers=2, text_heads=4, text_ffn=128,
                     unet_blocks=(32, 64), unet_layers=1, unet_head_dim=8, unet_groups=32,
                     vae_blocks=(32, 32, 64, 64), vae_layers=1, vae_groups=32,
                     guidance=7.5, schedule_steps=50),
    },
    "sam": {
        # SAM ViT-H at 1024x1024 (fit trains the image encoder; predict is the
        # full model with one shared 2-point prompt over the batch).
        "published": dict(image=1024, patch=16, width=1280, depth=32, heads=16, mlp=5120,
                          global_attn=(7, 15, 23, 31), window=14, out_ch=256, mask_in=16,
                          dec_depth=2, dec_mlp=2048, dec_heads=8, iou_hidden=256, points=2),
        "tiny": dict(image=64, patch=8, width=32, depth=2, heads=2, mlp=128,
                     global_attn=(1,), window=4, out_ch=32, mask_in=4,
                     dec_depth=2, dec_mlp=64, dec_heads=2, iou_hidden=32, points=2),
    },
}

# The parameter counts of the published models, for tests/params (never used
# to fake a count: workloads report what they build).
PUBLISHED_PARAMS = {
    "bert.backbone": 108_310_272,
    "gemma": 8_537_680_896,
    "mistral": 7_241_732_096,
    "sd.unet": 859_520_964,
    "sam": 641_090_608,
}

# Token ids below this are left out of synthetic text so that no pad, BOS or
# EOS id of any tokenizer convention appears by chance.
FIRST_ORDINARY_TOKEN = 4


def get(cell):
    model = SIZES.get(cell.model)
    if model is None:
        raise KeyError(f"no built-in sizes for model {cell.model!r}")
    if cell.size not in model:
        raise KeyError(f"model {cell.model!r} has no size {cell.size!r} (tiny, published)")
    return model[cell.size]
