"""The project's command binaries for the Python tests: built with cargo
(a no-op when up to date, so a test never runs a stale binary) and found in
cargo's own target folder, wherever CARGO_TARGET_DIR puts it."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def target_dir() -> Path:
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"])


@functools.cache
def binary(name: str) -> Path:
    """Builds the debug binary of the package `name` and returns its path."""
    subprocess.run(["cargo", "build", "-q", "-p", name], cwd=ROOT, check=True)
    path = target_dir() / "debug" / name
    assert path.exists(), f"cargo built {name} but {path} is missing"
    return path
