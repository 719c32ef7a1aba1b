"""Dtypes that hold at run time (docs/shapescript/functions.md): tensors made
in a body (`zeros`, `ones`, `full`, `eye`, `arange(n) to Real`) take the
body's float dtype, read from its first dtype-less float tensor, so a bf16
model stays bf16; scalar math on Python numbers is Python's `math`; and
`self.training`, which `dropout` in a method follows (docs/shapescript/models.md)."""

from __future__ import annotations

import math

import pytest
import torch

from binaries import build_source

SOURCE = """\
dim D = 4
dim Dh = 8

fn made(x: [b n D]) -> [b n D] {
  let pos = arange(n) to Real
  let z = zeros([n D]) + ones([D]) + full([D], 2.0)
  x + pos + z
}
fn square(x: [n n]) -> [n n] = x @ eye(n) + tril(ones([n n]))
fn ids_to_float(ids: [b n] Index[D], x: [b n]) -> [b n] = x * (ids to Real)

fn inv_freq(x: [n Dh]) -> [n Dh] = x * exp(0.0 - log(10000.0) / 64.0)
fn number() -> Float = sqrt(2.0) * tanh(1.0)
fn causal(s: [b i j], visible: [i j] Bool) -> [b i j] = softmax(where(visible, s, -inf), over=j)
fn rectified(x: [n D]) -> [n D] NonNeg = relu(x)

model Drop {
  w: [D D] = ones
  fn forward(self, x: [b D]) -> [b D] {
    let h = dropout(x @ self.w, p=0.5)
    if self.training {
      return h * 2.0
    }
    h + dropout(h, p=0.5, training=true) * 0.0
  }
}

fn floor_at(x: [n D]) -> [n D] = maximum(x, 0.5) + minimum(x, 2.0)

fn doubled(x: [b c h w]) -> [b c 2*h 2*w] = interpolate(x, 2)
fn smooth(x: [b c 3 5]) -> [b c 9 15] = interpolate(x, 3, bilinear=true)

fn combine(x: [n D], rows: [k] Index[n], y: [k D]) -> [n D] = index_add(x, rows, y)
fn scattered(x: [n D], ids: [k D] Index[n], y: [k D]) -> [n D] = scatter_add(x, ids, y)

model Masked(N) {
  w: [N] = ones
  buffer visible: [N N] Bool = tril(ones([N N])) > 0.0
  buffer pos: [N] = (arange(N) to Real) * 0.5
  fn forward(self, x: [b N N]) -> [b N N] {
    # The two `N` axes get names, so `w` and `pos` say which they pair with.
    let y = rearrange(x, [b i j] -> [b i j])
    where(self.visible, y * rearrange(self.w, [j] -> [j]) + rearrange(self.pos, [j] -> [j]), -inf)
  }
}

fn made_bf16(x: [b D] bf16) -> [b D] bf16 = x + ones([b D]) + eye(D)[0] + (arange(D) to Real)
fn step_bf16(x: [b D] bf16) -> [b D] bf16 = where(x > 0.0, 1.0, 0.0)
fn step_any(x: [b D], c: [b D] Bool) -> [b D] = where(c, 1.0, 0.0) * x

model Half {
  w: [D D] bf16
  fn made(self) -> [D D] bf16 = eye(D) * 2.0 + self.w
}

model Stacked {
  layers: [2] Half
  fn made(self) -> [D D] bf16 = eye(D)
}

model Scaled {
  w: [D D] = ones
  fn forward(self, ids: [b D] Index[D]) -> [b D] = (ids to Real) @ self.w + zeros([b D])
}
"""


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return build_source(tmp_path_factory.mktemp("dtypes"), "dtypes", SOURCE)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_made_tensors_take_the_inputs_float_dtype(m, dtype):
    x = torch.randn(2, 3, 4).to(dtype)
    out = m.made(x)
    assert out.dtype == dtype
    pos = torch.arange(3).to(dtype)[:, None]
    want = x + pos + (torch.zeros(3, 4) + 1 + 2).to(dtype)
    torch.testing.assert_close(out, want)
    sq = torch.randn(3, 3).to(dtype)
    assert m.square(sq).dtype == dtype
    ids = torch.randint(0, 4, (2, 3))
    y = torch.randn(2, 3).to(dtype)
    got = m.ids_to_float(ids, y)
    assert got.dtype == dtype
    torch.testing.assert_close(got, y * ids.to(dtype))


def test_a_method_without_float_inputs_takes_the_models_dtype(m):
    model = m.Scaled().to(torch.bfloat16)
    ids = torch.randint(0, 4, (2, 4))
    out = model(ids)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, ids.to(torch.bfloat16) @ model.w)


def test_scalar_math_is_pythons_math(m):
    assert m.number() == math.sqrt(2.0) * math.tanh(1.0)
    x = torch.randn(3, 8).to(torch.bfloat16)
    out = m.inv_freq(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, x * math.exp(-math.log(10000.0) / 64.0))


def test_inf_masks_and_relu(m):
    s = torch.randn(2, 5, 5).to(torch.bfloat16)
    visible = torch.ones(5, 5, dtype=torch.bool).tril()
    out = m.causal(s, visible)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, torch.softmax(s.masked_fill(~visible, float("-inf")), dim=2))
    x = torch.randn(3, 4)
    torch.testing.assert_close(m.rectified(x), torch.relu(x))


def test_dropout_follows_the_models_mode(m):
    model = m.Drop()
    x = torch.randn(64, 4)
    model.eval()
    torch.testing.assert_close(model(x), x @ model.w)
    model.train()
    out = model(x)
    # 2 * dropout(p=0.5): zeros where dropped, 4 * (x @ w) where kept.
    want = x @ model.w
    kept = out != 0
    assert 0 < kept.sum() < out.numel()
    torch.testing.assert_close(out[kept], 4 * want[kept])


def test_buffers_are_computed_once_and_follow_to(m):
    model = m.Masked(3)
    assert set(model.state_dict()) == {"w", "visible", "pos"}
    assert [name for name, _ in model.named_parameters()] == ["w"]
    torch.testing.assert_close(model.pos, torch.arange(3.0) * 0.5)
    model.to(torch.bfloat16)
    assert model.pos.dtype == torch.bfloat16 and model.visible.dtype == torch.bool
    x = torch.randn(2, 3, 3).to(torch.bfloat16)
    want = torch.where(torch.ones(3, 3, dtype=torch.bool).tril(), x + model.pos, float("-inf"))
    torch.testing.assert_close(model(x), want)


def test_index_add_and_scatter_add_along_the_first_axis(m):
    x = torch.randn(5, 4)
    rows = torch.tensor([0, 3, 3])
    y = torch.randn(3, 4)
    torch.testing.assert_close(m.combine(x, rows, y), x.index_add(0, rows, y))
    ids = torch.randint(0, 5, (3, 4))
    torch.testing.assert_close(m.scattered(x, ids, y), x.scatter_add(0, ids, y))


def test_numbers_in_maximum_take_the_float_dtype(m):
    x = torch.randn(3, 4).to(torch.bfloat16)
    out = m.floor_at(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, x.clamp(min=0.5) + x.clamp(max=2.0))


def test_interpolate_nearest_and_bilinear(m):
    x = torch.randn(2, 3, 3, 5)
    F = torch.nn.functional
    torch.testing.assert_close(m.doubled(x), F.interpolate(x, scale_factor=2, mode="nearest"))
    want = F.interpolate(x, scale_factor=3, mode="bilinear", align_corners=False)
    torch.testing.assert_close(m.smooth(x), want)
    assert m.smooth(x).shape == (2, 3, 9, 15)


def test_made_tensors_take_a_concrete_bodys_dtype(m):
    x = torch.randn(2, 4).to(torch.bfloat16)
    out = m.made_bf16(x)
    assert out.dtype == torch.bfloat16
    want = x + 1 + torch.eye(4)[0].to(torch.bfloat16) + torch.arange(4).to(torch.bfloat16)
    torch.testing.assert_close(out, want)


def test_where_of_two_numbers_takes_the_float_dtype(m):
    x = torch.randn(2, 4).to(torch.bfloat16)
    out = m.step_bf16(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, (x > 0).to(torch.bfloat16))
    c = torch.randn(2, 4) > 0
    out = m.step_any(x, c)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, x * c.to(torch.bfloat16))


def test_a_method_without_tensor_inputs_makes_tensors_on_the_models_device(m):
    # The model's only tensor is bf16 and no parameter is a tensor: `eye`
    # goes on the field's device (`meta` here, as a GPU would be).
    model = m.Half().to("meta")
    out = model.made()
    assert out.device.type == "meta" and out.dtype == torch.bfloat16
    # A model whose only field is a stack finds its device through the
    # stack's first model (`self.layers[0].w`).
    stacked = m.Stacked().to("meta")
    assert stacked.made().device.type == "meta"
