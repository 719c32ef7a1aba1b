"""What the tests comparing SexpGPU with PyTorch share: running a program
with input arrays (and reading the arrays it saves), f32 arrays, PyTorch's gradient of a weighted sum, and
comparison within f32 rounding."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import torch
from binaries import sexpgpu_binary


def f32(values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def grad(f, x: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    (y if weight is None else y * torch.tensor(weight)).sum().backward()
    return t.grad.numpy()


def same(ours: np.ndarray, theirs, rtol: float = 1e-6, atol: float = 1e-30) -> None:
    """Equal within f32 rounding, NaN where PyTorch has NaN and infinities
    of the same sign where it has them."""
    theirs = np.asarray(theirs, dtype=np.float32)
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)


def run_program(
    folder: Path, program: str, arrays: dict
) -> subprocess.CompletedProcess:
    """Runs `program` in `folder` with `arrays` saved as `in.npz`."""
    np.savez(folder / "in.npz", **arrays)
    (folder / "program.sx").write_text(program)
    return subprocess.run(
        [sexpgpu_binary(), "run", "program.sx"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def run_outputs(
    folder: Path, program: str, arrays: dict, files: tuple[str, ...], prefixed: tuple[str, ...] = ()
) -> dict[str, np.ndarray]:
    """Runs `program` as `run_program` does, which must succeed, and reads
    the arrays it saved in `files` (`name.npz` each) into one dict; the
    arrays of a file in `prefixed` are named `file:name`."""
    run = run_program(folder, program, arrays)
    assert run.returncode == 0, run.stderr
    return {
        (f"{name}:" if name in prefixed else "") + k: v
        for name in files
        for k, v in np.load(folder / f"{name}.npz").items()
    }
