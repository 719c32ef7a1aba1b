"""The parameters examples/shapescript/*.ss declare, read from the modules
`shapescript build` generates from them (instantiated on the meta device, so
nothing is allocated): the published parameter counts, and exactly the
layout the references are mapped from (reference_models.shapescript_layout)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

from binaries import binary  # noqa: E402
from reference_models import parameter_count, shapescript_layout  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shapescript"
PACKAGE = "examples_declared"

CASES = [
    ("vit", "VisionTransformer", 86_567_656),
    ("gpt2", "Gpt2", 124_439_808),
    ("convnet", "ConvNet", 620_362),
    ("llama", "Llama", 1_100_048_384),
    ("unet", "UNet", 31_379_010),
    ("moe", "SparseMoe", 1_409_318_912),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The generated module of every example, built by the real command."""
    out = tmp_path_factory.mktemp("examples")
    result = subprocess.run(
        [str(binary("shapescript")), "build", str(EXAMPLES), "-o", str(out / PACKAGE)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    sys.path.insert(0, str(out))
    try:
        return {model: importlib.import_module(f"{PACKAGE}.{model}") for model, _, _ in CASES}
    finally:
        sys.path.remove(str(out))


@pytest.mark.parametrize("model, top, parameters", CASES, ids=[f"{c[0]}.ss" for c in CASES])
def test_example_declares_the_published_parameters(generated, model, top, parameters):
    with torch.device("meta"):
        module = getattr(generated[model], top)()
    declared = {name: tuple(t.shape) for name, t in module.state_dict().items()}
    assert declared == shapescript_layout(model)
    assert parameter_count(module) == parameters
