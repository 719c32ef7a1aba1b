"""Tensors for the tests of built packages: random inputs seeded by their
shape (the same each run), and bit-for-bit comparison."""

from __future__ import annotations

import torch


def same(a, b):
    """`a` and `b` are equal to the bit (no tolerance)."""
    torch.testing.assert_close(a, b, rtol=0, atol=0)


def rand(*shape):
    """A standard normal tensor of `shape`, seeded by the sum of its sizes."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))
