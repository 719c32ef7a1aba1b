"""Initialisers whose numbers depend on the model's sizes
(docs/shapescript/models.md, "Initialisers"): the UI test
tests/ui/shapescript/models/initialisers.ss, built by `shapescript build`,
fills its parameters with the statistics its formulas give for the sizes
each model is made with: He's `std=(2.0 / (Cin * K * K)) ** 0.5`,
PyTorch's default bounds `1 / sqrt(fan_in)`, dims, `exp` and `log`."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

from binaries import build_source  # noqa: E402

SOURCE = Path(__file__).resolve().parents[2] / "tests/ui/shapescript/models/initialisers.ss"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_source(tmp_path_factory.mktemp("initialisers"), "initialisers", SOURCE.read_text(), package="inits")


def close(got: float, want: float, rel: float = 0.05) -> bool:
    return abs(got - want) <= rel * abs(want)


def test_he_std_follows_each_models_fan_in(built):
    torch.manual_seed(0)
    for cin, k in [(64, 3), (32, 5)]:
        weight = built.Conv(cin, 64, k).weight
        assert weight.shape == (64, cin, k, k)
        want = math.sqrt(2 / (cin * k * k))
        assert close(weight.std().item(), want), (cin, k, weight.std().item(), want)
        assert abs(weight.mean().item()) < 0.05 * want


def test_uniform_bias_has_the_fan_in_bounds(built):
    torch.manual_seed(0)
    bias = built.Conv(64, 4096, 3).bias
    bound = 1 / math.sqrt(64 * 3 * 3)
    assert bias.min().item() >= -bound and bias.max().item() <= bound
    # Spread over the whole interval, not a narrower default.
    assert bias.min().item() < -0.95 * bound and bias.max().item() > 0.95 * bound


def test_dims_means_and_functions(built):
    torch.manual_seed(0)
    model = built.Embed(1000)
    d = built.D
    assert close(model.table.mean().item(), 0.5, rel=0.01)
    assert close(model.table.std().item(), 1 / d**0.5)
    lo, hi = -math.exp(-built.Scale), math.log(built.Scale * 2.0)
    assert model.gate.min().item() >= lo and model.gate.max().item() <= hi
    assert close(model.scale.std().item(), 1 / 1000, rel=0.3)
    assert close(model.conv.weight.std().item(), math.sqrt(2 / (d * 9)))
