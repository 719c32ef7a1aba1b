"""The .ss examples' algorithms (transcribed in shapescript_transcriptions.py)
against the independent references, with the same weights: random weights in
ShapeScript's layout, mapped onto the reference by shapescript_to_reference
and loaded strictly, so a missing, extra or misshapen parameter fails too."""

from __future__ import annotations

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

import shapescript_transcriptions as ss  # noqa: E402
from reference_models import (  # noqa: E402
    ConvNet,
    ConvNetConfig,
    Gpt2,
    Gpt2Config,
    VisionTransformer,
    VitConfig,
    shapescript_layout,
    shapescript_to_reference,
)

VIT = VitConfig(image=32, patch=8, dim=48, heads=4, mlp=96, layers=2, classes=7)
GPT2 = Gpt2Config(vocab=61, context=16, dim=48, heads=4, layers=2)
CONVNET = ConvNetConfig(channels=(8, 16, 32), hidden=24)


def random_parameters(model: str, cfg, seed: int = 0) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return {
        name: torch.randn(shape, generator=generator) * (0.3 if len(shape) > 1 else 1.0)
        for name, shape in shapescript_layout(model, cfg).items()
    }


def reference_with(model_class, model: str, cfg, params) -> torch.nn.Module:
    reference = model_class(cfg).eval()
    reference.load_state_dict(shapescript_to_reference(model, params, cfg), strict=True)
    return reference


def test_vit_ss_matches_the_reference():
    params = random_parameters("vit", VIT)
    reference = reference_with(VisionTransformer, "vit", VIT, params)
    img = torch.randn(3, 3, VIT.image, VIT.image, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(ss.vit_forward(params, img, VIT), reference(img), rtol=1e-4, atol=1e-4)


def test_gpt2_ss_matches_the_reference():
    params = random_parameters("gpt2", GPT2)
    reference = reference_with(Gpt2, "gpt2", GPT2, params)
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, GPT2.vocab, (2, 11), generator=generator)
    targets = torch.randint(0, GPT2.vocab, (2, 11), generator=generator)
    with torch.no_grad():
        torch.testing.assert_close(ss.gpt2_forward(params, ids, GPT2), reference(ids), rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(
            ss.gpt2_loss(params, ids, targets, GPT2), reference.loss(ids, targets), rtol=1e-4, atol=1e-4
        )


def test_gpt2_ss_rejects_more_positions_than_its_context():
    params = random_parameters("gpt2", GPT2)
    with pytest.raises(ValueError, match="ShapeError"):
        ss.gpt2_forward(params, torch.zeros(1, GPT2.context + 1, dtype=torch.long), GPT2)


def test_convnet_ss_matches_the_reference():
    params = random_parameters("convnet", CONVNET)
    reference = reference_with(ConvNet, "convnet", CONVNET, params)
    img = torch.randn(4, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(ss.convnet_forward(params, img, CONVNET), reference(img), rtol=1e-4, atol=1e-4)
        assert torch.equal(ss.convnet_predict(params, img, CONVNET), reference.predict(img))
