"""Every construct `shapescript check` accepts, built by `shapescript build`
and run on real tensors: each generated function against torch written by
hand here. Records, `to` (reshape, clamp, Index), Bool masks, `topk`,
`take`, `reduce`/`repeat` patterns, `if`, tuples, loops over `range` and over
stacks, broadcasting by name (the views), `where`, `concat`, `as` checked at
run time, extern calls with Axis/Axes/Size arguments, `conv1d` with a stride on a
generic length, and attention written
out with `einsum` (emitted as one `scaled_dot_product_attention`, compared
with the written steps), an optional tensor parameter left out. Each test runs with
and without the run-time checks."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from binaries import built_both_ways
from tensors import rand, same

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """\
# Every construct the checker accepts, one small function each.
dim D = 4
dim L = 2

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"

record Stats {
  mean: [n] Real
  std: [n] NonNeg
}

fn stats(x: [b n]) -> Stats = Stats(mean=mean(x, over=b), std=std(x, over=b, correction=0))
fn spread(x: [b n]) -> [n] = stats(x).std
fn scale_rows(x: [b n D], s: [b n]) -> [b n D] = x * s
fn per_head(x: [b h n d], s: [h]) -> [b h n d] = x * s
fn flat(x: [b 3 D]) -> [b 12] = x to [b 12]
fn squash(x: [b D]) -> [b D] Unit = x to [b D] Unit
fn bucket(x: [b D]) -> [b D] Index[D] = x to [b D] Index[D]
fn kept(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]
fn best(x: [b D]) -> [b 2] {
  let (values, ids) = topk(x, 2, over=D)
  values
}
fn both(x: [b D]) -> ([b D], [b]) = (x * 2.0, sum(x, over=D))
fn gather(x: [b n D], ids: [k] Index[n]) -> [b k D] = take(x, ids, over=n)
fn pooled(x: [b 4 4 c]) -> [b 2 2 c] = reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)
fn mean_pool(x: [b n D]) -> [b D] = reduce(x, [b n d] -> [b d], mean)
fn tiled(x: [n D]) -> [3 n D] = repeat(x, [n d] -> [r n d], r=3)
fn heads(x: [b n 6]) -> [b 2 n 3] = rearrange(x, [b n (h d)] -> [b h n d], h=2)
fn early(x: [b D], flag: Bool) -> [b D] {
  if flag {
    return x * 2.0
  }
  x
}
fn relu(x: [b D]) -> [b D] = where(x > 0.0, x, 0.0)
fn masked(x: [b n n], keep: [n n] Bool) -> [b n n] = where(keep, x, -1e9)
fn shifted(x: [b t D]) -> [b t D] = roll(x, 1, dims=t)
fn flipped(x: [b t D]) -> [b t D] = flip(x, dims=t)
fn repeated(x: [b D], w: [D D], n: Int) -> [b D] {
  let h = x
  for i in range(n) {
    h = h @ w
  }
  h
}
fn joined(a: [b n D], c: [b m D]) -> [b n+m D] = concat(a, c, over=n)
fn claimed(x: [n D]) -> [4 D] = x as [4 D]
fn causal_attention(q: [b kv g i d], k: [b kv j d], v: [b kv j e]) -> [b kv g i e] {
  let scores = einsum(q, k, [b kv g i d], [b kv j d] -> [b kv g i j]) * d ** -0.5
  let visible = tril(ones([i j])) > 0.0
  let weights = softmax(where(visible, scores, -inf), over=j)
  einsum(weights, v, [b kv g i j], [b kv j e] -> [b kv g i e])
}
fn plain_attention(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d] {
  let weights = softmax(einsum(q, k, [b h i d], [b h j d] -> [b h i j]) / 3.0, over=j)
  einsum(weights, v, [b h i j], [b h j d] -> [b h i d])
}
fn positive(x: [n]) -> [n] = log(x as Pos)
fn dense(x: [b Din], w: [Dout Din], bias: [Dout] = none) -> [b Dout] = linear(x, w, bias)
fn made_optional(w: [D] = none) -> [D] f32 = ones([D])
fn whisper_stem(x: [b 4 2t], w1: [6 4 3], w2: [6 6 3], b2: [6]) -> [b 6 t] {
  let h = conv1d(x, w1, padding=1)
  conv1d(h, w2, b2, stride=2, padding=1)
}

model Block {
  w: [D D] = normal(std=0.02)
  fn forward(self, x: [b D]) -> [b D] = x @ self.w
}

model Net {
  blocks: [L] Block
  fn forward(self, x: [b D]) -> [b D] {
    let h = x
    for blk in self.blocks {
      h = blk(h)
    }
    h
  }
}
"""


m = built_both_ways("constructs", SOURCE)


def test_records_are_built_by_field_and_read_back(m):
    x = rand(5, 3)
    s = m.stats(x)
    same(s.mean, x.mean(0))
    same(s.std, x.std(0, correction=0))
    same(m.spread(x), x.std(0, correction=0))


def test_broadcasting_by_name_inserts_the_views(m):
    x, s = rand(2, 3, 4), rand(2, 3)
    same(m.scale_rows(x, s), x * s.unsqueeze(-1))
    x, s = rand(2, 5, 3, 6), rand(5)
    same(m.per_head(x, s), x * s.view(1, 5, 1, 1))


def test_to_reshapes_clamps_and_makes_indices(m):
    x = rand(2, 3, 4)
    same(m.flat(x), x.reshape(2, 12))
    y = rand(2, 4) * 3
    same(m.squash(y), y.clamp(0.0, 1.0))
    ids = m.bucket(y)
    assert ids.dtype == torch.int64
    same(ids, y.clamp(0, 3).long())


def test_masks_topk_tuples_and_take(m):
    x = rand(6, 4)
    x[2] = 0.0
    same(m.kept(x), x[x.sum(1) != 0])
    assert m.kept(x).shape == (5, 4)
    same(m.best(x), torch.topk(x, 2, dim=1).values)
    doubled, sums = m.both(x)
    same(doubled, x * 2.0)
    same(sums, x.sum(1))
    y, ids = rand(2, 5, 4), torch.tensor([4, 0, 0])
    same(m.gather(y, ids), y[:, ids])


def test_patterns_reduce_repeat_rearrange(m):
    x = rand(2, 4, 4, 3)
    same(m.pooled(x), torch.nn.functional.max_pool2d(x.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1))
    y = rand(2, 5, 4)
    torch.testing.assert_close(m.mean_pool(y), y.mean(1))
    z = rand(5, 4)
    same(m.tiled(z), z.unsqueeze(0).expand(3, 5, 4))
    w = rand(2, 5, 6)
    same(m.heads(w), w.reshape(2, 5, 2, 3).permute(0, 2, 1, 3))


def test_if_where_and_loops(m):
    x = rand(2, 4)
    same(m.early(x, True), x * 2.0)
    same(m.early(x, False), x)
    same(m.relu(x), torch.relu(x))
    s, keep = rand(2, 3, 3), torch.tril(torch.ones(3, 3, dtype=torch.bool))
    same(m.masked(s, keep), s.masked_fill(~keep, -1e9))
    w = rand(4, 4)
    same(m.repeated(x, w, 3), x @ w @ w @ w)
    a, c = rand(2, 3, 4), rand(2, 1, 4)
    same(m.joined(a, c), torch.cat([a, c], 1))


def test_an_optional_tensor_parameter_is_checked_only_when_given(m):
    x, w, bias = rand(3, 4), rand(5, 4), rand(5)
    same(m.dense(x, w), x @ w.T)
    same(m.dense(x, w, bias), x @ w.T + bias)
    # A parameter that may be left out gives made tensors no dtype or device:
    # they are f32, as the return type says.
    same(m.made_optional(), torch.ones(4))
    same(m.made_optional(rand(4)), torch.ones(4))
    if m.checks:
        with pytest.raises(m.runtime.ShapeError, match=r"dense: parameter `bias`"):
            m.dense(x, w, rand(4))


def test_extern_axis_axes_and_size_arguments(m):
    x = rand(2, 5, 4)
    same(m.shifted(x), torch.roll(x, 1, dims=1))
    same(m.flipped(x), torch.flip(x, dims=[1]))


def test_conv1d_halves_an_even_length_as_torch_does(m):
    """Whisper's stem: nn.ss's conv1d, stride 2 on a generic length 2t,
    which the checker proves is t."""
    x, w1, w2, b2 = rand(2, 4, 10), rand(6, 4, 3), rand(6, 6, 3), rand(6)
    expected = torch.nn.functional.conv1d(torch.nn.functional.conv1d(x, w1, padding=1), w2, b2, stride=2, padding=1)
    assert expected.shape == (2, 6, 5)
    same(m.whisper_stem(x, w1, w2, b2), expected)
    if m.checks:
        with pytest.raises(m.runtime.ShapeError, match=r"whisper_stem: parameter `x`"):
            m.whisper_stem(rand(2, 4, 9), w1, w2, b2)


def test_models_loop_over_their_stack(m):
    net = m.Net()
    assert [k for k, _ in net.named_parameters()] == ["blocks.0.w", "blocks.1.w"]
    x = rand(3, 4)
    w0, w1 = net.blocks[0].w, net.blocks[1].w
    same(net(x), x @ w0 @ w1)


def test_as_and_boundary_checks_raise_only_with_checks(m):
    x = rand(4, 4)
    same(m.claimed(x), x)
    if not m.checks:
        return
    with pytest.raises(m.runtime.ShapeError, match=r"x as \[4 D\]"):
        m.claimed(rand(5, 4))
    with pytest.raises(m.runtime.ShapeError, match=r"masked: parameter `x` does not fit \[b n n\]"):
        m.masked(rand(2, 3, 4), torch.ones(3, 3, dtype=torch.bool))
    with pytest.raises(m.runtime.ShapeError, match=r"scale_rows: parameter `s` \[b n\]"):
        m.scale_rows(rand(2, 3, 4), rand(3, 2))


def test_as_pos_checks_that_no_value_is_0_or_below(m):
    x = rand(5).abs() + 0.5
    same(m.positive(x), torch.log(x))
    if not m.checks:
        return
    with pytest.raises(m.runtime.ShapeError, match=r"x as Pos"):
        m.positive(torch.tensor([1.0, 0.0]))


def written_attention(q, k, v, scale, causal):
    """Attention as the ShapeScript source writes it, step by step."""
    scores = torch.einsum("...id,...jd->...ij", q, k) * scale
    if causal:
        visible = torch.tril(torch.ones(q.shape[-2], k.shape[-2])) > 0.0
        scores = torch.where(visible, scores, -torch.inf)
    return torch.einsum("...ij,...jd->...id", scores.softmax(-1), v)


def test_attention_written_out_runs_fused_and_equals_the_written_steps(m):
    import inspect

    # Two key/value heads of three query heads each; 4 queries over 6 keys
    # (causal is top-left: query i sees keys 0..=i).
    q, k, v = rand(2, 2, 3, 4, 8), rand(2, 2, 6, 8), rand(2, 2, 6, 5)
    expected = written_attention(q, k.unsqueeze(2), v.unsqueeze(2), 8**-0.5, True)
    torch.testing.assert_close(m.causal_attention(q, k, v), expected, rtol=1e-5, atol=1e-6)
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 8)
    expected = written_attention(q, k, v, 1 / 3.0, False)
    torch.testing.assert_close(m.plain_attention(q, k, v), expected, rtol=1e-5, atol=1e-6)
    for f in (m.causal_attention, m.plain_attention):
        source = inspect.getsource(f)
        assert "scaled_dot_product_attention" in source and "einsum" not in source
