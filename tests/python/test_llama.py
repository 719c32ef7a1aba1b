"""examples/shapescript/llama.ss, built by `shapescript build` with reduced
sizes, against the hand-written LLaMA in reference_models.py: the same
weights (loaded by state_dict, the field names are the same; the rotary
tables are buffers in both) give the same logits in f32, and the module runs in bf16 end to end (`model.to(bf16)`, a
backward pass) with logits close to the f32 ones."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

from reduced_examples import build_example  # noqa: E402
from reference_models import Llama, LlamaConfig  # noqa: E402
from model_checks import (  # noqa: E402
    check_bf16_forward_and_backward,
    check_compiles_to_one_graph,
    check_equals_reference,
    check_same_layout,
)

DIMS = {"V": 61, "Ctx": 32, "D": 64, "H": 8, "Hkv": 2, "L": 2, "Dmlp": 96}
CONFIG = LlamaConfig(vocab=61, context=32, dim=64, heads=8, kv_heads=2, layers=2, mlp=96)

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return build_example("llama", DIMS, tmp_path_factory.mktemp("llama"), "llama_small")


def ids(batch: int = 2, n: int = 12) -> torch.Tensor:
    return torch.randint(0, CONFIG.vocab, (batch, n), generator=torch.Generator().manual_seed(1))


def test_full_size_declares_tinyllamas_parameters(tmp_path):
    module = build_example("llama", {}, tmp_path, "llama_full")
    model, declared = check_same_layout(module.Llama, Llama)
    # The rotary tables are buffers: in the state dict, not parameters.
    assert declared["cos"] == declared["sin"] == (2048, 32)
    assert sum(p.numel() for p in model.parameters()) == 1_100_048_384


def test_equals_the_reference_with_the_same_weights(llama):
    torch.manual_seed(0)
    model = llama.Llama().eval()
    reference = Llama(CONFIG).eval()
    # The tables each computes itself agree before the state dict is copied.
    torch.testing.assert_close(model.cos, reference.cos, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(model.sin, reference.sin, rtol=1e-6, atol=1e-6)
    check_equals_reference(model, reference, ids())


def test_runs_in_bf16_with_a_backward_pass(llama):
    model = check_bf16_forward_and_backward(llama.Llama, ids(), float_input=False)
    assert model.cos.dtype == torch.bfloat16 and not model.cos.requires_grad


def test_torch_compile_fullgraph_gives_the_same_logits(llama):
    check_compiles_to_one_graph(llama.Llama, ids())
