"""examples/shapescript/unet.ss, built by `shapescript build` with reduced
widths, against the hand-written U-Net in reference_models.py: the same
weights (loaded by state_dict, the field names are the same) give the same
scores in f32; the module runs in bf16 end to end (`model.to(bf16)`, a
backward pass) with scores close to the f32 ones, and under
`torch.compile(fullgraph=True)`; an image whose sides are no multiples of 16
is a ShapeError."""

from __future__ import annotations

import importlib
import math
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

from reduced_examples import build_example  # noqa: E402
from reference_models import UNet, UNetConfig  # noqa: E402
from model_checks import (  # noqa: E402
    check_bf16_forward_and_backward,
    check_compiles_to_one_graph,
    check_equals_reference,
    check_same_layout,
)

DIMS = {"C1": 8, "Classes": 3}
CONFIG = UNetConfig(width=8, classes=3)

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="module")
def unet(tmp_path_factory):
    return build_example("unet", DIMS, tmp_path_factory.mktemp("unet"), "unet_small")


def images(batch: int = 2, height: int = 32, width: int = 48) -> torch.Tensor:
    return torch.randn(batch, 3, height, width, generator=torch.Generator().manual_seed(1))


def test_full_size_declares_the_reference_layout(tmp_path):
    module = build_example("unet", {}, tmp_path, "unet_full")
    model, declared = check_same_layout(module.UNet, UNet)
    assert declared["inc.conv1.weight"] == (64, 3, 3, 3)
    assert declared["up1.conv.conv1.weight"] == (512, 1024 + 512, 3, 3)
    assert declared["outc.weight"] == (2, 64, 1, 1)
    assert sum(p.numel() for p in model.parameters()) == 31_379_010


def test_equals_the_reference_with_the_same_weights(unet):
    torch.manual_seed(0)
    model = unet.UNet().eval()
    out = check_equals_reference(model, UNet(CONFIG).eval(), images())
    assert out.shape == (2, 3, 32, 48)


def test_convolutions_are_he_initialised(unet):
    # unet.ss's `normal(std=(2.0 / (Cin * K * K)) ** 0.5)`, for each model's sizes.
    torch.manual_seed(0)
    for cin, cout, k in [(64, 64, 3), (128, 64, 1)]:
        conv = unet.Conv(cin, cout, k)
        want = math.sqrt(2 / (cin * k * k))
        assert abs(conv.weight.std().item() / want - 1) < 0.05, (cin, k)
        assert abs(conv.weight.mean().item()) < 0.05 * want
        assert torch.count_nonzero(conv.bias) == 0


def test_runs_in_bf16_with_a_backward_pass(unet):
    check_bf16_forward_and_backward(unet.UNet, images())


def test_torch_compile_fullgraph_gives_the_same_scores(unet):
    check_compiles_to_one_graph(unet.UNet, images())


def test_sides_not_multiples_of_16_raise_shape_error(unet):
    runtime = importlib.import_module(unet.__name__.rsplit(".", 1)[0] + ".shapescript_runtime")
    with pytest.raises(
        runtime.ShapeError,
        match=r"UNet\.forward: parameter `img` \[b Channels 16h 16w\]",
    ):
        unet.UNet()(images(1, 32, 40))
