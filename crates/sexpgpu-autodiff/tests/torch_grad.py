"""Recomputes a SexpGPU gradient test case with PyTorch autograd and compares.

Usage: torch_grad.py CASE DIR RTOL

DIR holds the case's inputs as `<name>.npy`, our loss as `loss.npy` and our
gradients as `grad_<name>.npy` (written by tests/torch_grad.rs). The loss is
recomputed in float64 from the same inputs; the loss and every gradient must
agree within RTOL (relative; the absolute tolerance is RTOL / 10). Exits 1
with a report on any mismatch.
"""

import sys
from pathlib import Path

import numpy as np
import torch


def cross_entropy(logits, targets):
    """Mean over rows of logsumexp(logits) - logits[target], from primitives."""
    shifted = logits - logits.amax(dim=-1, keepdim=True)
    lse = shifted.exp().sum(dim=-1).log()
    picked = shifted.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    return (lse - picked).mean()


def softmax_ce(t):
    return cross_entropy(t["logits"], t["targets"])


def mlp(t):
    hidden = (t["x"] @ t["w1"] + t["b1"]).clamp_min(0.0)
    return cross_entropy(hidden @ t["w2"] + t["b2"], t["targets"])


def sequence(t):
    """Embedding rows, a decaying running sum (linear scan), self-attention."""
    emb = t["table"][t["ids"].long()]  # [B, T, D]
    decay = t["decay"]  # [D]
    states = []
    h = torch.zeros_like(emb[:, 0, :])
    for step in range(emb.shape[1]):
        h = decay * h + emb[:, step, :]
        states.append(h)
    h = torch.stack(states, dim=1)
    scores = h @ h.transpose(1, 2) / np.sqrt(h.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    out = weights @ (h @ t["wv"])
    return (out * out).sum()


def fused_attention(t):
    """Scaled dot-product attention, plain and causal (t=5 queries, s=6 keys)."""
    q, k, v = t["q"], t["k"], t["v"]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    plain = sdpa(q, k, v)
    causal = sdpa(q, k, v, is_causal=True)
    return (plain * plain).sum() + torch.sin(causal).sum()


def squares(ys):
    return sum((y * y).sum() for y in ys)


def new_elementwise(t):
    x, pos, divisor = t["x"], t["pos"], t["divisor"]
    ys = [f(x) for f in (
        torch.sigmoid, torch.nn.functional.softplus, torch.log1p, torch.expm1, torch.erf,
        torch.sinh, torch.cosh, torch.tan, torch.atan, torch.asinh, torch.atanh, torch.exp2,
        torch.floor, torch.ceil, torch.round, torch.trunc, torch.sign,
    )]
    ys += [f(pos) for f in (torch.acosh, torch.log2, torch.log10)]
    ys += [torch.fmod(pos * 2.0, divisor), torch.remainder(pos * 2.0, divisor)]
    ys += [x.clamp(-0.5, 0.5), torch.lerp(x, pos, divisor.expand(3, 5))]
    ys += [x * x.detach()]
    return squares(ys)


def new_structured(t):
    x = t["x"]
    ys = [
        x.amin(dim=1),
        x.var(dim=1, correction=1, keepdim=True),
        x.std(correction=0),
        x.prod(dim=0),
        x.cumprod(dim=-1),
        x.flip(0).cumprod(dim=0).flip(0),
        x.cummax(dim=-1).values,
        x.flip(0).cummin(dim=0).values.flip(0),
        x.logcumsumexp(dim=-1),
        x.sort(dim=-1, descending=True, stable=True).values,
        x.topk(2, dim=0, largest=False).values,
        x.flip(0, 1),
        x.roll(2, 1),
        x.tril(0),
        x.triu(1),
        x.repeat(2, 1, 2),
        x.unfold(1, 2, 2),
        x.index_select(1, torch.tensor([4, 2, 0])),
    ]
    return squares(ys)


CASES = {
    "softmax_ce": softmax_ce,
    "mlp": mlp,
    "sequence": sequence,
    "fused_attention": fused_attention,
    "new_elementwise": new_elementwise,
    "new_structured": new_structured,
}


def main():
    case, folder, rtol = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    atol = rtol / 10
    tensors = {}
    for path in sorted(folder.glob("*.npy")):
        name = path.stem
        if name == "loss" or name.startswith("grad_"):
            continue
        array = np.load(path)
        if array.dtype.kind == "f":
            tensors[name] = torch.tensor(array, dtype=torch.float64, requires_grad=True)
        else:
            tensors[name] = torch.tensor(array)
    loss = CASES[case](tensors)
    loss.backward()
    problems = []
    ours = float(np.load(folder / "loss.npy"))
    if not np.isclose(ours, loss.item(), rtol=rtol, atol=atol):
        problems.append(f"loss: ours {ours}, torch {loss.item()}")
    for name, tensor in tensors.items():
        if not tensor.dtype.is_floating_point:
            continue
        grad_path = folder / f"grad_{name}.npy"
        if not grad_path.exists():
            problems.append(f"{name}: no grad_{name}.npy written")
            continue
        got = np.load(grad_path).astype(np.float64)
        want = tensor.grad.numpy()
        if got.shape != want.shape:
            problems.append(f"{name}: shape {got.shape}, torch {want.shape}")
        elif not np.allclose(got, want, rtol=rtol, atol=atol):
            worst = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
            problems.append(
                f"{name}: largest difference at {tuple(int(i) for i in worst)}: "
                f"ours {got[worst]}, torch {want[worst]}"
            )
    if problems:
        print(f"case {case}: gradients differ from PyTorch autograd (rtol {rtol}):")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"case {case}: loss and {sum(1 for t in tensors.values() if t.requires_grad)} gradients agree")


if __name__ == "__main__":
    main()
