"""Times forward + backward of each generated example model against the
hand-written reference (tests/python/reference_models.py), with and without
boundary checks, in one run; prints the ratios.

    cargo build -p shapescript
    .venv/bin/python benches/shapescript/bench_emitted.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from reference_models import ConvNet, ConvNetConfig, Gpt2, Gpt2Config, VisionTransformer, VitConfig  # noqa: E402
from reference_models import shapescript_to_reference  # noqa: E402

SMALL = {
    "vit": ({"Image": 64, "D": 192, "H": 3, "Dmlp": 768, "L": 4, "Classes": 100},
            VitConfig(image=64, patch=16, dim=192, heads=3, mlp=768, layers=4, classes=100), VisionTransformer, "VisionTransformer"),
    "gpt2": ({"V": 1000, "Ctx": 128, "D": 192, "H": 3, "L": 4}, Gpt2Config(vocab=1000, context=128, dim=192, heads=3, layers=4), Gpt2, "Gpt2"),
    "convnet": ({}, ConvNetConfig(), ConvNet, "ConvNet"),
}


def build(root: Path, package: str, flags: list[str]) -> None:
    src = root / "src"
    src.mkdir(exist_ok=True)
    for model, (dims, *_rest) in SMALL.items():
        text = (ROOT / "examples" / "shapescript" / f"{model}.ss").read_text()
        for name, value in dims.items():
            text = re.sub(rf"^dim {name} = .*$", f"dim {name} = {value}", text, flags=re.M)
        (src / f"{model}.ss").write_text(text)
    binary = ROOT / "target" / "debug" / "shapescript"
    subprocess.run([str(binary), "build", str(src), "-o", str(root / package), *flags], check=True)


def timed(module, x, repeats: int) -> float:
    for _ in range(3):
        module(x).float().sum().backward()
    start = time.perf_counter()
    for _ in range(repeats):
        module(x).float().sum().backward()
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, "checked", [])
        build(root, "unchecked", ["--no-runtime-checks"])
        sys.path.insert(0, str(root))
        print(f"{'model':8} {'reference ms':>13} {'checks':>8} {'no checks':>10}")
        for model, (_dims, cfg, ref_class, cls) in SMALL.items():
            checked = getattr(importlib.import_module(f"checked.{model}"), cls)()
            unchecked = getattr(importlib.import_module(f"unchecked.{model}"), cls)()
            unchecked.load_state_dict(checked.state_dict())
            reference = ref_class(cfg)
            reference.load_state_dict(shapescript_to_reference(model, checked.state_dict(), cfg))
            if model == "gpt2":
                x = torch.randint(0, cfg.vocab, (8, 64))
            else:
                x = torch.randn(8, 3, cfg.image, cfg.image)
            times = [timed(m, x, args.repeats) for m in (reference, checked, unchecked)]
            print(f"{model:8} {times[0] * 1e3:13.2f} {times[1] / times[0]:8.3f} {times[2] / times[0]:10.3f}")


if __name__ == "__main__":
    main()
