"""Generated modules as plain PyTorch modules (docs/shapescript/python.md,
"In the PyTorch ecosystem"), for every example at reduced sizes
(example_catalog.py): torch.compile(fullgraph=True) traces the boundary
checks without a graph break and gives the same outputs; state_dict keys
are the field names, a state dict round-trips through torch.save and
load_state_dict, and a checkpoint of a hand-written reference with the same
field names loads; DistributedDataParallel and FSDP2's `fully_shard` over
two gloo processes on the CPU give the whole batch's gradients."""

from __future__ import annotations

import os
import socket
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

import ddp_worker  # noqa: E402
from example_catalog import CATALOG, build_small, missing, present  # noqa: E402
from reference_models import VitConfig, shapescript_layout  # noqa: E402

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))

PACKAGE = "eco_small"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("eco")
    return root, build_small(root, PACKAGE)


def make(built, name: str, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return getattr(built[1][name], CATALOG[name].top)().eval()


def example_input(name: str, batch: int = 2, seed: int = 3) -> torch.Tensor:
    return CATALOG[name].make_input(batch, torch.Generator().manual_seed(seed))


def test_every_example_is_catalogued():
    assert not missing(), f"add {missing()} to CATALOG in tests/python/example_catalog.py"


@pytest.mark.parametrize("name", present())
@torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True)
def test_torch_compile_fullgraph_traces_the_boundary_checks(built, name):
    # A mask index (`arange(b * n)[routed[:, e]]` in moe.ss) has a size known only at run
    # time; dynamo traces it into the graph only with this option
    # (docs/shapescript/python.md).
    torch._dynamo.reset()
    module = make(built, name)
    x = example_input(name)
    compiled = torch.compile(module, fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), module(x), rtol=1e-5, atol=1e-5)
    # The checks still guard the compiled module: a wrong rank is refused,
    # with the ShapeError itself where a graph break is allowed (fullgraph
    # reports the ShapeError it met while tracing as its own error).
    runtime = sys.modules[f"{PACKAGE}.shapescript_runtime"]
    with pytest.raises(torch._dynamo.exc.Unsupported, match="ShapeError"):
        with torch.no_grad():
            compiled(x[0])
    torch._dynamo.reset()
    with pytest.raises(runtime.ShapeError, match="must have"):
        with torch.no_grad():
            torch.compile(module, backend="aot_eager")(x[0])


@pytest.mark.parametrize("name", present())
def test_state_dict_round_trips_through_torch_save(built, name, tmp_path):
    original = make(built, name, seed=0)
    other = make(built, name, seed=1)
    torch.save(original.state_dict(), tmp_path / "checkpoint.pt")
    other.load_state_dict(torch.load(tmp_path / "checkpoint.pt"), strict=True)
    assert list(other.state_dict()) == list(original.state_dict())
    x = example_input(name)
    with torch.no_grad():
        assert torch.equal(other(x), original(x))


@pytest.mark.parametrize("name", ["vit", "gpt2", "convnet"])
def test_state_dict_keys_are_the_field_names(built, name):
    declared = {key: tuple(t.shape) for key, t in make(built, name).state_dict().items()}
    if name == "vit":
        cfg = VitConfig(image=32, patch=16, dim=48, heads=4, mlp=96, layers=2, classes=7)
    else:
        cfg = CATALOG[name].reference().cfg
    assert declared == shapescript_layout(name, cfg)


@pytest.mark.parametrize("name", [n for n in present() if CATALOG[n].reference])
def test_a_reference_checkpoint_with_the_same_field_names_loads(built, name, tmp_path):
    torch.manual_seed(5)
    reference = CATALOG[name].reference().eval()
    torch.save(reference.state_dict(), tmp_path / "reference.pt")
    module = make(built, name)
    module.load_state_dict(torch.load(tmp_path / "reference.pt"), strict=True)
    x = example_input(name)
    with torch.no_grad():
        torch.testing.assert_close(module(x), reference(x), rtol=1e-5, atol=1e-5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("mode", ["ddp", "fsdp"])
def test_two_gloo_processes_give_the_whole_batch_gradients(built, tmp_path, mode):
    root = built[0]
    model = make(built, "llama").train()
    torch.save(model.state_dict(), tmp_path / "state.pt")
    ids = example_input("llama", batch=4, seed=7)
    torch.save(ids, tmp_path / "batch.pt")
    ddp_worker.next_token_loss(model, ids).backward()
    want = {name: p.grad for name, p in model.named_parameters()}
    args = (
        2,
        free_port(),
        str(root),
        f"{PACKAGE}.llama",
        CATALOG["llama"].top,
        str(tmp_path / "state.pt"),
        str(tmp_path / "batch.pt"),
        str(tmp_path / "grads.pt"),
        mode,
    )
    torch.multiprocessing.spawn(ddp_worker.run, args=args, nprocs=2, join=True)
    got = torch.load(tmp_path / "grads.pt")
    assert got.keys() == want.keys()
    for name in want:
        torch.testing.assert_close(got[name], want[name], rtol=1e-5, atol=1e-6, msg=lambda m, name=name: f"{name}: {m}")
