"""PyTorch's indexing and size forms, built by `shapescript build` and run on
real tensors: `none`, negative bounds, steps, `...`, integer tensors and
lists as indices, `**` and signed sizes in signatures, unary plus, and
NumPy's broadcasting where no name decides (`[3 1] * [4]`), `tril`/`triu`
with `diagonal=`, `over=` by position, `einsum` diagonals, and tuples of
sizes as extern arguments (`interpolate`, `pad`). Each
generated function is compared with torch written by hand here, and its
result's shape with the one the checker gave (the run-time checks raise on
any other). The indexing forms and `over=` by position are the programs of
the UI tests `indexing/pytorch-forms.ss` and `broadcast/over-position.ss`,
less their lines that expect a diagnostic. Each test runs with and without
the run-time checks."""

from __future__ import annotations


import pytest
import torch

from binaries import built_both_ways, ui_program
from tensors import rand, same

SOURCE = """\
dim K = 3

extern fn interpolate(input: [b c d h w], size: (Size[D2], Size[H2], Size[W2])) -> [b c D2 H2 W2] = "torch.nn.functional.interpolate"
extern fn pad(input: [... h w], pad: (Size[l], Size[r], Size[t], Size[u])) -> [... h + t + u w + l + r] = "torch.nn.functional.pad"

fn square(x: [n**2]) -> [n*n] = x
fn cube(x: [2**K 4]) -> [8 4] = x
fn shifted(x: [(-1 + n) 4]) -> [n - 1 4] = +x * 2.0
fn outer(c: [3 1], r: [4]) -> [3 4] = c * r
fn batch(x: [b 3 1], r: [4]) -> [b 3 4] = x + r
fn picked(c: [3 1], r: [4], k: [3 1] Bool) -> [3 4] = where(k, c, r)
fn strict_lower(x: [b n n]) -> [b n n] = tril(x, diagonal=-1)
fn upper_band(x: [n m], k: Int) -> [n m] = triu(x, k)
fn diagonal(x: [n n]) -> [n] = einsum(x, [i i] -> [i])
fn trace(x: [n n]) -> [] = einsum(x, [i i] -> [])
fn up(x: [b c 8 16 16]) -> [b c 16 32 32] = interpolate(x, size=(16, 32, 32))
fn padded(x: [b 10 20]) -> [b 14 26] = pad(x, (3, 3, 2, 2))
fn by_axis(x: [b c n n n]) -> [b c 2*n 2*n 2*n] = interpolate(x, size=(2*n, 2*n, 2*n))
"""


m = built_both_ways("indexing", SOURCE)
# The indexing forms and `over=` by position that two UI tests type.
forms = built_both_ways("forms", ui_program("indexing/pytorch-forms.ss"))
over = built_both_ways("over", ui_program("broadcast/over-position.ss"))


def test_none_adds_an_axis_of_size_one(forms):
    x = rand(10, 20)
    same(forms.lead(x), x[None])
    same(forms.mid(x), x[:, None])
    assert forms.mid(x).shape == (10, 1, 20)
    y = rand(2, 3)
    same(forms.both_ends(y), y[None, ..., None])


def test_negative_bounds_and_steps(forms):
    x = rand(10, 20)
    same(forms.drop_last(x), x[:-1])
    same(forms.last_three(x), x[-3:])
    same(forms.from_end(rand(7)), rand(7)[1:-1])
    same(forms.every_other(rand(100)), rand(100)[::2])
    same(forms.every_third(rand(10)), rand(10)[1::3])
    assert forms.every_third(rand(10)).shape == (3,)
    for size in (3, 5, 9):
        assert forms.odd_halves(rand(size)).shape == ((size + 1) // 2,)
    # `[2*n + 1]` is read back as `n = (size - 1) // 2`, which is at least 1.
    if forms.checks:
        with pytest.raises(forms.runtime.ShapeError, match="at least 3"):
            forms.odd_halves(rand(1))


def test_ellipsis(forms):
    x = rand(2, 3, 8)
    same(forms.last_axis(x), x[..., 0])
    same(forms.last_two(x), x[..., :2])
    same(forms.first_row(x), x[0, ...])


def test_integer_tensors_and_lists_pick_positions(forms):
    x = rand(5, 4)
    ids = torch.tensor([4, 0, 0])
    same(forms.rows(x, ids), x[ids])
    y = rand(2, 5, 4)
    same(forms.cols(y, ids), y[:, ids])
    g = torch.tensor([[0, 1], [4, 3], [2, 2]])
    same(forms.grid(x, g), x[g])
    assert forms.grid(x, g).shape == (3, 2, 4)
    same(forms.listed(x), x[[0, -1]])
    z, a, c = rand(5, 6, 4), torch.tensor([1, 2, 3]), torch.tensor([5, 0, 1])
    same(forms.pairs(z, a, c), z[a, c])
    w = rand(5, 4, 6)
    same(forms.apart(w, a, c), w[a, :, c])
    assert forms.apart(w, a, c).shape == (3, 4)
    v = rand(2, 5, 6)
    same(forms.int_first(v, a), v[0, a])


def test_powers_and_signed_sizes(m):
    x = rand(9)
    same(m.square(x), x)
    y = rand(8, 4)
    same(m.cube(y), y)
    s = rand(3, 4)
    same(m.shifted(s), s * 2.0)


def test_numpy_broadcasting_when_no_name_decides(m):
    c, r = rand(3, 1), rand(4)
    same(m.outer(c, r), c * r)
    x = rand(2, 3, 1)
    same(m.batch(x, r), x + r)
    k = rand(3, 1) > 0
    same(m.picked(c, r, k), torch.where(k, c, r))


def test_triangles_take_a_diagonal(m):
    x = rand(2, 4, 4)
    same(m.strict_lower(x), torch.tril(x, diagonal=-1))
    y = rand(3, 5)
    same(m.upper_band(y, 2), torch.triu(y, 2))


def test_over_by_position(over):
    a, c = rand(2, 5), rand(2, 3)
    same(over.joined(a, c), torch.cat([a, c], -1))
    f, g = rand(6, 4), rand(2, 4)
    same(over.front(f, g), torch.cat([f, g], 0))
    x = rand(3, 8)
    same(over.halves(x), x[:, :4] + x[:, 4:])
    same(over.total(a), a.sum(-1))
    same(over.stacked(a, a * 2), torch.stack([a, a * 2], -1))
    same(over.between(a, a, c.sum(-1, keepdim=True).expand(2, 5)), torch.stack([a, a, c.sum(-1, keepdim=True).expand(2, 5)], 1))


def test_einsum_diagonal_and_trace(m):
    x = rand(4, 4)
    same(m.diagonal(x), torch.diagonal(x))
    torch.testing.assert_close(m.trace(x), torch.trace(x))


def test_tuples_of_sizes(m):
    x = rand(1, 2, 8, 16, 16)
    F = torch.nn.functional
    same(m.up(x), F.interpolate(x, size=(16, 32, 32)))
    y = rand(2, 10, 20)
    same(m.padded(y), F.pad(y, (3, 3, 2, 2)))
    z = rand(1, 1, 3, 3, 3)
    same(m.by_axis(z), F.interpolate(z, size=(6, 6, 6)))
