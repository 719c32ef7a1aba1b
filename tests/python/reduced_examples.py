"""Builds an example of examples/shapescript with some dims replaced (a
reduced model the CPU runs in seconds) by the real `shapescript build`, and
imports the generated module."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

from binaries import binary

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
    source = root / f"{example}.ss"
    source.write_text(shrink((EXAMPLES / f"{example}.ss").read_text(), dims))
    result = subprocess.run(
        [str(binary("shapescript")), "build", str(source), "-o", str(root / package)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(f"{package}.{example}")
    finally:
        sys.path.remove(str(root))
