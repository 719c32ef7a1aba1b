"""Recomputes the structured-operation cases of tests/torch_structured.rs
with PyTorch and compares values and gradients.

Usage: torch_structured.py ROOT

ROOT holds one folder per case, each with `f32/` and `f64/`: the parameters
`p0.npy`, `p1.npy`, ..., the cotangent `cot.npy`, our output `out.npy`, our
gradients `grad_p0.npy`, ... of sum(out * cot), and `expr.txt`, the PyTorch
expression over p0, p1, ... (F is torch.nn.functional), and optionally
`rtol.txt`, a looser tolerance for a case whose graph holds f32 constants
(interpolation weights) that the f64 run cannot widen. Each is recomputed in
float64 from the same inputs; f32 results must agree within 1e-4 (relative,
absolute 1e-5), f64 results within 1e-9. Prints one line per mismatch and
"N cases agree" when all do; exits 1 otherwise.
"""

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 (used by the expressions)


def check(folder: Path, rtol: float) -> list[str]:
    if (folder / "rtol.txt").exists():
        rtol = max(rtol, float((folder / "rtol.txt").read_text()))
    params = []
    i = 0
    while (folder / f"p{i}.npy").exists():
        p = torch.tensor(np.load(folder / f"p{i}.npy").astype(np.float64))
        params.append(p.requires_grad_(True))
        i += 1
    cot = torch.tensor(np.load(folder / "cot.npy").astype(np.float64))
    scope = {"F": F, "torch": torch}
    scope.update({f"p{j}": p for j, p in enumerate(params)})
    out = eval((folder / "expr.txt").read_text(), scope)  # noqa: S307 (test input)
    (out * cot).sum().backward()
    wanted = {"out": out.detach()}
    wanted.update({f"grad_p{j}": p.grad for j, p in enumerate(params)})
    problems = []
    for name, expected in wanted.items():
        ours = np.load(folder / f"{name}.npy").astype(np.float64)
        expected = expected.numpy()
        if ours.shape != expected.shape:
            problems.append(f"{folder}: {name} shape {ours.shape}, torch {expected.shape}")
        elif not np.allclose(ours, expected, rtol=rtol, atol=rtol / 10):
            worst = np.max(np.abs(ours - expected))
            problems.append(f"{folder}: {name} differs by up to {worst:.3g}")
    return problems


def main():
    root = Path(sys.argv[1])
    cases = sorted(p for p in root.iterdir() if p.is_dir())
    problems = []
    for case in cases:
        problems += check(case / "f32", 1e-4)
        problems += check(case / "f64", 1e-9)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"{len(cases)} cases agree")


if __name__ == "__main__":
    main()
