"""Times each generated example model against the hand-written reference
(tests/python/reference_models.py), with and without boundary checks:
forward alone (no grad) and forward + backward, each the median over many
repeats after a warm-up, the three variants interleaved round by round so
machine load falls on all of them alike. Prints milliseconds and ratios.

    cargo build -p shapescript
    .venv/bin/python benches/shapescript/bench_emitted.py [--repeats 50] [--threads 2] [--models llama ...]
"""
from __future__ import annotations

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from reference_models import ConvNet, ConvNetConfig, Gpt2, Gpt2Config, VisionTransformer, VitConfig  # noqa: E402
from reference_models import Llama, LlamaConfig  # noqa: E402
from reference_models import MoeConfig, SparseMoe, UNet, UNetConfig  # noqa: E402
from reference_models import shapescript_to_reference  # noqa: E402

SMALL = {
    "vit": ({"Image": 64, "D": 192, "H": 3, "Dmlp": 768, "L": 4, "Classes": 100},
            VitConfig(image=64, patch=16, dim=192, heads=3, mlp=768, layers=4, classes=100), VisionTransformer, "VisionTransformer"),
    "gpt2": ({"V": 1000, "Ctx": 128, "D": 192, "H": 3, "L": 4}, Gpt2Config(vocab=1000, context=128, dim=192, heads=3, layers=4), Gpt2, "Gpt2"),
    "convnet": ({}, ConvNetConfig(), ConvNet, "ConvNet"),
    "llama": ({"V": 1000, "Ctx": 128, "D": 256, "H": 8, "Hkv": 2, "L": 4, "Dmlp": 688},
              LlamaConfig(vocab=1000, context=128, dim=256, heads=8, kv_heads=2, layers=4, mlp=688), Llama, "Llama"),
    "unet": ({"C1": 16}, UNetConfig(width=16), UNet, "UNet"),
    "moe": ({"D": 256, "F": 512}, MoeConfig(dim=256, hidden=512), SparseMoe, "SparseMoe"),
}


def build(root: Path, package: str, flags: list[str], examples: Path) -> None:
    src = root / "src"
    src.mkdir(exist_ok=True)
    for model, (dims, *_rest) in SMALL.items():
        text = (examples / f"{model}.ss").read_text()
        for name, value in dims.items():
            text = re.sub(rf"^dim {name} = .*$", f"dim {name} = {value}", text, flags=re.M)
        (src / f"{model}.ss").write_text(text)
    binary = ROOT / "target" / "debug" / "shapescript"
    subprocess.run([str(binary), "build", str(src), "-o", str(root / package), *flags], check=True)


def step(module, x, backward: bool) -> float:
    """Seconds for one forward (and backward) pass."""
    if backward:
        start = time.perf_counter()
        module(x).float().sum().backward()
        return time.perf_counter() - start
    with torch.no_grad():
        start = time.perf_counter()
        module(x)
        return time.perf_counter() - start


def measure(modules, x, repeats: int, warmup: int) -> list[tuple[float, float]]:
    """Median forward and forward + backward seconds of each module."""
    for _ in range(warmup):
        for m in modules:
            step(m, x, False)
            step(m, x, True)
    forward = [[] for _ in modules]
    both = [[] for _ in modules]
    for _ in range(repeats):
        for k, m in enumerate(modules):
            forward[k].append(step(m, x, False))
        for k, m in enumerate(modules):
            both[k].append(step(m, x, True))
    return [(statistics.median(f), statistics.median(b)) for f, b in zip(forward, both)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--examples", type=Path, default=ROOT / "examples" / "shapescript")
    parser.add_argument("--models", nargs="*", default=list(SMALL), choices=list(SMALL))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, "checked", [], args.examples)
        build(root, "unchecked", ["--no-runtime-checks"], args.examples)
        sys.path.insert(0, str(root))
        print(f"torch {torch.__version__}, {args.threads} threads, median of {args.repeats} after {args.warmup} warm-up")
        print(f"{'model':8} {'pass':8} {'reference ms':>13} {'checks':>8} {'no checks':>10}")
        for model in args.models:
            _dims, cfg, ref_class, cls = SMALL[model]
            checked = getattr(importlib.import_module(f"checked.{model}"), cls)()
            unchecked = getattr(importlib.import_module(f"unchecked.{model}"), cls)()
            unchecked.load_state_dict(checked.state_dict())
            reference = ref_class(cfg)
            reference.load_state_dict(shapescript_to_reference(model, checked.state_dict(), cfg))
            if model in ("gpt2", "llama"):
                x = torch.randint(0, cfg.vocab, (8, 64))
            elif model == "unet":
                x = torch.randn(8, 3, 64, 64)
            elif model == "moe":
                x = torch.randn(8, 64, cfg.dim)
            else:
                x = torch.randn(8, 3, cfg.image, cfg.image)
            times = measure([reference, checked, unchecked], x, args.repeats, args.warmup)
            for k, name in enumerate(["forward", "fwd+bwd"]):
                ref = times[0][k]
                print(
                    f"{model:8} {name:8} {ref * 1e3:13.2f} {times[1][k] / ref:8.3f} {times[2][k] / ref:10.3f}"
                )


if __name__ == "__main__":
    main()
