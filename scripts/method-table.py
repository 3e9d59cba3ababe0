#!/usr/bin/env python3
"""method-table.py - the per-cell table of what differs between the two
methods (`published`, `corrected`) and from the original benchmark,
generated from runners/workloads/method.py: the same choices() the workloads
act on and record as `method.*` facts.

  scripts/method-table.py                 print the Markdown table
  scripts/method-table.py --write FILE    replace the generated block of FILE
  scripts/method-table.py --check FILE    exit 1 when FILE's block is stale

The block sits between the two marker lines below in docs/METHOD.md.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "runners"))
from workloads import method  # noqa: E402

BEGIN = "<!-- BEGIN scripts/method-table.py: generated, do not edit -->"
END = "<!-- END scripts/method-table.py -->"

BACKENDS = ("torch-eager", "torch-compiled", "keras2-tensorflow", "keras3-tensorflow", "keras3-jax", "keras3-torch")
NAMES = {
    "driver": "driver", "compile_scope": "torch.compile scope", "sync": "synchronisation",
    "lora_alpha": "LoRA alpha", "lora_adapter_dtype": "LoRA adapter dtype", "xla": "XLA",
    "new_tokens": "new tokens", "stop_at_eos": "stops at EOS", "scheduler": "scheduler",
    "unet_calls": "UNet calls per step", "warmup": "warm-up steps", "fit_inputs": "fit inputs",
}


def cell(value):
    return str(value).replace("|", "\\|")


_lines = {}


def locate(spot):
    """"path:symbol" (method.where()) as "path:LINE (symbol)": the line of
    the Python def/class (Class.method for a method) or of the C function's
    definition. Exits when the symbol is gone, so a stale table fails --check."""
    import ast
    import re
    path, sym = spot.rsplit(":", 1)
    full = os.path.join(HERE, "..", path)
    if full not in _lines:
        with open(full, encoding="utf-8") as f:
            _lines[full] = f.read()
    text = _lines[full]
    line = None
    if path.endswith(".py"):
        parts = sym.split(".")
        body = ast.parse(text).body
        for i, part in enumerate(parts):
            hit = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part), None)
            if hit is None:
                break
            body, line = hit.body, hit.lineno if i == len(parts) - 1 else None
    else:
        m = re.search(r"^[A-Za-z].*\b" + re.escape(sym) + r"\(", text, re.M)
        line = text.count("\n", 0, m.start()) + 1 if m else None
    if line is None:
        raise SystemExit(f"method-table.py: {spot}: no such definition (method.where())")
    return f"{path}:{line} ({sym})"


def table():
    lines = ["| cell | what | `published` (as v0.0.5) | `corrected` | v0.0.5 source | benchgen |",
             "|---|---|---|---|---|---|"]
    for model in sorted(method.MODEL_TASKS):
        for task in method.MODEL_TASKS[model]:
            for backend in BACKENDS:
                if backend == "keras2-tensorflow" and model in ("gemma", "mistral"):
                    continue  # unsupported on Keras 2, NA in the published table
                pub = method.choices(model, task, backend, method.PUBLISHED)
                cor = method.choices(model, task, backend, method.CORRECTED)
                for name in pub:
                    (pv, ref), (cv, _) = pub[name], cor[name]
                    if pv == cv and not ref:
                        continue  # benchgen's own choice, the same under both methods
                    src = ref.replace(method.V, "").strip()
                    spot = method.where(model, task, backend, name)
                    lines.append(f"| {model}/{task}/{backend} | {NAMES.get(name, name)} | {cell(pv)} | "
                                 f"{cell(cv) if pv != cv else 'the same'} | {cell(src) if src else ''} | "
                                 f"{cell(locate(spot)) if spot else ''} |")
    return "\n".join(lines) + "\n"


def block():
    return f"{BEGIN}\n{table()}{END}\n"


def splice(text):
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        raise SystemExit(f"method-table.py: the markers are missing:\n  {BEGIN}\n  {END}")
    return text[:a] + block() + text[b + len(END) + 1:]


def main(argv):
    if len(argv) == 1:
        sys.stdout.write(table())
        return 0
    if len(argv) == 3 and argv[1] in ("--write", "--check"):
        with open(argv[2], encoding="utf-8") as f:
            text = f.read()
        new = splice(text)
        if argv[1] == "--check":
            if new != text:
                print(f"{argv[2]}: the generated method table is stale: run scripts/method-table.py --write "
                      f"{argv[2]}", file=sys.stderr)
                return 1
            return 0
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(new)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
