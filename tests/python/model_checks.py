"""The checks every example model's tests run: at full size it declares the
hand-written reference's weights, it equals that reference given the same
weights, `torch.compile` traces it in one graph with the same outputs, and
in bf16, end to end with a backward pass, it stays close to its f32
outputs."""

import torch


def check_bf16_forward_and_backward(make_model, x, float_input=True):
    """Builds `make_model()` after `torch.manual_seed(0)` and runs it on `x` in f32,
    then casts both to bf16 (`x` only when it holds floats: token ids stay
    integers), runs forward and a backward pass, and checks every gradient
    is bf16 and finite and the outputs are close to the f32 ones. Returns the
    bf16 model for further checks."""
    torch.manual_seed(0)
    model = make_model()
    with torch.no_grad():
        want = model(x)
    model.to(torch.bfloat16)
    out = model(x.to(torch.bfloat16) if float_input else x)
    assert out.dtype == torch.bfloat16
    out.float().square().mean().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.dtype == torch.bfloat16, name
        assert torch.isfinite(p.grad).all(), name
    torch.testing.assert_close(out.float(), want, rtol=0.05, atol=0.02)
    return model


def check_equals_reference(model, reference, x):
    """Copies `model`'s weights into `reference` and checks that both give
    the same outputs on `x`; returns `model`'s."""
    reference.load_state_dict(model.state_dict(), strict=True)
    with torch.no_grad():
        out = model(x)
        torch.testing.assert_close(out, reference(x), rtol=1e-5, atol=1e-5)
    return out


def check_compiles_to_one_graph(make_model, x):
    """`torch.compile(fullgraph=True)` traces `make_model()` (built with
    `torch.manual_seed(0)`, in eval mode) without a graph break and gives its eager
    outputs on `x`."""
    torch.manual_seed(0)
    model = make_model().eval()
    with torch.no_grad():
        want = model(x)
        got = torch.compile(model, fullgraph=True, backend="aot_eager")(x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def check_same_layout(model_class, reference_class):
    """Built at full size on the meta device (no memory), the model's state
    dict has the reference's entries with their shapes; returns the model
    and those shapes."""
    with torch.device("meta"):
        model = model_class()
        reference = reference_class()
    declared = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert declared == {k: tuple(v.shape) for k, v in reference.state_dict().items()}
    return model, declared
