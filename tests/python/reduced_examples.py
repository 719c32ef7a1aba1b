"""Builds an example of examples/shapescript with some dims replaced (a
reduced model the CPU runs in seconds) by the real `shapescript build`, and
imports the generated module."""

from __future__ import annotations

import re
from pathlib import Path

from binaries import build_source

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shapescript"


def shrink(text: str, dims: dict[str, int]) -> str:
    """`text` with each `dim NAME = ...` line of `dims` set to its value."""
    for name, value in dims.items():
        text, count = re.subn(rf"^dim {name} = .*$", f"dim {name} = {value}", text, flags=re.M)
        assert count == 1, name
    return text


def build_example(example: str, dims: dict[str, int], root: Path, package: str):
    """The generated Python module of `example` (`unet`, `moe`, ...) with
    `dims` replaced, built into `root / package`."""
    text = shrink((EXAMPLES / f"{example}.ss").read_text(), dims)
    return build_source(root, example, text, package=package)
