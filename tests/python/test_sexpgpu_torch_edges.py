"""The `nn` library and the products at the edges where they once differed
from PyTorch (issue "SexpGPU speaks PyTorch"): a `.sx` program computes
values and gradients of NumPy's arrays at once, outside any graph, and
saves them with `save-npz`; PyTorch computes the same in f32. Each edge
holds a value whose old result was NaN or a different number: `nn/silu`'s
gradient below -89, `nn/relu`'s gradient at 0, `nn/logsumexp` of a row
holding +inf and of a row of -inf only, `prod`/`cumprod` with an
infinite first element or a signed zero, `clip` with crossed or NaN
bounds, and `std`'s gradient where the deviation is 0. Then every activation of `nn`,
value and gradient, over both tails and every kink.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_compare import f32, grad, run_outputs, same

PROGRAM = """
(require nn)
(def d (load-npz "in.npz"))
(defn grad-of [f x]
  (:x (second (value-and-grad (fn [p] (sum (f (:x p)))) {:x x}))))
(defn weighted [f x w]
  (:x (second (value-and-grad (fn [p] (sum (* w (f (:x p))))) {:x x}))))
(save-npz "out.npz"
  {:silu (nn/silu (:silu d))
   :silu-grad (grad-of nn/silu (:silu d))
   :relu (nn/relu (:relu d))
   :relu-grad (grad-of nn/relu (:relu d))
   :lse (nn/logsumexp (:lse d))
   :lse-keep (nn/logsumexp (:lse d) :axis 0 :keepdims true)
   :lse-grad (weighted nn/logsumexp (:lse-finite d) (:lse-w d))
   :prod (prod (:prod d) :axes [1])
   :cumprod (cumprod (:prod d))
   :cumprod-reverse (cumprod (:prod d) :reverse true)
   :cumprod-grad (weighted cumprod (:cumprod-finite d) (:cumprod-w d))
   :clip-crossed (clip (:clip d) 0.5 -1.0)
   :clip-nan (clip (:clip d) ##NaN 1.0)
   :clip-nan-tensor (clip (:clip d) (:clip-lo d) 1.0)
   :clip-grad (weighted (fn [t] (clip t -1.0 2.0)) (:clip d) (:clip-w d))
   :std (std (:std d) :axes [1])
   :std-grad (weighted (fn [t] (std t :axes [1])) (:std d) (:std-w d))
   :lerp-bf16 (lerp (cast (:clip-w d) :bf16) (cast (:clip-lo d) :bf16) 0.3)
   :lerp-bf16-far (lerp (cast (:clip-w d) :bf16) (cast (:clip-lo d) :bf16) 0.7)
   :lerp (lerp (:clip-w d) (:clip d) 0.3)
   ;; The same through `call`, on the compiled CPU backend (the values
   ;; above ran on the reference executor; gradients are compiled).
   :silu-cpu (call nn/silu (:silu d))
   :relu-cpu (call nn/relu (:relu d))
   :lse-cpu (call nn/logsumexp (:lse d))
   :prod-cpu (call (fn [x] (prod x :axes [1])) (:prod d))
   :cumprod-cpu (call cumprod (:prod d))})

(def activations
  {:gelu nn/gelu
   :gelu-tanh (fn [x] (nn/gelu x :approximate :tanh))
   :quick-gelu nn/quick-gelu
   :softplus nn/softplus
   :softplus-beta (fn [x] (nn/softplus x :beta 2.0 :threshold 5.0))
   :leaky-relu nn/leaky-relu
   :leaky-relu-slope (fn [x] (nn/leaky-relu x :negative-slope 0.2))
   :elu (fn [x] (nn/elu x :alpha 1.5))
   :selu nn/selu
   :celu (fn [x] (nn/celu x :alpha 0.5))
   :softsign nn/softsign
   :logsigmoid nn/logsigmoid
   :hardsigmoid nn/hardsigmoid
   :hardswish nn/hardswish
   :hardtanh (fn [x] (nn/hardtanh x :min-val -2.0 :max-val 2.5))
   :mish nn/mish
   :silu nn/silu
   :relu nn/relu})
(def x (:act d))
(save-npz "act.npz"
  (into {} (mapcat (fn [[k f]]
                     [[k (f x)]
                      [(keyword (str (name k) "-cpu")) (call f x)]
                      [(keyword (str (name k) "-grad")) (weighted f x (:act-w d))]])
                   activations)))
(def probs (:probs d))
(def pt (:prob-targets d))
(def lp (:log-probs d))
(def ids (:ids d))
(def gx (:group-x d))
(save-npz "losses.npz"
  {:bce (nn/binary-cross-entropy probs pt)
   :bce-sum (nn/binary-cross-entropy probs pt :reduction :sum :weight (:prob-w d))
   :bce-none (nn/binary-cross-entropy probs pt :reduction :none)
   :bce-grad (:x (second (value-and-grad
                          (fn [p] (nn/binary-cross-entropy (:x p) pt :weight (:prob-w d)))
                          {:x (:probs-inner d)})))
   :nll (nn/nll-loss lp ids)
   :nll-weighted (nn/nll-loss lp ids :weight (:class-w d) :ignore-index 1)
   :nll-sum (nn/nll-loss lp ids :weight (:class-w d) :reduction :sum)
   :nll-none (nn/nll-loss lp ids :ignore-index 1 :reduction :none)
   :nll-grad (:x (second (value-and-grad
                          (fn [p] (nn/nll-loss (:x p) ids :weight (:class-w d) :ignore-index 1))
                          {:x lp})))
   :ce (nn/cross-entropy (:ce-logits d) ids)
   :ce-options (nn/cross-entropy (:ce-logits d) ids :weight (:class-w d) :ignore-index 1
                                 :label-smoothing 0.2)
   :ce-sum (nn/cross-entropy (:ce-logits d) ids :label-smoothing 0.1 :reduction :sum)
   :ce-none (nn/cross-entropy (:ce-logits d) ids :weight (:class-w d) :reduction :none)
   :ce-probs (nn/cross-entropy (:ce-logits d) (:ce-probs d) :weight (:class-w d)
                               :label-smoothing 0.1)
   :ce-grad (:x (second (value-and-grad
                         (fn [p] (nn/cross-entropy (:x p) ids :weight (:class-w d) :ignore-index 1
                                                   :label-smoothing 0.2))
                         {:x (:ce-logits d)})))
   :ce-probs-grad (:x (second (value-and-grad
                               (fn [p] (nn/cross-entropy (:x p) (:ce-probs d) :label-smoothing 0.1))
                               {:x (:ce-logits d)})))
   :bcel (nn/binary-cross-entropy-with-logits (:ce-logits d) (:ce-probs d)
                                              :pos-weight (:class-w d) :reduction :sum)
   :bcel-none (nn/binary-cross-entropy-with-logits (:ce-logits d) (:ce-probs d)
                                                   :weight (:ce-probs d) :reduction :none)
   :bcel-grad (:x (second (value-and-grad
                           (fn [p] (nn/binary-cross-entropy-with-logits (:x p) (:ce-probs d)
                                                                        :pos-weight (:class-w d)))
                           {:x (:ce-logits d)})))
   :isclose (cast (nn/isclose (:close-a d) (:close-b d)) :i32)
   :isclose-nan (cast (nn/isclose (:close-a d) (:close-b d) :rtol 0.1 :atol 0.0 :equal-nan true)
                      :i32)
   :group-norm (nn/group-norm gx 2 :weight (:gamma d) :bias (:beta d))
   :group-norm-grad (weighted (fn [t] (nn/group-norm t 2 :weight (:gamma d) :bias (:beta d)))
                              gx (:group-w d))
   :instance-norm (nn/instance-norm gx)
   :instance-norm-grad (weighted nn/instance-norm gx (:group-w d))
   :normalize (nn/normalize (:norm-x d))
   :normalize-p1 (nn/normalize (:norm-x d) :p 1.0 :axis 0)
   :normalize-grad (weighted nn/normalize (:norm-x d) (:norm-w d))})
(save-npz "softmin.npz"
  {:softmin (nn/softmin (:lse-finite d))
   :softmin-grad (weighted nn/softmin (:lse-finite d) (:softmin-w d))
   :softmin-axis0 (nn/softmin (:lse-finite d) :axis 0)})
"""


INF = np.inf

ARRAYS = {
    "silu": f32([-120.0, -100.0, -89.5, -88.0, -10.0, -1.0, 0.0, 0.5, 20.0, 100.0]),
    "relu": f32([-2.0, -0.0, 0.0, 1e-30, 3.0]),
    "lse": f32([[1.0, 2.0, 3.0], [INF, 1.0, 2.0], [-INF, -INF, -INF], [-INF, 0.0, 1.0]]),
    "lse-finite": f32([[1.0, 2.0, 3.0], [-4.0, 0.5, 0.25]]),
    "lse-w": f32([0.5, -2.0]),
    "prod": f32(
        [
            [INF, 2.0, 3.0],
            [-INF, 0.5, 2.0],
            [-0.5, 0.0, 1.0],
            [-1.0, 0.0, 3.0],
            [2.0, -0.0, 4.0],
            [1.5, -2.0, 0.25],
        ]
    ),
    "cumprod-finite": f32([[1.5, -2.0, 0.25, 3.0], [0.5, 0.0, 2.0, -1.0]]),
    "cumprod-w": f32([[1.0, -1.0, 2.0, 0.5], [3.0, 1.0, -2.0, 1.0]]),
    "clip": f32([-3.0, -1.0, 0.0, 0.5, 2.0, 7.0, np.nan]),
    "clip-lo": f32([-2.0, np.nan, -2.0, np.nan, 0.0, 0.0, 0.0]),
    "clip-w": f32([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]),
    "std": f32([[2.0, 2.0, 2.0], [1.0, -1.0, 4.0]]),
    "std-w": f32([1.5, -0.5]),
    "probs": f32([[0.0, 0.25, 0.5], [0.9, 1.0, 1e-3]]),
    "probs-inner": f32([[0.1, 0.25, 0.5], [0.9, 0.7, 1e-3]]),
    "prob-targets": f32([[0.0, 1.0, 0.3], [1.0, 0.0, 0.5]]),
    "prob-w": f32([[1.0, 2.0, 0.5], [0.25, 1.5, 3.0]]),
    "log-probs": f32(np.log(np.random.default_rng(3).dirichlet(np.ones(4), size=5))),
    "ids": np.array([0, 3, 1, 1, 2], dtype=np.int32),
    "class-w": f32([0.5, 2.0, 1.0, 3.0]),
    "close-a": f32([1.0, 1.0, 1.0, INF, INF, np.nan, 0.0, 100.0, -1e-9]),
    "close-b": f32([1.0, 1.00001, 1.001, INF, -INF, np.nan, 1e-9, 105.0, 0.0]),
    "ce-logits": np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32) * 3,
    "ce-probs": f32(np.random.default_rng(8).dirichlet(np.ones(4), size=5)),
    "group-x": np.random.default_rng(5).standard_normal((2, 4, 3, 2)).astype(np.float32),
    "gamma": f32([1.0, -0.5, 2.0, 0.25]),
    "beta": f32([0.1, 0.0, -1.0, 0.5]),
    "group-w": np.random.default_rng(6).standard_normal((2, 4, 3, 2)).astype(np.float32),
    "norm-x": f32([[3.0, 0.0, -1.0], [4.0, 0.0, 2.0]]),
    "norm-w": f32([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0]]),
    # Both tails, every kink (0, ±3, the hardtanh bounds, softplus's
    # threshold at 5/2 and 20) and points beside them.
    "act": f32(
        [-120.0, -90.0, -20.0, -3.0, -2.9, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-3, 0.5,
         1.0, 2.5, 2.6, 3.0, 3.1, 19.0, 21.0, 90.0, 120.0]
    ),
    "softmin-w": f32([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]),
}
ARRAYS["act-w"] = np.linspace(-1.5, 2.0, ARRAYS["act"].size).astype(np.float32)

F = torch.nn.functional

ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu-tanh": lambda t: F.gelu(t, approximate="tanh"),
    "quick-gelu": lambda t: t * torch.sigmoid(1.702 * t),
    "softplus": F.softplus,
    "softplus-beta": lambda t: F.softplus(t, beta=2.0, threshold=5.0),
    "leaky-relu": F.leaky_relu,
    "leaky-relu-slope": lambda t: F.leaky_relu(t, 0.2),
    "elu": lambda t: F.elu(t, alpha=1.5),
    "selu": F.selu,
    "celu": lambda t: F.celu(t, alpha=0.5),
    "softsign": F.softsign,
    "logsigmoid": F.logsigmoid,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "hardtanh": lambda t: F.hardtanh(t, -2.0, 2.5),
    "mish": F.mish,
    "silu": F.silu,
    "relu": torch.relu,
}


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> dict[str, np.ndarray]:
    # The activations' file is read with its names prefixed `act:`.
    files = ("out", "act", "softmin", "losses")
    return run_outputs(tmp_path_factory.mktemp("edges"), PROGRAM, ARRAYS, files, prefixed=("act",))


@pytest.mark.parametrize("name", ["silu", "relu", "lse", "prod", "cumprod"])
def test_the_compiled_cpu_backend_gives_the_same_bits(out, name):
    np.testing.assert_array_equal(out[f"{name}-cpu"], out[name])
    np.testing.assert_array_equal(np.signbit(out[f"{name}-cpu"]), np.signbit(out[name]))


def test_silu_and_its_gradient_below_minus_89(out):
    x = ARRAYS["silu"]
    same(out["silu"], torch.nn.functional.silu(torch.tensor(x)))
    same(out["silu-grad"], grad(torch.nn.functional.silu, x), rtol=1e-5)
    assert not np.isnan(out["silu-grad"]).any()


def test_relu_gradient_is_zero_at_zero(out):
    x = ARRAYS["relu"]
    same(out["relu"], torch.relu(torch.tensor(x)))
    same(out["relu-grad"], grad(torch.relu, x))
    assert out["relu-grad"].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


def test_logsumexp_of_infinite_and_fully_masked_rows(out):
    x = torch.tensor(ARRAYS["lse"])
    same(out["lse"], torch.logsumexp(x, dim=-1))
    assert out["lse"][1] == INF and out["lse"][2] == -INF
    same(out["lse-keep"], torch.logsumexp(x, dim=0, keepdim=True))
    same(
        out["lse-grad"],
        grad(lambda t: torch.logsumexp(t, dim=-1), ARRAYS["lse-finite"], ARRAYS["lse-w"]),
    )


def test_prod_and_cumprod_with_an_infinite_first_element_and_signed_zeros(out):
    x = torch.tensor(ARRAYS["prod"])
    same(out["prod"], torch.prod(x, dim=1))
    same(out["cumprod"], torch.cumprod(x, dim=-1))
    same(out["cumprod-reverse"], torch.cumprod(x.flip(-1), dim=-1).flip(-1))
    # prod([-0.5 0 1]) and prod([-1 0 3]) are -0.0, as PyTorch's: the sign
    # shows through atan2 and 1/x.
    np.testing.assert_array_equal(
        np.signbit(out["prod"]), np.signbit(torch.prod(x, dim=1).numpy())
    )
    np.testing.assert_array_equal(
        np.signbit(out["cumprod"]), np.signbit(torch.cumprod(x, dim=-1).numpy())
    )
    same(
        out["cumprod-grad"],
        grad(lambda t: torch.cumprod(t, dim=-1), ARRAYS["cumprod-finite"], ARRAYS["cumprod-w"]),
        rtol=1e-5,
    )


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_value_and_gradient(out, name):
    """Against PyTorch's function in f64, rounded to f32: where PyTorch's
    own f32 kernel cancels digits (`1 + erf(x)` near x = -3), ours, which
    rounds `erf` once from f64, is the closer one."""
    f, x, w = ACTIVATIONS[name], ARRAYS["act"], ARRAYS["act-w"]
    wide = x.astype(np.float64)
    same(out[f"act:{name}"], f(torch.tensor(wide)), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[f"act:{name}-cpu"], out[f"act:{name}"])
    theirs = grad(f, wide, w.astype(np.float64))
    same(out[f"act:{name}-grad"], theirs, rtol=1e-5, atol=1e-7)
    assert np.isfinite(out[f"act:{name}-grad"]).all()
    # The signs of zero values are PyTorch's f32 ones (`relu(-0.0)` is -0.0).
    theirs32 = f(torch.tensor(x)).detach().numpy()
    zeros = theirs32 == 0
    np.testing.assert_array_equal(
        np.signbit(out[f"act:{name}"][zeros]), np.signbit(theirs32[zeros])
    )


def test_softmin(out):
    x = ARRAYS["lse-finite"]
    same(out["softmin"], F.softmin(torch.tensor(x), dim=-1))
    same(out["softmin-axis0"], F.softmin(torch.tensor(x), dim=0))
    same(
        out["softmin-grad"],
        grad(lambda t: F.softmin(t, dim=-1), x, ARRAYS["softmin-w"]),
        rtol=1e-5,
        atol=1e-7,
    )


def test_clip_is_clamp_with_crossed_and_nan_bounds(out):
    x = torch.tensor(ARRAYS["clip"])
    same(out["clip-crossed"], torch.clamp(x, 0.5, -1.0))
    same(out["clip-nan"], torch.clamp(x, float("nan"), 1.0))
    same(out["clip-nan-tensor"], torch.clamp(x, torch.tensor(ARRAYS["clip-lo"]), torch.tensor(1.0)))
    theirs = grad(lambda t: torch.clamp(t, -1.0, 2.0), ARRAYS["clip"], ARRAYS["clip-w"])
    same(out["clip-grad"], theirs)


def test_std_gradient_is_zero_where_the_deviation_is(out):
    x = ARRAYS["std"]
    same(out["std"], torch.std(torch.tensor(x), dim=1, correction=0))
    theirs = grad(lambda t: torch.std(t, dim=1, correction=0), x, ARRAYS["std-w"])
    same(out["std-grad"], theirs, rtol=1e-5)
    assert not np.isnan(out["std-grad"]).any()


def test_lerp_takes_a_number_weight_on_bf16(out):
    a, b = torch.tensor(ARRAYS["clip-w"]), torch.tensor(ARRAYS["clip-lo"])
    for key, w in (("lerp-bf16", 0.3), ("lerp-bf16-far", 0.7)):
        theirs = torch.lerp(a.bfloat16(), b.bfloat16(), w).float()
        np.testing.assert_array_equal(out[key], theirs.numpy())
    same(out["lerp"], torch.lerp(a, torch.tensor(ARRAYS["clip"]), 0.3))


def test_binary_cross_entropy_of_probabilities(out):
    p, y = torch.tensor(ARRAYS["probs"]), torch.tensor(ARRAYS["prob-targets"])
    w = torch.tensor(ARRAYS["prob-w"])
    same(out["bce"], F.binary_cross_entropy(p, y), rtol=1e-5)
    same(out["bce-sum"], F.binary_cross_entropy(p, y, weight=w, reduction="sum"), rtol=1e-5)
    same(out["bce-none"], F.binary_cross_entropy(p, y, reduction="none"), rtol=1e-5)
    theirs = grad(
        lambda t: F.binary_cross_entropy(t, y, weight=w), ARRAYS["probs-inner"]
    )
    same(out["bce-grad"], theirs, rtol=1e-5)


def test_nll_loss_with_weights_and_an_ignored_class(out):
    lp, ids = torch.tensor(ARRAYS["log-probs"]), torch.tensor(ARRAYS["ids"]).long()
    w = torch.tensor(ARRAYS["class-w"])
    same(out["nll"], F.nll_loss(lp, ids), rtol=1e-6)
    same(out["nll-weighted"], F.nll_loss(lp, ids, weight=w, ignore_index=1), rtol=1e-6)
    same(out["nll-sum"], F.nll_loss(lp, ids, weight=w, reduction="sum"), rtol=1e-6)
    same(out["nll-none"], F.nll_loss(lp, ids, ignore_index=1, reduction="none"), rtol=1e-6)
    theirs = grad(
        lambda t: F.nll_loss(t, ids, weight=w, ignore_index=1), ARRAYS["log-probs"]
    )
    same(out["nll-grad"], theirs, rtol=1e-6)


def test_group_and_instance_norm(out):
    x, w = ARRAYS["group-x"], ARRAYS["group-w"]
    gamma, beta = torch.tensor(ARRAYS["gamma"]), torch.tensor(ARRAYS["beta"])
    group = lambda t: F.group_norm(t, 2, gamma, beta)
    same(out["group-norm"], group(torch.tensor(x)), rtol=1e-5, atol=1e-6)
    same(out["group-norm-grad"], grad(group, x, w), rtol=1e-4, atol=1e-5)
    same(out["instance-norm"], F.instance_norm(torch.tensor(x)), rtol=1e-5, atol=1e-6)
    same(out["instance-norm-grad"], grad(F.instance_norm, x, w), rtol=1e-4, atol=1e-5)


def test_normalize_with_a_zero_vector(out):
    x, w = ARRAYS["norm-x"], ARRAYS["norm-w"]
    same(out["normalize"], F.normalize(torch.tensor(x)), rtol=1e-6)
    same(out["normalize-p1"], F.normalize(torch.tensor(x), p=1.0, dim=0), rtol=1e-6)
    same(out["normalize-grad"], grad(F.normalize, x, w), rtol=1e-5)


def test_cross_entropy_with_pytorchs_options(out):
    x, ids = torch.tensor(ARRAYS["ce-logits"]), torch.tensor(ARRAYS["ids"]).long()
    w, probs = torch.tensor(ARRAYS["class-w"]), torch.tensor(ARRAYS["ce-probs"])
    same(out["ce"], F.cross_entropy(x, ids), rtol=1e-6)
    options = dict(weight=w, ignore_index=1, label_smoothing=0.2)
    same(out["ce-options"], F.cross_entropy(x, ids, **options), rtol=1e-5)
    same(out["ce-sum"], F.cross_entropy(x, ids, label_smoothing=0.1, reduction="sum"), rtol=1e-5)
    same(out["ce-none"], F.cross_entropy(x, ids, weight=w, reduction="none"), rtol=1e-5)
    same(out["ce-probs"], F.cross_entropy(x, probs, weight=w, label_smoothing=0.1), rtol=1e-5)
    same(
        out["ce-grad"],
        grad(lambda t: F.cross_entropy(t, ids, **options), ARRAYS["ce-logits"]),
        rtol=1e-5,
        atol=1e-7,
    )
    same(
        out["ce-probs-grad"],
        grad(lambda t: F.cross_entropy(t, probs, label_smoothing=0.1), ARRAYS["ce-logits"]),
        rtol=1e-5,
        atol=1e-7,
    )


def test_binary_cross_entropy_with_logits_pos_weight_and_reduction(out):
    x, y = torch.tensor(ARRAYS["ce-logits"]), torch.tensor(ARRAYS["ce-probs"])
    pw = torch.tensor(ARRAYS["class-w"])
    bce = F.binary_cross_entropy_with_logits
    same(out["bcel"], bce(x, y, pos_weight=pw, reduction="sum"), rtol=1e-5)
    same(out["bcel-none"], bce(x, y, weight=y, reduction="none"), rtol=1e-5, atol=1e-7)
    same(
        out["bcel-grad"],
        grad(lambda t: bce(t, y, pos_weight=pw), ARRAYS["ce-logits"]),
        rtol=1e-5,
        atol=1e-7,
    )


def test_isclose(out):
    a, b = torch.tensor(ARRAYS["close-a"]), torch.tensor(ARRAYS["close-b"])
    np.testing.assert_array_equal(out["isclose"], torch.isclose(a, b).int().numpy())
    theirs = torch.isclose(a, b, rtol=0.1, atol=0.0, equal_nan=True)
    np.testing.assert_array_equal(out["isclose-nan"], theirs.int().numpy())
