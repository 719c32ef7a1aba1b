"""Tests of the hand-written PyTorch references in reference_models.py.

Full-size models for parameter counts (built on the meta device, so no memory
is spent) and output shapes; reduced variants for training and torch.compile,
so the whole file runs in well under a minute on two CPU cores.
"""

from __future__ import annotations

import math
import os
import sys

import pytest
import torch
import torch._inductor.config
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))

from reference_models import (  # noqa: E402
    ConvNet,
    ConvNetConfig,
    Gpt2,
    Gpt2Config,
    VisionTransformer,
    VitConfig,
    parameter_count,
    shapescript_layout,
    shapescript_to_reference,
)

# Published totals. ViT-B/16 with a 1000-class head: 86,567,656 (timm's
# vit_base_patch16_224). GPT-2 small with its output layer tied to the token
# embedding, as released: 124,439,808 (Hugging Face's GPT2LMHeadModel).
VIT_B16_PARAMETERS = 86_567_656
GPT2_SMALL_PARAMETERS = 124_439_808
# Our own CIFAR-10 net, worked out by hand in convnet.ss's header.
CONVNET_PARAMETERS = 620_362

SMALL_VIT = VitConfig(image=32, patch=8, dim=64, heads=4, mlp=128, layers=2, classes=10)
SMALL_GPT2 = Gpt2Config(vocab=97, context=32, dim=64, heads=4, layers=2)
SMALL_CONVNET = ConvNetConfig(channels=(8, 16, 32), hidden=64)

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
# One compile worker: on a small shared machine, starting a pool of worker
# processes costs more than compiling the few kernels of the small models.
torch._inductor.config.compile_threads = 1


def build(model: str, cfg=None, device: str = "cpu") -> torch.nn.Module:
    classes = {"vit": VisionTransformer, "gpt2": Gpt2, "convnet": ConvNet}
    with torch.device(device):
        return classes[model](cfg) if cfg is not None else classes[model]()


def example_input(model: str, cfg, batch: int, generator: torch.Generator) -> torch.Tensor:
    if model == "vit":
        return torch.randn(batch, cfg.channels, cfg.image, cfg.image, generator=generator)
    if model == "gpt2":
        return torch.randint(0, cfg.vocab, (batch, 16), generator=generator)
    return torch.randn(batch, 3, cfg.image, cfg.image, generator=generator)


# ------------------------------------------------------------ parameter counts


@pytest.mark.parametrize(
    "model, expected",
    [("vit", VIT_B16_PARAMETERS), ("gpt2", GPT2_SMALL_PARAMETERS), ("convnet", CONVNET_PARAMETERS)],
)
def test_full_size_parameter_count(model, expected):
    assert parameter_count(build(model, device="meta")) == expected


@pytest.mark.parametrize("model", ["vit", "gpt2", "convnet"])
def test_shapescript_layout_maps_onto_the_reference(model):
    """The parameters the .ss file declares, renamed and reshaped, are exactly
    the reference's state dict: same keys, same shapes, same total."""
    reference = build(model, device="meta")
    layout = shapescript_layout(model)
    fake = {name: torch.empty(shape, device="meta") for name, shape in layout.items()}
    mapped = shapescript_to_reference(model, fake)
    expected = {name: tuple(t.shape) for name, t in reference.state_dict().items()}
    assert {name: tuple(t.shape) for name, t in mapped.items()} == expected
    assert sum(math.prod(shape) for shape in layout.values()) == parameter_count(reference)


def test_gpt2_head_is_tied_to_the_token_embedding():
    model = build("gpt2", SMALL_GPT2)
    assert "lm_head.weight" not in model.state_dict()
    ids = torch.randint(0, SMALL_GPT2.vocab, (1, 5))
    with torch.no_grad():
        hidden = model.ln_f(model.h[1](model.h[0](model.wte(ids) + model.wpe(torch.arange(5)))))
        torch.testing.assert_close(model(ids), hidden @ model.wte.weight.T)


# ------------------------------------------------------------------ shapes


# Full size on the meta device: torch works out every shape without computing
# (or allocating) anything, so ViT-B/16 and GPT-2 small cost milliseconds.


def test_vit_b16_output_shape():
    model = build("vit", device="meta")
    img = torch.empty(2, 3, 224, 224, device="meta")
    assert model(img).shape == (2, 1000)
    assert model.patch_embed(img).shape == (2, 196, 768)


def test_gpt2_small_output_shape():
    model = build("gpt2", device="meta")
    ids = torch.empty(2, 1024, dtype=torch.long, device="meta")
    assert model(ids).shape == (2, 1024, 50257)


def test_gpt2_rejects_a_sequence_longer_than_its_context():
    model = build("gpt2", SMALL_GPT2)
    with pytest.raises(ValueError, match="longer than the context"):
        model(torch.zeros(1, SMALL_GPT2.context + 1, dtype=torch.long))


def test_convnet_output_and_feature_shapes():
    torch.manual_seed(0)
    model = build("convnet").eval()  # small enough to run for real
    img = torch.randn(4, 3, 32, 32)
    with torch.no_grad():
        # (8 + 2*1 - 3) // 2 + 1 = 4: the rounded division in conv2d's return type.
        assert model.features(img).shape == (4, 128, 4, 4)
        assert model(img).shape == (4, 10)


# ------------------------------------------------------------- semantics


def test_vit_patch_convolution_is_the_pattern_flatten_order():
    """vit.ss flattens patches with rearrange([b c (gh 16) (gw 16)] ->
    [b (gh gw) (c 16 16)]) and projects them with a [D 768] weight; the
    reference uses a convolution. With the weight reshaped as
    shapescript_to_reference does, both give the same tokens."""
    torch.manual_seed(0)
    model = build("vit", SMALL_VIT)
    p, c, d = SMALL_VIT.patch, SMALL_VIT.channels, SMALL_VIT.dim
    img = torch.randn(2, c, SMALL_VIT.image, SMALL_VIT.image)
    b, _, height, width = img.shape
    gh, gw = height // p, width // p
    # The pattern, spelled out: b c (gh p) (gw p) -> b (gh gw) (c p p).
    patches = img.reshape(b, c, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, c * p * p)
    weight = torch.randn(d, c * p * p)
    bias = torch.randn(d)
    mapped = shapescript_to_reference("vit", {"patch_embed.weight": weight, "patch_embed.bias": bias}, SMALL_VIT)
    model.patch_embed.proj.weight.data.copy_(mapped["patch_embed.proj.weight"])
    model.patch_embed.proj.bias.data.copy_(mapped["patch_embed.proj.bias"])
    with torch.no_grad():
        torch.testing.assert_close(model.patch_embed(img), F.linear(patches, weight, bias), rtol=1e-4, atol=1e-4)


def test_gpt2_is_causal():
    """Changing a later token leaves the logits of earlier positions alone."""
    torch.manual_seed(0)
    model = build("gpt2", SMALL_GPT2).eval()
    ids = torch.randint(0, SMALL_GPT2.vocab, (1, 10))
    changed = ids.clone()
    changed[0, 7] = (changed[0, 7] + 1) % SMALL_GPT2.vocab
    with torch.no_grad():
        before, after = model(ids), model(changed)
    torch.testing.assert_close(before[:, :7], after[:, :7])
    assert not torch.allclose(before[:, 7:], after[:, 7:])


def test_gpt2_attention_matches_an_explicit_tril_mask():
    """The reference uses is_causal=True; gpt2.ss masks with tril and where.
    Both give the same attention."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 6, 8) for _ in range(3))
    scores = q @ k.transpose(-1, -2) * 8**-0.5
    visible = torch.tril(torch.ones(6, 6)) > 0
    weights = torch.softmax(torch.where(visible, scores, torch.tensor(-1e9)), dim=-1)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, is_causal=True), weights @ v)


def test_gpt2_loss_is_the_one_hot_formula_of_gpt2_ss():
    """gpt2.ss writes the loss as -mean(sum(one_hot(targets, V) * log_softmax(
    logits, over=V), over=V), over=(b n)); the reference uses cross_entropy."""
    torch.manual_seed(0)
    model = build("gpt2", SMALL_GPT2).eval()
    ids = torch.randint(0, SMALL_GPT2.vocab, (3, 9))
    targets = torch.randint(0, SMALL_GPT2.vocab, (3, 9))
    with torch.no_grad():
        log_probs = F.log_softmax(model(ids), dim=-1)
        spelled_out = -(F.one_hot(targets, SMALL_GPT2.vocab) * log_probs).sum(-1).mean()
        torch.testing.assert_close(model.loss(ids, targets), spelled_out)


def test_convnet_predicts_one_class_per_image():
    torch.manual_seed(0)
    model = build("convnet", SMALL_CONVNET).eval()
    with torch.no_grad():
        predicted = model.predict(torch.randn(5, 3, 32, 32))
    assert predicted.shape == (5,) and predicted.dtype == torch.int64
    assert bool(((predicted >= 0) & (predicted < 10)).all())


# ----------------------------------------------------------------- training


def classification_loss(model, inputs, targets):
    return F.cross_entropy(model(inputs), targets)


def language_model_loss(model, ids, _targets):
    return model.loss(ids[:, :-1], ids[:, 1:])


@pytest.mark.parametrize(
    "model, cfg, lr",
    [("vit", SMALL_VIT, 1e-3), ("gpt2", SMALL_GPT2, 3e-3), ("convnet", SMALL_CONVNET, 1e-3)],
)
def test_loss_falls_over_20_adamw_steps(model, cfg, lr):
    generator = torch.Generator().manual_seed(1)
    torch.manual_seed(1)
    net = build(model, cfg).train()
    inputs = example_input(model, cfg, 8, generator)
    classes = getattr(cfg, "classes", None)
    targets = torch.randint(0, classes, (8,), generator=generator) if classes else None
    loss_fn = language_model_loss if model == "gpt2" else classification_loss
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = loss_fn(net, inputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert all(math.isfinite(x) for x in losses), losses
    # Fitting one fixed batch: the loss must at least halve, not just wobble.
    assert losses[-1] < 0.5 * losses[0], losses


# ------------------------------------------------------------ torch.compile


@pytest.mark.parametrize("model, cfg", [("vit", SMALL_VIT), ("gpt2", SMALL_GPT2), ("convnet", SMALL_CONVNET)])
def test_torch_compile_matches_eager(model, cfg):
    torch.manual_seed(2)
    net = build(model, cfg).eval()
    inputs = example_input(model, cfg, 2, torch.Generator().manual_seed(2))
    compiled = torch.compile(net)
    with torch.no_grad():
        torch.testing.assert_close(compiled(inputs), net(inputs), rtol=1e-4, atol=1e-4)
