"""Every example in examples/shapescript/ at reduced sizes, for the tests that
treat each generated module as a plain PyTorch module (test_emitted_*.py):
the dims each copy of the .ss file is rebuilt with, the top model's class,
an input maker, and the hand-written reference (reference_models.py) whose
field names are the same, where there is one. `missing()` names the
examples found by glob that have no entry, so a new example fails those
tests until it is described here."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import torch

import reference_models
from binaries import binary
from reference_models import ConvNet, ConvNetConfig, Gpt2, Gpt2Config, Llama, LlamaConfig

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "shapescript"


@dataclass(frozen=True)
class Example:
    name: str
    top: str
    dims: dict[str, int]
    make_input: Callable[[int, torch.Generator], torch.Tensor]
    # A reference with the same state_dict keys (so a checkpoint of it loads).
    reference: Optional[Callable[[], torch.nn.Module]] = None


def _tokens(vocab: int, n: int):
    return lambda batch, gen: torch.randint(0, vocab, (batch, n), generator=gen)


def _images(side: int):
    return lambda batch, gen: torch.randn(batch, 3, side, side, generator=gen)


CATALOG: dict[str, Example] = {
    "vit": Example(
        "vit",
        "VisionTransformer",
        {"Image": 32, "D": 48, "H": 4, "Dmlp": 96, "L": 2, "Classes": 7},
        _images(32),
    ),
    "gpt2": Example(
        "gpt2",
        "Gpt2",
        {"V": 61, "Ctx": 16, "D": 48, "H": 4, "L": 2},
        _tokens(61, 11),
        lambda: Gpt2(Gpt2Config(vocab=61, context=16, dim=48, heads=4, layers=2)),
    ),
    "convnet": Example(
        "convnet",
        "ConvNet",
        {"C1": 8, "C2": 16, "C3": 32, "Hidden": 24},
        _images(32),
        lambda: ConvNet(ConvNetConfig(channels=(8, 16, 32), hidden=24)),
    ),
    "llama": Example(
        "llama",
        "Llama",
        {"V": 61, "Ctx": 32, "D": 64, "H": 8, "Hkv": 2, "L": 2, "Dmlp": 96},
        _tokens(61, 12),
        lambda: Llama(LlamaConfig(vocab=61, context=32, dim=64, heads=8, kv_heads=2, layers=2, mlp=96)),
    ),
    # The references of these two come with their examples (issue 16); looked
    # up when called, so this file imports before they exist.
    "unet": Example(
        "unet",
        "UNet",
        {"C1": 4, "Classes": 3},
        lambda batch, gen: torch.randn(batch, 3, 16, 32, generator=gen),
        lambda: reference_models.UNet(reference_models.UNetConfig(width=4, classes=3)),
    ),
    "moe": Example(
        "moe",
        "SparseMoe",
        {"D": 16, "F": 24, "E": 4},
        lambda batch, gen: torch.randn(batch, 7, 16, generator=gen),
        lambda: reference_models.SparseMoe(reference_models.MoeConfig(dim=16, hidden=24, experts=4)),
    ),
}


def example_names() -> list[str]:
    return sorted(p.stem for p in EXAMPLES.glob("*.ss"))


def present() -> list[str]:
    """The catalogued examples that exist, in the catalogue's order."""
    return [name for name in CATALOG if (EXAMPLES / f"{name}.ss").exists()]


def missing() -> list[str]:
    return [name for name in example_names() if name not in CATALOG]


def shrink(text: str, dims: dict[str, int]) -> str:
    for name, value in dims.items():
        text, count = re.subn(rf"^dim {name} = .*$", f"dim {name} = {value}", text, flags=re.M)
        assert count == 1, name
    return text


def build_small(root: Path, package: str, *flags: str) -> dict[str, object]:
    """Builds every catalogued example, shrunk, into `root/package` and
    imports the modules; returns them by example name."""
    sources = root / f"{package}_src"
    sources.mkdir()
    for name in present():
        text = (EXAMPLES / f"{name}.ss").read_text()
        (sources / f"{name}.ss").write_text(shrink(text, CATALOG[name].dims))
    result = subprocess.run(
        [str(binary("shapescript")), "build", str(sources), "-o", str(root / package), *flags],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    sys.path.insert(0, str(root))
    try:
        return {name: importlib.import_module(f"{package}.{name}") for name in present()}
    finally:
        sys.path.remove(str(root))
