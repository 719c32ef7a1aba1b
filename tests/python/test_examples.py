"""The parameters examples/shapescript/*.ss declare, read from the files
themselves (ss_fields.py): the published parameter counts, and exactly the
layout the references are mapped from (reference_models.shapescript_layout)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import ss_fields  # noqa: E402
from reference_models import shapescript_layout  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shapescript"

CASES = [
    ("vit.ss", "VisionTransformer", "vit", 86_567_656),
    ("gpt2.ss", "Gpt2", "gpt2", 124_439_808),
    ("convnet.ss", "ConvNet", "convnet", 620_362),
]


@pytest.mark.parametrize("file, top, model, parameters", CASES, ids=[c[0] for c in CASES])
def test_example_declares_the_published_parameters(file, top, model, parameters):
    declared = ss_fields.layout(EXAMPLES / file, top)
    assert ss_fields.count(declared) == parameters
    assert declared == shapescript_layout(model)


def test_reader_evaluates_dims_in_dependency_order_and_exactly():
    text = "dim Dh = D / H\ndim H = 12\ndim D = 768\ndim Images = [b 3 16gh 16gw]\n"
    assert ss_fields.dims(text) == {"H": 12, "D": 768, "Dh": 64}
    with pytest.raises(ValueError, match="not a whole size"):
        ss_fields.dims("dim D = 768 / 5\n")


def test_reader_splits_axes_across_operators():
    axes = ss_fields.split_axes("b Cout (H + 2*P - kh)/S + 1 2*D")
    assert axes == ["b", "Cout", "( H + 2 * P - kh ) / S + 1", "2 * D"]


def test_reader_refuses_what_it_does_not_understand(tmp_path):
    path = tmp_path / "m.ss"
    path.write_text("dim D = 4\nmodel M {\n  w: Unknown(D)\n}\n")
    with pytest.raises(ValueError, match="can't read the type"):
        ss_fields.layout(path, "M")
