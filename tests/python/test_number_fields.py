"""A model's `Float`, `Int` and `Bool` fields and a number parameter's
default claim (docs/shapescript/models.md, "Number fields";
docs/shapescript/python.md), built by `shapescript build` and run: a field
is a keyword-only constructor argument with its literal default (required
without one) stored as a plain attribute, so `state_dict()` has no entry
for it; `self.eps as Pos` raises the ShapeError of the other run-time
checks for `eps=0.0` (not with `--no-runtime-checks`); the layer norm equals
one written by hand and runs under `torch.compile(fullgraph=True)`; a
claim in a default is checked where Python evaluates the default."""

from __future__ import annotations

import inspect

import pytest
import torch
import torch._dynamo

from binaries import build_package, build_source, import_package

SOURCE = """\
dim D = 8

model LayerNorm {
  eps: Float = 1e-5
  w: [D] = ones()
  b: [D]
  fn forward(self, x: [b n D]) -> [b n D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D) + (self.eps as Pos)) * self.w + self.b
}

model Block(H) {
  heads: Int
  gated: Bool = false
  norm: LayerNorm
  fn forward(self, x: [b n D]) -> [b n D] = self.norm(x) * self.heads
}

model Top {
  k: Int = 2
  fn forward(self, x: [b D]) -> [b ?k] {
    let (values, ids) = topk(x, k=self.k, over=D)
    values
  }
}

fn rms(x: [b D], eps: Float = (1e-5 as Pos)) -> [b D] = x * rsqrt(mean(x * x, over=D) + (eps as Pos))
fn widened(x: [b D], n: Int = (D - 9) as Pos) -> [b D] = x * n
"""


@pytest.fixture(scope="module", params=[True, False], ids=["checks", "no-checks"])
def m(request, tmp_path_factory):
    # `widened`'s default claims D - 9 = -1 is positive: the module could
    # not be imported with the checks, so it is built on its own below.
    source = SOURCE.replace("fn widened", "# fn widened")
    return build_source(tmp_path_factory.mktemp("fields"), "fields", source, request.param)


def rows(*shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(3))


def layer_norm(x, w, b, eps):
    centered = x - x.mean(dim=-1, keepdim=True)
    return centered * torch.rsqrt(x.var(dim=-1, keepdim=True) + eps) * w + b


def test_the_constructor_takes_eps_as_a_keyword_with_its_default(m):
    assert m.LayerNorm().eps == 1e-5
    assert m.LayerNorm(eps=1e-3).eps == 1e-3
    eps = inspect.signature(m.LayerNorm).parameters["eps"]
    assert eps.kind is inspect.Parameter.KEYWORD_ONLY
    assert eps.default == 1e-5
    with pytest.raises(TypeError):
        m.LayerNorm(1e-3)


def test_a_field_without_a_default_is_a_required_keyword_after_the_sizes(m):
    block = m.Block(4, heads=2)
    assert (block.H, block.heads, block.gated) == (4, 2, False)
    with pytest.raises(TypeError, match="heads"):
        m.Block(4)
    params = inspect.signature(m.Block).parameters
    assert list(params) == ["H", "heads", "gated"]
    assert params["heads"].default is inspect.Parameter.empty


def test_an_int_field_is_topk_s_k_by_keyword(m):
    x = rows(3, 8)
    torch.testing.assert_close(m.Top()(x), torch.topk(x, 2, dim=-1).values)
    torch.testing.assert_close(m.Top(k=5)(x), torch.topk(x, 5, dim=-1).values)


def test_numbers_are_not_in_the_state_dict(m):
    assert set(m.LayerNorm(eps=0.5).state_dict()) == {"w", "b"}
    assert set(m.Block(4, heads=2).state_dict()) == {"norm.w", "norm.b"}
    # A state dict saved with one eps loads into a model made with another.
    other = m.LayerNorm(eps=0.25)
    other.load_state_dict(m.LayerNorm(eps=0.5).state_dict())
    assert other.eps == 0.25


def test_the_output_equals_a_layer_norm_written_by_hand(m):
    model = m.LayerNorm(eps=1e-3)
    with torch.no_grad():
        model.w.copy_(rows(8))
        model.b.copy_(rows(8))
    x = rows(2, 5, 8)
    with torch.no_grad():
        torch.testing.assert_close(model(x), layer_norm(x, model.w, model.b, 1e-3))
        torch.testing.assert_close(m.Block(1, heads=3)(x), 3 * layer_norm(x, torch.ones(8), torch.zeros(8), 1e-5))


def test_eps_zero_raises_on_forward(m):
    model = m.LayerNorm(eps=0.0)
    x = rows(2, 5, 8)
    if not m.checks:
        # Without the checks the number goes through as it is.
        with torch.no_grad():
            torch.testing.assert_close(model(x), layer_norm(x, model.w, model.b, 0.0))
        return
    with pytest.raises(m.runtime.ShapeError, match=r"`self.eps as Pos` does not hold: the value is 0.0"):
        model(x)


def test_a_layer_norm_with_a_number_field_runs_under_torch_compile_fullgraph(m):
    torch._dynamo.reset()
    model = m.LayerNorm(eps=1e-4).eval()
    x = rows(2, 5, 8)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        want = layer_norm(x, model.w, model.b, 1e-4)
        torch.testing.assert_close(compiled(x), want)
    if not m.checks:
        return
    bad = torch.compile(m.LayerNorm(eps=-1.0), fullgraph=True, backend="aot_eager")
    with pytest.raises(torch._dynamo.exc.Unsupported, match="ShapeError"), torch.no_grad():
        bad(x)


def test_a_literal_claim_in_a_default_was_decided_when_checking(m, tmp_path):
    x = rows(3, 8)
    want = x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + 1e-5)
    torch.testing.assert_close(m.rms(x), want)
    assert inspect.signature(m.rms).parameters["eps"].default == 1e-5
    # Nothing is left to check for the literal: no comparison of two constants.
    text = inspect.getsource(m)
    assert "1e-5 as Pos" not in text


@pytest.mark.parametrize("checks", [True, False], ids=["checks", "no-checks"])
def test_another_claim_in_a_default_is_checked_where_the_def_is(tmp_path, checks):
    package = build_package(tmp_path, "fields", SOURCE, checks, "widened_pkg" + ("" if checks else "_fast"))
    if not checks:
        assert import_package(tmp_path, package, "fields").widened(torch.ones(1, 8)).tolist() == [[-1.0] * 8]
        return
    # The default (D - 9) is evaluated when the module runs its `def`: importing it raises.
    with pytest.raises(Exception, match=r"`\(D - 9\) as Pos` does not hold: the value is -1") as raised:
        import_package(tmp_path, package, "fields")
    assert raised.type.__name__ == "ShapeError"
