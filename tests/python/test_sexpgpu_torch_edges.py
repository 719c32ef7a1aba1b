"""The `nn` library and the products at the edges where they once differed
from PyTorch (issue "SexpGPU speaks PyTorch"): a `.sx` program computes
values and gradients of NumPy's arrays at once, outside any graph, and
saves them with `save-npz`; PyTorch computes the same in f32. Each edge
holds a value whose old result was NaN or a different number: `nn/silu`'s
gradient below -89, `nn/relu`'s gradient at 0, `nn/logsumexp` of a row
holding +inf and of a row of -inf only, and `prod`/`cumprod` with an
infinite first element or a signed zero. Then every activation of `nn`,
value and gradient, over both tails and every kink.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from binaries import binary

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
(save-npz "softmin.npz"
  {:softmin (nn/softmin (:lse-finite d))
   :softmin-grad (weighted nn/softmin (:lse-finite d) (:softmin-w d))
   :softmin-axis0 (nn/softmin (:lse-finite d) :axis 0)})
"""


@pytest.fixture(scope="session")
def sexpgpu() -> str:
    return os.environ.get("SEXPGPU_BIN") or str(binary("sexpgpu"))


def f32(values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


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


def grad(f, x: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    (y if weight is None else y * torch.tensor(weight)).sum().backward()
    return t.grad.numpy()


@pytest.fixture(scope="module")
def out(sexpgpu, tmp_path_factory) -> dict[str, np.ndarray]:
    folder = tmp_path_factory.mktemp("edges")
    np.savez(folder / "in.npz", **ARRAYS)
    (folder / "edges.sx").write_text(PROGRAM)
    run = subprocess.run(
        [sexpgpu, "run", "edges.sx"], cwd=folder, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    # The activations' file is read with its names prefixed `act:`.
    return {
        ("act:" if name == "act" else "") + k: v
        for name in ("out", "act", "softmin")
        for k, v in np.load(folder / f"{name}.npz").items()
    }


def same(ours: np.ndarray, theirs, rtol: float = 1e-6, atol: float = 1e-30) -> None:
    """Equal within f32 rounding, NaN where PyTorch has NaN and infinities
    of the same sign where it has them."""
    theirs = np.asarray(theirs, dtype=np.float32)
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)


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
