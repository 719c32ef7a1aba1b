"""The soundness cases that check clean run as typed: each program of
tests/ui/shapescript/soundness without an expected error is built by the
real binary and run against torch written by hand here, with and without
the run-time checks. The refused cases are the UI tests' annotated lines,
left out here (docs/shapescript/soundness.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from binaries import build_source

CASES = Path(__file__).resolve().parents[1] / "ui" / "shapescript" / "soundness"


def build(tmp_path_factory, name: str, checks: bool):
    """The case's program without its refused lines (each refused case is
    one line with its `# ~ CODE` annotation), built and imported."""
    lines = (CASES / f"{name}.ss").read_text().splitlines()
    source = "\n".join(line for line in lines if "# ~" not in line) + "\n"
    root = tmp_path_factory.mktemp(name.replace("-", "_"))
    module = name.replace("-", "_")
    return build_source(root, module, source, checks, package=f"{module}_{int(checks)}")


@pytest.fixture(params=[True, False], ids=["checks", "no-checks"])
def checks(request):
    return request.param


def same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    torch.testing.assert_close(a, b)


def test_a_parameter_named_like_an_axis_is_the_parameter(tmp_path_factory, checks):
    m = build(tmp_path_factory, "param-named-like-an-axis", checks)
    x = torch.randn(2, 7)
    same(m.scale(x, 0.5), x * 0.5)
    x = torch.randn(5)
    same(m.shifted(x), x)


def test_python_names_never_clash(tmp_path_factory, checks):
    m = build(tmp_path_factory, "python-names", checks)
    x = torch.randn(5)
    same(m.both(x), x * 2 + x * 3)
    same(m.uses_math(x), torch.exp(x + 1))
    same(m.local_math(x), torch.nn.functional.logsigmoid(x))
    same(m.local_dim(torch.ones(3, 4)), torch.full((3, 4), 3.0))
    same(m.sums(x), x + 2 * x)
    same(m.shadow(x, True), x)
    same(m.shadow(x, False), x)
    same(m.loop_shadow(x), x + 8 * x)
    clash = m.Clash(training=0.25)
    assert clash.training is True, "the module's mode is not replaced by the field"
    clash.eval()
    assert clash.training is False
    y = torch.randn(3, 4)
    w = dict(clash.named_parameters())
    same(clash(y), (y @ w["cuda_"] + w["eval_"]) * 0.25)
    assert clash.to(torch.float64) is clash, "`to` is still the module's"
    same(clash.train_(y), y * 2)


def test_matmul_pairs_batch_axes_by_name(tmp_path_factory, checks):
    m = build(tmp_path_factory, "matmul-batch-by-name", checks)
    # Equal sizes for `h` and `b`, where positions and names disagree
    # silently, and different ones, where PyTorch would raise.
    for h, b in [(3, 3), (2, 5)]:
        a, w = torch.randn(h, b, 4, 6), torch.randn(h, 6, 7)
        same(m.heads_first(a, w), torch.einsum("hbnd,hde->hbne", a, w))
        a, w = torch.randn(b, 4, 6), torch.randn(b, h, 6, 7)
        same(m.batch_first(a, w), torch.einsum("bnd,bhde->bhne", a, w))
    a, w = torch.randn(4, 6), torch.randn(3, 6, 7)
    same(m.shared(a, w), torch.einsum("nd,hde->hne", a, w))
    a = torch.randn(6)
    same(m.vector(a, w), torch.einsum("d,hde->he", a, w))


def test_dtypes_are_pytorchs(tmp_path_factory, checks):
    m = build(tmp_path_factory, "dtype-promotion", checks)
    i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
    i64 = torch.tensor([4, 5, 6])
    same(m.as_float(i32), i32 * 1.5)
    assert m.as_float(i32).dtype == torch.float32
    same(m.true_division(i64), i64 / 2)
    same(m.wide(i32, i64), i32 + i64)
    assert m.wide(i32, i64).dtype == torch.int64
    same(m.count(torch.tensor([True, False, True])), torch.tensor(2))
    assert m.narrow(i32, i64).dtype == torch.int32


def test_dtype_less_functions_follow_the_caller(tmp_path_factory, checks):
    m = build(tmp_path_factory, "dtype-less-return", checks)
    assert m.declared().dtype == torch.float32
    x = torch.randn(4, dtype=torch.bfloat16)
    assert m.follows(x).dtype == torch.bfloat16


def test_indices_and_slices_that_check_clean_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "index-out-of-bounds", checks)
    x = torch.randn(10, 3)
    same(m.first_and_last(x), x[0] + x[-1])
    same(m.from_the_end(x), x[-10] + x[9])
    z = torch.randn(4, 3)
    same(m.longer(z), z[3])
    same(m.listed(z), z[[0, -1]])
    s = build(tmp_path_factory, "slice-bounds-are-ints", checks)
    y = torch.randn(8)
    same(s.half_of_dim(y), y[:4])
    same(s.positions(), torch.arange(4))


def test_ids_in_range(tmp_path_factory, checks):
    m = build(tmp_path_factory, "ids-in-range", checks)
    t = torch.randn(5, 3)
    same(m.own(t), t)
    ids = torch.tensor([4, 0])
    same(m.claimed(t, ids), t[ids])
    same(m.picked_claimed(t, ids), t[ids])
    same(m.picked_cols(t.T, torch.tensor([2, 1])), t.T[:, [2, 1]])
    if checks:
        with pytest.raises(m.runtime.ShapeError):
            m.claimed(t, torch.tensor([5]))


def test_transposes_by_name_are_explicit(tmp_path_factory, checks):
    m = build(tmp_path_factory, "swapped-axis-names", checks)
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    same(m.same(x, y), x + y)
    same(m.transposed(x), x.T)


def test_size_preconditions_that_hold_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "size-preconditions", checks)
    x, k = torch.randn(2, 3, 5, 6), torch.randn(3, 3, 3, 3)
    same(m.padded_conv(x, k), torch.nn.functional.conv2d(x, k, padding=1))
    same(m.roomy_conv(x, k), torch.nn.functional.conv2d(x, k))
    y = torch.randn(2, 3, 8, 8)
    same(m.half_padded(y), torch.nn.functional.max_pool2d(y, 2, padding=1))
    z = torch.randn(3, 9)
    same(m.enough(z), torch.topk(z, 5, dim=1).values)
    one = torch.randn(1, 4)
    same(m.population_spread(one), torch.zeros(4))


def test_sizes_read_with_an_offset_are_checked(tmp_path_factory, checks):
    m = build(tmp_path_factory, "sizes-through-calls", checks)
    x = torch.randn(6)
    same(m.roomy(x), x[1:])
    y = torch.randn(7)
    same(m.odd(y), y[1::2])
    if checks:
        with pytest.raises(m.runtime.ShapeError, match="at least 2"):
            m.drop_first(torch.randn(1))
        with pytest.raises(m.runtime.ShapeError, match="1 plus a multiple of 2"):
            m.odd(torch.randn(6))


def test_dropout_follows_the_model(tmp_path_factory, checks):
    m = build(tmp_path_factory, "dropout-follows-a-model", checks)
    block = m.Block().eval()
    x = torch.randn(3, 4)
    same(block(x), x @ block.w + x)
    block.train()
    torch.manual_seed(0)
    out = block(x)
    assert not torch.equal(out, x @ block.w + x)


def test_log_space_forms_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "float-rounding", checks)
    x = torch.tensor([[-200.0, 0.0, 30.0]])
    f = torch.nn.functional
    want = f.log_softmax(x, dim=1) + f.logsigmoid(x) + f.logsigmoid(-x)
    same(m.in_log_space(x), want)
    assert torch.isfinite(m.by_hand(x)).all()
    same(m.by_hand(x), torch.logsumexp(x, dim=1))
    h = torch.tensor([0.0, 2.0], dtype=torch.float16)
    assert torch.isfinite(m.half_fits(h)).all()
    u = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float16)
    same(m.f16_divided(u), u / 70000.0)
    ones = torch.ones(100000, dtype=torch.float16)
    same(m.f16_mean(ones), torch.tensor(1.0, dtype=torch.float16))
    # What the refused `f16_sum` would compute.
    assert torch.isinf(ones.sum() / 100000.0)


def test_integer_powers(tmp_path_factory, checks):
    m = build(tmp_path_factory, "dtype-promotion", checks)
    x = torch.tensor([1, 2, 4])
    same(m.squared(x), x**2)
    same(m.float_power(x), x**-1.0)


def test_optional_parameters_left_out(tmp_path_factory, checks):
    m = build(tmp_path_factory, "optional-parameters", checks)
    x, w, b = torch.randn(2, 3), torch.randn(4, 3), torch.randn(4)
    same(m.outer(x, w), x @ w.T)
    same(m.outer(x, w, b), x @ w.T + b)
    y = torch.randn(5)
    same(m.unused(y), y * 2)
    same(m.unused(y, torch.randn(2, 2)), y * 2)
    if checks:
        with pytest.raises(m.runtime.ShapeError):
            m.unused(y, torch.randn(2, 3))


def test_products_and_reductions_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "products-and-reductions", checks)
    x = torch.randn(3, dtype=torch.bfloat16)
    assert m.gate(x).dtype == torch.bool
    h = torch.rand(3, 2) + 0.1
    same(m.shaped(h), torch.tril(h))
    rows = torch.randn(4, 2)
    none = torch.zeros(4, dtype=torch.bool)
    same(m.counted(rows, none), torch.tensor(0.0))


def test_calls_bind_at_once_and_claims_convert_nothing(tmp_path_factory, checks):
    m = build(tmp_path_factory, "calls-and-claims", checks)
    assert m.crosswise(torch.randn(3)).shape == (1, 3, 1)
    x = torch.randn(3, dtype=torch.bfloat16)
    assert m.converted(x).dtype == torch.float32
    same(m.claimed_ids(torch.tensor([0, 3])), torch.tensor([0, 3]))


def test_arguments_and_fields_take_their_dtypes(tmp_path_factory, checks):
    m = build(tmp_path_factory, "dtypes-of-arguments", checks)
    a, x = torch.tensor([0, 2, 3], dtype=torch.int32), torch.randn(3)
    want = torch.clamp(a.to(torch.float32), min=torch.finfo(torch.float32).tiny).sum()
    same(m.positive(a, x), want)
    same(m.floats(a, x), a.to(torch.float32))


def test_a_rebound_let_claims_nothing_of_its_first_value(tmp_path_factory, checks):
    m = build(tmp_path_factory, "floats-and-rebinding", checks)
    x = -torch.rand(2, 3) - 0.1
    same(m.rebound(3, x), -x)
    p, q = torch.rand(4) + 0.5, torch.rand(4) + 0.5
    same(m.in_logs(p, q), torch.log(p) + torch.log(q))


def test_products_of_tiny_floats_are_zero_and_typed_so(tmp_path_factory, checks):
    m = build(tmp_path_factory, "products-underflow", checks)
    tiny = torch.full((2,), 1e-30)
    # f32 underflows: the product is 0, inside the declared `NonNeg`.
    same(m.prod_nonneg(tiny), torch.tensor(0.0))
    t64 = torch.full((3,), 1e-200, dtype=torch.float64)
    same(m.dot_nonneg(t64, t64), torch.tensor(0.0, dtype=torch.float64))
    same(m.mul_nonneg(t64, t64), torch.zeros(3, dtype=torch.float64))
    # A sum of positive values is never 0.
    same(m.sum_pos(t64), torch.tensor(3e-200, dtype=torch.float64))
    # bf16's least positive value is 0 in f16; a round trip is exact.
    assert torch.tensor([1e-30], dtype=torch.bfloat16).to(torch.float16)[0] == 0
    b = torch.tensor([1e-30, 2.5], dtype=torch.bfloat16)
    same(m.round_trip(b), b)
    h = torch.tensor([2.0**-24, 3.0], dtype=torch.float16)
    same(m.f16_to_bf16(h), h.to(torch.bfloat16))


def test_floats_to_ids_and_masks_are_integers_and_bools(tmp_path_factory, checks):
    m = build(tmp_path_factory, "floats-to-ids-and-masks", checks)
    x = torch.tensor([0.5, 1.5, 2.5, -1.0])
    same(m.ids(x), torch.tensor([0, 1, 2, 0]))
    b = torch.tensor([0.0, 2.0, -1.0], dtype=torch.bfloat16)
    same(m.mask(b), torch.tensor([False, True, True]))
    same(m.picked(b), torch.tensor([0.0, 2.0, -1.0], dtype=torch.bfloat16))
    same(m.counted(torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)), torch.tensor(3))
    i = torch.tensor([0, 2, 1], dtype=torch.int32)
    same(m.narrow(i), i)
    same(m.nonzero(torch.tensor([0.0, 0.25, -3.0])), torch.tensor([False, True, True]))
    same(m.counts(torch.tensor([0, 2, -1])), torch.tensor([False, True, True]))
    same(m.mask_as_floats(torch.tensor([0.0, 2.0, -1.0])), torch.tensor([0.0, 1.0, 1.0]))
    same(m.floats_of_a_mask(torch.tensor([False, True])), torch.tensor([0.0, 1.0]))


def test_clamped_ids_and_split_pieces_run_as_typed(tmp_path_factory, checks):
    c = build(tmp_path_factory, "clamp-and-domains", checks)
    x = torch.randn(3, 2)
    ids = torch.tensor([2, 0, 1])
    same(c.lowered(x, ids), x[ids.clamp(0, 9)])
    same(c.plain(x, ids), x[ids.clamp(max=0)])
    u = torch.rand(4, 6)
    same(c.within(u), u.clamp(-2.0, 0.5)[:, :3])
    s = build(tmp_path_factory, "split-and-reduce-domains", checks)
    signed = torch.rand(5, 2, 6, 3, dtype=torch.float64) * 2 - 1
    same(s.least(signed), signed.amin(0)[:, 2:4])
    unit = torch.rand(2, 6, 3, dtype=torch.float64)
    same(s.pieces(unit), unit[:, 4:])
    same(s.clamped(unit), torch.full((2, 2, 3), -2.0, dtype=torch.float64))
    small = signed / 5
    same(s.summed_by_name(small), small.sum(0)[:, 4:])
    if checks:
        with pytest.raises(s.runtime.ShapeError):
            s.summed_by_name(torch.ones(5, 2, 6, 3, dtype=torch.float64))


def test_ids_through_floats_that_hold_them_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "ids-through-floats", checks)
    w = torch.randn(2048, 2)
    ids = torch.tensor([2047, 0, 1025])
    same(m.exact(w, ids), w[ids])
    v = torch.randn(4096, 2)
    ids = torch.tensor([4095, 4094, 3])
    same(m.exact_f32(v, ids), v[ids])
    # What the refused `rounded` would compute: id 4095 is 4096 in bf16.
    assert ids.to(torch.bfloat16).to(torch.int64)[0] == 4096


def test_integers_that_cannot_wrap_run_as_typed(tmp_path_factory, checks):
    m = build(tmp_path_factory, "integers-wrap", checks)
    same(m.count(torch.tensor([True, False, True])), torch.tensor(2))
    x = torch.tensor([2**31 - 1, 0], dtype=torch.int32)
    same(m.widened(x), x.to(torch.int64))
    same(m.kept(x), x)
    same(m.negated(x), -x)
    ids = torch.tensor([999, 0], dtype=torch.int32)
    same(m.shifted(ids), ids + 1)
    f = torch.tensor([0.0, 0.5, 1.0, 3e9, -2.0])
    assert (m.to_pos(f) >= 1).all() and m.to_pos(f).dtype == torch.int32
    assert (m.to_nonneg(f) >= 0).all()
    assert ((m.to_unit(f) >= 0) & (m.to_unit(f) <= 1)).all()
    # What the refused ones would compute.
    assert (torch.tensor([50000], dtype=torch.int32) ** 2)[0] < 0
    assert torch.tensor([-(2**31)], dtype=torch.int32).abs()[0] < 0


def test_math_tails_run_as_typed(tmp_path_factory, checks):
    m = build(tmp_path_factory, "math-tails", checks)
    x = torch.linspace(-1, 1, 9)
    same(m.gelu_nonpos(x), torch.nn.functional.gelu(x - 7.0))
    b = x.to(torch.bfloat16)
    same(m.gelu_near(b), torch.nn.functional.gelu(b - 4.0))
    same(m.sigmoid_nonneg(x), torch.sigmoid(x - 100.0))
    # What the refused ones would compute: 0 where the types said otherwise.
    assert torch.nn.functional.gelu(torch.tensor([-6.0]))[0] == 0
    assert torch.sigmoid(torch.tensor([-100.0]))[0] == 0


def test_fractional_powers_of_non_negative_values_run(tmp_path_factory, checks):
    m = build(tmp_path_factory, "fractional-powers", checks)
    x = torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.0])
    same(m.magnitude(x), torch.sign(x) * x.abs() ** 1.5)
    same(m.clamped(x), x.clamp(min=0.0) ** 0.5)
    same(m.whole(x), x**3.0 + x**2)
    p = torch.tensor([0.5, -1.5, 2.0, 0.0, 3.0])
    u = torch.rand(5)
    same(m.positive(u, p), (u + 1.0) ** p)
    # What the refused `root` would compute.
    assert torch.isnan(torch.tensor([-1.0]) ** 1.5).all()
