"""The modules `shapescript build` generates from examples/shapescript/*.ss,
against the hand-written references in reference_models.py: same outputs for
the same weights, loss falling over 20 AdamW steps, torch.compile, and
ShapeError from the boundary checks (the full-size parameters are
test_examples.py's). Reduced variants are built from copies of the .ss files with smaller
dims, so the whole file runs in about a minute on two CPU cores."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch._inductor.config
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))

from binaries import binary  # noqa: E402

from reference_models import (  # noqa: E402
    ConvNet,
    ConvNetConfig,
    Gpt2,
    Gpt2Config,
    MoeConfig,
    SparseMoe,
    UNet,
    UNetConfig,
    VisionTransformer,
    VitConfig,
    shapescript_to_reference,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "shapescript"
CLASSES = {
    "vit": "VisionTransformer",
    "gpt2": "Gpt2",
    "convnet": "ConvNet",
    "unet": "UNet",
    "moe": "SparseMoe",
}

# Reduced sizes: the dims each copy of a .ss file is rebuilt with, and the
# reference config that matches them. vit.ss's patterns write the patch as 16.
SMALL = {
    "vit": (
        {"Image": 32, "D": 48, "H": 4, "Dmlp": 96, "L": 2, "Classes": 7},
        VitConfig(image=32, patch=16, dim=48, heads=4, mlp=96, layers=2, classes=7),
    ),
    "gpt2": (
        {"V": 61, "Ctx": 16, "D": 48, "H": 4, "L": 2},
        Gpt2Config(vocab=61, context=16, dim=48, heads=4, layers=2),
    ),
    "convnet": ({"C1": 8, "C2": 16, "C3": 32, "Hidden": 24}, ConvNetConfig(channels=(8, 16, 32), hidden=24)),
    "unet": ({"C1": 4, "Classes": 3}, UNetConfig(width=4, classes=3)),
    "moe": ({"D": 16, "F": 24, "E": 4}, MoeConfig(dim=16, hidden=24, experts=4)),
}

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
torch._inductor.config.compile_threads = 1


def shapescript_binary() -> Path:
    return binary("shapescript")


def build(sources: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(shapescript_binary()), "build", str(sources), "-o", str(out), *flags],
        capture_output=True,
        text=True,
    )


def load_package(folder: Path, package: str):
    sys.path.insert(0, str(folder))
    try:
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        return {model: importlib.import_module(f"{package}.{model}") for model in CLASSES}
    finally:
        sys.path.remove(str(folder))


def shrink(text: str, dims: dict[str, int]) -> str:
    for name, value in dims.items():
        text, count = re.subn(rf"^dim {name} = .*$", f"dim {name} = {value}", text, flags=re.M)
        assert count == 1, name
    return text


def build_small(tmp_path_factory, checks: bool):
    root = tmp_path_factory.mktemp("small")
    sources = root / "src"
    sources.mkdir()
    for model, (dims, _) in SMALL.items():
        (sources / f"{model}.ss").write_text(shrink((EXAMPLES / f"{model}.ss").read_text(), dims))
    flags = () if checks else ("--no-runtime-checks",)
    package = "examples_small" + ("" if checks else "_fast")
    result = build(sources, root / package, *flags)
    assert result.returncode == 0, result.stderr
    return load_package(root, package)


@pytest.fixture(scope="module", params=[True, False], ids=["checks", "no-checks"])
def small(request, tmp_path_factory):
    return build_small(tmp_path_factory, request.param)


@pytest.fixture(scope="module")
def small_checked(tmp_path_factory):
    return build_small(tmp_path_factory, True)


def generated(modules, model: str) -> torch.nn.Module:
    return getattr(modules[model], CLASSES[model])()


def reference_for(model: str, cfg, state) -> torch.nn.Module:
    reference = {"vit": VisionTransformer, "gpt2": Gpt2, "convnet": ConvNet, "unet": UNet, "moe": SparseMoe}[model]
    reference = reference(cfg).eval()
    reference.load_state_dict(shapescript_to_reference(model, state, cfg), strict=True)
    return reference


def example_input(model: str, cfg, batch: int, generator):
    if model == "gpt2":
        return torch.randint(0, cfg.vocab, (batch, 11), generator=generator)
    if model == "unet":
        return torch.randn(batch, 3, 16, 32, generator=generator)
    if model == "moe":
        return torch.randn(batch, 7, cfg.dim, generator=generator)
    return torch.randn(batch, 3, cfg.image, cfg.image, generator=generator)


def training_loss(model: str, module, x, generator):
    """A loss to train `module` on: next tokens for GPT-2, a class per image,
    a fixed target for the mixture of experts."""
    if model == "gpt2":
        return lambda: module.loss(x[:, :-1], x[:, 1:])
    if model == "moe":
        target = torch.randn(x.shape, generator=generator)
        return lambda: F.mse_loss(module(x), target)
    labels = torch.randint(0, getattr(SMALL[model][1], "classes", 10), (x.shape[0],), generator=generator)
    return lambda: F.cross_entropy(module(x), labels)


@pytest.mark.parametrize("model", list(CLASSES))
def test_outputs_match_the_reference(small, model):
    torch.manual_seed(0)
    cfg = SMALL[model][1]
    module = generated(small, model).eval()
    reference = reference_for(model, cfg, module.state_dict())
    x = example_input(model, cfg, 3, torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(module(x), reference(x), rtol=1e-5, atol=1e-5)


def test_gpt2_loss_and_convnet_predict_match_the_reference(small):
    torch.manual_seed(0)
    gpt2 = generated(small, "gpt2")
    reference = reference_for("gpt2", SMALL["gpt2"][1], gpt2.state_dict())
    ids = torch.randint(0, 61, (2, 9))
    targets = torch.randint(0, 61, (2, 9))
    with torch.no_grad():
        torch.testing.assert_close(gpt2.loss(ids, targets), reference.loss(ids, targets), rtol=1e-5, atol=1e-5)
    convnet = generated(small, "convnet")
    reference = reference_for("convnet", SMALL["convnet"][1], convnet.state_dict())
    img = torch.randn(4, 3, 32, 32)
    with torch.no_grad():
        assert torch.equal(convnet.predict(img), reference.predict(img))


# The U-Net's test is its bf16 backward pass (test_unet.py): a deep stack of
# relu convolutions from `normal(std=0.05)` learns too slowly for 20 steps.
@pytest.mark.parametrize("model", [m for m in CLASSES if m != "unet"])
def test_loss_falls_over_20_adamw_steps(small, model):
    torch.manual_seed(0)
    cfg = SMALL[model][1]
    module = generated(small, model)
    optimizer = torch.optim.AdamW(module.parameters(), lr={"gpt2": 3e-3, "moe": 1e-2}.get(model, 1e-3))
    generator = torch.Generator().manual_seed(2)
    x = example_input(model, cfg, 8, generator)
    loss_of = training_loss(model, module, x, generator)
    losses = []
    for _ in range(20):
        loss = loss_of()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.9 * losses[0], losses


@pytest.mark.parametrize("model", list(CLASSES))
def test_runs_under_torch_compile(small, model):
    torch.manual_seed(0)
    cfg = SMALL[model][1]
    module = generated(small, model).eval()
    x = example_input(model, cfg, 2, torch.Generator().manual_seed(3))
    compiled = torch.compile(module, fullgraph=True)
    # A mask's row count is known only when it runs (moe's `arange(b * n)[routed[:, e]]`):
    # dynamo captures such shapes only when told to (docs/shapescript/python.md).
    with torch.no_grad(), torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        torch.testing.assert_close(compiled(x), module(x), rtol=1e-4, atol=1e-4)


def test_wrong_shapes_from_python_raise_shape_error(small_checked):
    small = small_checked
    runtime = importlib.import_module(small["vit"].__name__.rsplit(".", 1)[0] + ".shapescript_runtime")
    vit = generated(small, "vit")
    with pytest.raises(
        runtime.ShapeError,
        match=re.escape(
            "VisionTransformer.forward: parameter `img` [b 3 Image Image], axis 2: expected 32, got 48 (vit.ss:"
        ),
    ):
        vit(torch.randn(1, 3, 48, 32))
    with pytest.raises(runtime.ShapeError, match="must have 4 axes"):
        vit(torch.randn(3, 32, 32))
    gpt2 = generated(small, "gpt2")
    with pytest.raises(runtime.ShapeError, match=re.escape("`arange(n) as [n] Index[Ctx]` does not hold")):
        gpt2(torch.zeros(1, 17, dtype=torch.long))


def test_build_refuses_files_with_errors_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.ss"
    bad.write_text("dim D = 768\nfn f(x: [n D]) -> [n D] = x + undefined_name\n")
    out = tmp_path / "out"
    result = build(bad, out)
    assert result.returncode == 1
    assert "error[" in result.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.ss"]


def test_build_output_is_deterministic_and_black_clean(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    assert build(EXAMPLES, first).returncode == 0
    assert build(EXAMPLES, second).returncode == 0
    for path in sorted(first.iterdir()):
        assert path.read_bytes() == (second / path.name).read_bytes(), path.name
    black = shutil.which("black", path=str(Path(sys.executable).parent))
    assert black is not None, "black is pinned in requirements-test.txt: run scripts/test"
    result = subprocess.run([black, "--check", "-q", str(first)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
