"""`as` and `to` with a domain on Python numbers (docs/shapescript/ranges.md,
"Python numbers"), built by `shapescript build` and run: `eps as Pos`
raises the ShapeError of the other run-time checks for 0, a negative number
or NaN and passes a positive one through unchanged (the check goes with
`--no-runtime-checks`); `t to Pos` and `n to Pos` clamp with Python's `max`
(a float to 2^-126, an int to 1); a model whose method narrows its `eps`
runs under `torch.compile(fullgraph=True)`, the check guarding it there too."""

from __future__ import annotations

import math

import pytest
import torch
import torch._dynamo

from binaries import built_both_ways

SOURCE = """\
dim D = 8

fn layer_norm_eps(x: [b D], eps: Float) -> [b D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D) + (eps as Pos))
fn tempered(x: [b n], t: Float) -> [b n] = softmax(x / (t to Pos), over=n)
fn repeated(x: [b D], n: Int) -> [b D] = x * (n to Pos)
fn unit_claim(x: [b D], p: Float) -> [b D] = x * (p as Unit)

model RmsNorm {
  weight: [D] = ones()
  fn forward(self, x: [b n D], eps: Float) -> [b n D] = x * rsqrt(mean(x * x, over=D) + (eps as Pos)) * self.weight
}
"""

TINY = 2.0**-126


m = built_both_ways("numbers", SOURCE)


def rows(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(7))


def layer_norm(x, eps):
    centered = x - x.mean(dim=-1, keepdim=True)
    return centered * torch.rsqrt(x.var(dim=-1, keepdim=True) + eps)


def test_as_pos_passes_a_positive_eps_through(m):
    x = rows(3, 8)
    torch.testing.assert_close(m.layer_norm_eps(x, 1e-5), layer_norm(x, 1e-5))


@pytest.mark.parametrize("eps", [0.0, -1e-5, math.nan])
def test_as_pos_refuses_zero_negative_and_nan(m, eps):
    x = rows(3, 8)
    if not m.checks:
        # Without the checks the number goes through as it is.
        torch.testing.assert_close(m.layer_norm_eps(x, eps), layer_norm(x, eps), equal_nan=True)
        return
    with pytest.raises(m.runtime.ShapeError, match=r"`eps as Pos` does not hold: the value is"):
        m.layer_norm_eps(x, eps)


def test_a_closed_domain_takes_its_ends(m):
    x = rows(2, 8)
    torch.testing.assert_close(m.unit_claim(x, 1.0), x)
    torch.testing.assert_close(m.unit_claim(x, 0.0), x * 0.0)
    if m.checks:
        with pytest.raises(m.runtime.ShapeError, match=r"`p as Unit` does not hold"):
            m.unit_claim(x, 1.5)


def test_to_pos_clamps_a_float_to_the_smallest_normal_f32(m):
    x = torch.tensor([[0.5, -0.25, 1.0]])
    torch.testing.assert_close(m.tempered(x, 2.0), torch.softmax(x / 2.0, dim=-1))
    # 0 and below become 2^-126: the largest value takes all the weight.
    for t in (0.0, -3.0):
        torch.testing.assert_close(m.tempered(x, t), torch.softmax(x / TINY, dim=-1))
        torch.testing.assert_close(m.tempered(x, t), torch.tensor([[0.0, 0.0, 1.0]]))


def test_to_pos_clamps_an_int_to_1(m):
    x = rows(2, 8)
    torch.testing.assert_close(m.repeated(x, 3), x * 3)
    torch.testing.assert_close(m.repeated(x, 0), x)
    torch.testing.assert_close(m.repeated(x, -2), x)


def test_a_narrowed_eps_runs_under_torch_compile_fullgraph(m):
    torch._dynamo.reset()
    model = m.RmsNorm().eval()
    x = rows(2, 5, 8)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        want = x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + 1e-5)
        torch.testing.assert_close(model(x, 1e-5), want)
        torch.testing.assert_close(compiled(x, 1e-5), want)
    if not m.checks:
        return
    # The check guards the compiled module too; fullgraph reports the
    # ShapeError it met while tracing as its own error.
    with pytest.raises(m.runtime.ShapeError, match=r"`eps as Pos` does not hold"):
        model(x, 0.0)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="ShapeError"):
        with torch.no_grad():
            compiled(x, 0.0)
