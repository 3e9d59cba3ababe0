"""Parameter counts of the published-size models, computed from models built
by the workloads' own builders without running them, against the published
counts (runners/workloads/sizes.PUBLISHED_PARAMS).

Run inside an environment's interpreter (tests/integration/test_params.sh):
  python check_params.py torch   meta-device build (no memory, no init)
  python check_params.py keras   KERAS_BACKEND=jax; every model is built inside
                                 jax.eval_shape, so variables are abstract
                                 shapes and nothing the size of a 7B model is
                                 allocated
Prints one line per model and exits 1 on any mismatch.
"""
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runners"))
sys.modules.setdefault("_benchgen", types.SimpleNamespace(mark=lambda n: None, fact=lambda k, v: None))

from workloads import sizes  # noqa: E402

EXPECTED = sizes.PUBLISHED_PARAMS


def torch_counts():
    import torch
    from workloads import torch_models as tm

    def n(module):
        return sum(p.numel() for p in module.parameters())

    with torch.device("meta"):
        yield "bert.backbone", n(tm.build("bert", "published")["model"].bert)
        yield "gemma", n(tm.build("gemma", "published")["model"])
        yield "mistral", n(tm.build("mistral", "published")["model"])
        yield "sd.unet", n(tm.build("sd", "published", "predict")["unet"])
        yield "sam", n(tm.build("sam", "published")["sam"])


def keras_counts():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import jax
    import keras
    from workloads import keras_models as km
    if keras.config.backend() != "jax":
        raise SystemExit("check_params.py keras needs KERAS_BACKEND=jax")
    cfg = sizes.SIZES

    def abstract(fn):
        # Builds inside a trace: initializers produce abstract arrays, so a 7B
        # model costs no memory; the count is read from variable shapes.
        out = {}

        def f():
            out["n"] = fn()
            return 0
        jax.eval_shape(f)
        return out["n"]

    yield "bert.backbone", abstract(lambda: km._build_bert(False, cfg["bert"]["published"])[0].count_params())
    yield "gemma", abstract(lambda: km._build_llm("gemma", cfg["gemma"]["published"])[0].count_params())
    yield "mistral", abstract(lambda: km._build_llm("mistral", cfg["mistral"]["published"])[0].count_params())
    yield "sd.unet", abstract(lambda: km._build_sd_unet(keras, cfg["sd"]["published"], True).count_params())
    # keras SAM has 256 more parameters than Meta's (keras-cv preset metadata
    # 641,090,864): compare its image encoder, identical in both, and report both.
    yield "sam.image_encoder", abstract(lambda: km._build_sam(False, cfg["sam"]["published"])[0].count_params())
    yield "sam(keras)", abstract(lambda: km._build_sam(False, cfg["sam"]["published"])[1].count_params())


EXPECTED_EXTRA = {"sam.image_encoder": 637_026_048, "sam(keras)": 641_090_864}


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "torch"
    counts = torch_counts() if which == "torch" else keras_counts()
    bad = 0
    for name, got in counts:
        want = EXPECTED.get(name, EXPECTED_EXTRA.get(name))
        ok = got == want
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {which:6s} {name:18s} {got:>15,d}  published {want:>15,d}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
