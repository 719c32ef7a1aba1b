"""examples/shapescript/moe.ss, built by `shapescript build` with reduced
sizes, against the hand-written Mixtral-style sparse MoE layer in
reference_models.py: the same weights (loaded by state_dict, the field names
are the same) give the same outputs in f32, the router written in both as
Hugging Face writes it (softmax over every expert, top 2 renormalized, a
division the checker proves safe in moe.ss); dispatch is
sparse (each expert computes on the tokens routed to it only); the module
runs in bf16 end to end (`model.to(bf16)`, a backward pass) with outputs
close to the f32 ones, and under `torch.compile(fullgraph=True)`."""

from __future__ import annotations

import collections
import os
import sys

import pytest
import torch
import torch._dynamo
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(__file__))

from reduced_examples import build_example  # noqa: E402
from reference_models import MoeConfig, SparseMoe  # noqa: E402
from model_checks import (  # noqa: E402
    check_bf16_forward_and_backward,
    check_compiles_to_one_graph,
    check_equals_reference,
    check_same_layout,
)

DIMS = {"D": 32, "F": 48, "E": 4, "K": 2}
CONFIG = MoeConfig(dim=32, hidden=48, experts=4, top_k=2)

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="module")
def moe(tmp_path_factory):
    return build_example("moe", DIMS, tmp_path_factory.mktemp("moe"), "moe_small")


def tokens(batch: int = 3, n: int = 10, dtype=torch.float32) -> torch.Tensor:
    return torch.randn(batch, n, CONFIG.dim, generator=torch.Generator().manual_seed(1)).to(dtype)


def test_full_size_declares_mixtrals_moe_parameters(tmp_path):
    module = build_example("moe", {}, tmp_path, "moe_full")
    model, declared = check_same_layout(module.SparseMoe, SparseMoe)
    assert declared["gate.weight"] == (8, 4096)
    assert declared["experts.7.w1.weight"] == (14336, 4096)
    assert declared["experts.7.w2.weight"] == (4096, 14336)
    assert sum(p.numel() for p in model.parameters()) == 1_409_318_912


def test_equals_the_reference_with_the_same_weights(moe):
    torch.manual_seed(0)
    model = moe.SparseMoe().eval()
    check_equals_reference(model, SparseMoe(CONFIG).eval(), tokens())


def test_each_expert_computes_on_its_routed_tokens_only(moe):
    torch.manual_seed(0)
    model = moe.SparseMoe().eval()
    rows = []
    for expert in model.experts:
        expert.register_forward_hook(lambda _m, args, _out: rows.append(args[0].shape[0]))
    x = tokens()
    with torch.no_grad():
        model(x)
        chosen = torch.topk(model.gate(x.reshape(-1, CONFIG.dim)), CONFIG.top_k, dim=-1).indices
    # Every token reaches exactly its K experts: 30 tokens, 60 rows in all.
    assert rows == [int((chosen == e).any(dim=-1).sum()) for e in range(CONFIG.experts)]
    assert sum(rows) == x.shape[0] * x.shape[1] * CONFIG.top_k


def test_runs_in_bf16_with_a_backward_pass(moe):
    check_bf16_forward_and_backward(moe.SparseMoe, tokens())


def test_torch_compile_fullgraph_gives_the_same_outputs(moe):
    # A mask's row count depends on the data, so Dynamo traces `x[hit]`
    # only when told it may (the hand-written reference needs the same).
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        check_compiles_to_one_graph(moe.SparseMoe, tokens())


def test_without_dynamic_shape_capture_the_reference_breaks_the_graph_too(moe):
    torch.manual_seed(0)
    reference = SparseMoe(CONFIG).eval()
    torch._dynamo.reset()
    with torch.no_grad(), pytest.raises(torch._dynamo.exc.Unsupported, match="Dynamic shape operator"):
        torch.compile(reference, fullgraph=True, backend="aot_eager")(tokens())


class _CountOps(TorchDispatchMode):
    """Counts the ATen operations a forward pass dispatches, by name."""

    def __init__(self):
        super().__init__()
        self.ops: collections.Counter[str] = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


# Operations that make a view or read a number, no new tensor's worth of work.
_VIEWS = {"view", "unsqueeze", "squeeze", "select", "t", "unbind", "_local_scalar_dense"}


def _work(model, x) -> collections.Counter[str]:
    with torch.no_grad(), _CountOps() as count:
        model(x)
    return collections.Counter({op: n for op, n in count.ops.items() if op not in _VIEWS})


def test_dispatch_runs_the_references_operations_per_expert_and_a_few_once(moe):
    # Each expert's dispatch is the reference's (one nonzero, two gathers,
    # the expert, a multiply, an index_add_) without its `==`: the expert
    # mask (one_hot, its min/max checks, one `==` and one `any`) and the
    # gates for every expert (a multiply, a sum) are computed once, not a
    # comparison, an any, a where, a sum and a gather per expert.
    torch.manual_seed(0)
    model = moe.SparseMoe().eval()
    reference = SparseMoe(CONFIG).eval()
    reference.load_state_dict(model.state_dict(), strict=True)
    ours, theirs = _work(model, tokens()), _work(reference, tokens())
    assert ours["any"] == 1 and ours["eq"] == 1 and theirs["eq"] == CONFIG.experts
    for op in ("nonzero", "index", "index_add_", "mm", "silu"):
        assert ours[op] == theirs[op], op
    assert "arange" not in ours and "where" not in ours
    assert sum(ours.values()) <= sum(theirs.values()) + 8
