"""Axes a pattern names apart from their sizes, built and run: attention whose
queries and keys have one size `n` normalises over the keys `j` that the
einsum's right side names (`docs/shapescript/patterns.md`), a mask `[i j]`
pairs by name and a mask `[n n]` in order, and a name a pattern resolves to a
number (`k`) is found by `over=`. The attention and the mask `[n n]` are
the UI test `axes/pattern-names.ss`'s. Each generated function against
torch written by hand here, with and without the run-time checks."""

from __future__ import annotations


import torch

from binaries import built_both_ways, ui_program

SOURCE = """\
dim D = 8

fn per_query(q: [b h n d], k: [b h n d]) -> [b h n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  sum(s, over=i)
}
fn key_bias(q: [b h n d], k: [b h n d], kb: [n]) -> [b h n n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  s + rearrange(kb, [j] -> [j])
}
fn scale(x: [b h n m]) -> [b h n m] = x * 0.5
fn scaled(q: [b h n d], k: [b h n d]) -> [b h n n] {
  let s = scale(einsum(q, k, [b h i d], [b h j d] -> [b h i j]))
  softmax(s, over=j) + cumsum(s, over=i)
}
fn halves(x: [b D]) -> [b D] {
  let y = rearrange(x, [b (two k)] -> [b two k], two=2)
  rearrange(softmax(y, over=k), [b two k] -> [b (two k)])
}
"""


m = built_both_ways("axes", SOURCE)
# Attention with a mask, as the UI test types it.
named = built_both_ways("named", ui_program("axes/pattern-names.ss"))


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def scores(q, k):
    return torch.einsum("bhid,bhjd->bhij", q, k)


def test_attention_normalises_over_the_keys(named):
    q, k, v = rand(2, 3, 5, 4, seed=1), rand(2, 3, 5, 4, seed=2), rand(2, 3, 5, 4, seed=3)
    mask = torch.ones(5, 5, dtype=torch.bool).tril()
    w = torch.softmax(torch.where(mask, scores(q, k), -1e9), dim=-1)
    torch.testing.assert_close(named.attention(q, k, v, mask), w @ v)


def test_a_mask_of_one_size_pairs_in_order(named):
    q, k = rand(2, 3, 5, 4, seed=4), rand(2, 3, 5, 4, seed=5)
    bias = rand(5, 5, seed=6)
    torch.testing.assert_close(named.added(q, k, bias), torch.softmax(scores(q, k) + bias, dim=-1))


def test_reductions_and_broadcasting_find_the_named_axis(m):
    q, k = rand(2, 3, 5, 4, seed=7), rand(2, 3, 5, 4, seed=8)
    torch.testing.assert_close(m.per_query(q, k), scores(q, k).sum(dim=2))
    kb = rand(5, seed=9)
    torch.testing.assert_close(m.key_bias(q, k, kb), scores(q, k) + kb[None, None, None, :])


def test_a_call_keeps_the_names(m):
    q, k = rand(2, 3, 5, 4, seed=11), rand(2, 3, 5, 4, seed=12)
    s = scores(q, k) * 0.5
    torch.testing.assert_close(m.scaled(q, k), torch.softmax(s, dim=3) + torch.cumsum(s, dim=2))


def test_a_name_resolved_to_a_number_is_an_axis_name(m):
    x = rand(3, 8, seed=10)
    want = torch.softmax(x.reshape(3, 2, 4), dim=2).reshape(3, 8)
    torch.testing.assert_close(m.halves(x), want)
