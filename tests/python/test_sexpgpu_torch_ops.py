"""Operations PyTorch users reach for, against PyTorch (issue "SexpGPU
speaks PyTorch"): `logaddexp` with its infinite edges, `pow` of integer
tensors (exact, wrapping, negative exponents as PyTorch), `max`/`min`/
`maximum`/`minimum` of `bool` tensors, `diagonal`, `diag`,
`repeat-interleave`, `scatter` and `scatter-reduce`, `pad` with crops,
`max-pool`'s indices and `max-unpool`, and advanced indexing with several
index tensors, with their gradients. A `.sx` program computes values
and gradients on the reference executor and, through `call`, on the
compiled CPU backend, and saves them with `save-npz`; PyTorch computes
the same. (The graph-level cases of the same compositions run on the
reference, the CPU backend and the CUDA kernels in emulation against NumPy:
`crates/sexpgpu-graph/tests/numerics/cases.rs`.)
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_compare import f32, grad, run_outputs, run_program, same

PROGRAM = """
(def d (load-npz "in.npz"))
(defn weighted2 [f a b w]
  (second (value-and-grad (fn [p] (sum (* w (f (:a p) (:b p))))) {:a a :b b})))
(defn weighted [f x w]
  (:x (second (value-and-grad (fn [p] (sum (* w (f (:x p))))) {:x x}))))
(def lae-grad (weighted2 logaddexp (:lae-a d) (:lae-b d) (:lae-w d)))
(save-npz "math.npz"
  {:logaddexp (logaddexp (:lae-a d) (:lae-b d))
   :logaddexp-cpu (call logaddexp (:lae-a d) (:lae-b d))
   :logaddexp-number (logaddexp (:lae-a d) 2.0)
   :logaddexp-grad-a (:a lae-grad)
   :logaddexp-grad-b (:b lae-grad)
   :pow-i32 (pow (:base32 d) (:exp32 d))
   :pow-i32-cpu (call pow (:base32 d) (:exp32 d))
   :pow-i64-3 (pow (:base64 d) 3)
   :pow-i64-41 (pow (:base64 d) 41)
   :pow-i64-41-cpu (call (fn [x] (pow x 41)) (:base64 d))
   :pow-number-base (pow 3 (:exp32 d))
   :maximum-bool (maximum (:p d) (:q d))
   :minimum-bool (minimum (:p d) (:q d))
   :max-bool-several (max (:p d) (:q d))
   :max-bool (max (:p d) :axes [1])
   :min-bool (min (:p d) :axes [1])
   :max-bool-all (max (:p d))
   :min-bool-cpu (call (fn [x] (min x :axes [0] :keepdims true)) (:p d))})
(def diagonal-of (fn [x] (diagonal x :offset 1 :axis1 2 :axis2 0)))
(def diag-below (fn [x] (diag x :diagonal -1)))
(def diag-above (fn [x] (diag x :diagonal 1)))
(def interleave (fn [x] (repeat-interleave x [2 0 1 3] :axis 1)))
(save-npz "index.npz"
  {:diagonal (diagonal-of (:m d))
   :diagonal-cpu (call diagonal-of (:m d))
   :diagonal-grad (weighted diagonal-of (:m d) (:diagonal-w d))
   :diagonal-default (diagonal (:sq d))
   :diagonal-past (diagonal (:sq d) :offset -7)
   :diag-matrix (diag-below (:vec d))
   :diag-matrix-cpu (call diag-below (:vec d))
   :diag-matrix-grad (weighted diag-below (:vec d) (:diag-matrix-w d))
   :diag-ints (diag (:base64 d))
   :diag-of (diag-above (:sq d))
   :diag-of-cpu (call diag-above (:sq d))
   :diag-of-grad (weighted diag-above (:sq d) (:diag-of-w d))
   :interleave (interleave (:sq d))
   :interleave-cpu (call interleave (:sq d))
   :interleave-grad (weighted interleave (:sq d) (:interleave-w d))
   :interleave-flat (repeat-interleave (:sq d) 2)
   :interleave-bool (repeat-interleave (:p d) 3 :axis 0)})
(defn reduced-by [how self?]
  (fn [b s] (scatter-reduce b (:sidx d) s how :axis 0 :include-self self?)))
(defn scattered-by [k f b s w]
  (let [g (weighted2 f b s w)]
    [[(keyword k) (f b s)]
     [(keyword (str k "-cpu")) (call f b s)]
     [(keyword (str k "-grad-base")) (:a g)]
     [(keyword (str k "-grad-src")) (:b g)]]))
(defn scattered [k f b s] (scattered-by k f b s (:sw d)))
(save-npz "scatter.npz"
  (into {}
        (concat
         (mapcat (fn [[how self?]]
                   (scattered (str (name how) (if self? "-self" "")) (reduced-by how self?)
                              (:sbase d) (:ssrc d)))
                 (for [how [:sum :prod :mean :amax :amin] self? [true false]] [how self?]))
         ;; Ties with NaN, infinities and signed zeros (`eidx` along axis 0).
         (mapcat (fn [[how self?]]
                   (scattered-by (str "edge-" (name how) (if self? "-self" ""))
                                 (fn [b s] (scatter-reduce b (:eidx d) s how :axis 0
                                                           :include-self self?))
                                 (:ebase d) (:esrc d) (:ew d)))
                 (for [how [:amax :amin] self? [true false] ] [how self?]))
         (scattered "scatter" (fn [b s] (scatter b (:sidx-unique d) s :axis 0))
                    (:sbase d) (:ssrc d))
         (scattered "scatter-repeated" (fn [b s] (scatter b (:sidx d) s :axis 0))
                    (:sbase d) (:ssrc d))
         [[:scatter-number (scatter (:sbase d) (:sidx d) 0.5 :axis 0)]
          [:mean-int (scatter-reduce (:ibase d) (:sidx d) (:isrc d) :mean :axis 0)]
          [:amin-int (scatter-reduce (:ibase d) (:sidx d) (:isrc d) :amin :axis 0
                                     :include-self false)]])))
"""

# `F.pad` with negative amounts (crops), `reflect` and `replicate` read
# about the input's own borders: (pairs from the first padded axis on, mode).
PAD_CASES = [
    (((-1, 3), (2, -3)), "reflect"),
    (((-4, 2), (-2, 5)), "reflect"),
    (((-5, 2), (0, 0)), "reflect"),
    (((3, -1), (-6, 2)), "replicate"),
    (((-2, 1), (-6, 2)), "constant"),
    (((-3, -1), (1, 1)), "constant"),
    (((2, -1), (3, -1)), "circular"),
    # Cropped to nothing, then padded (or not), as PyTorch's one-axis pad.
    (((-6, 2),), "constant"),
    (((-3, -3),), "constant"),
    (((-3, -3),), "circular"),
    (((-7, 3),), "reflect"),
]
PROGRAM += """
(defn squared [f x]
  (:x (second (value-and-grad (fn [p] (let [y (f (:x p))] (sum (* y y)))) {:x x}))))
(save-npz "pad.npz"
  (into {} (mapcat (fn [[k pads mode]]
                     (let [f (fn [x] (pad x pads :mode mode))]
                       [[(keyword k) (f (:px d))]
                        [(keyword (str k "-cpu")) (call f (:px d))]
                        [(keyword (str k "-grad")) (squared f (:px d))]]))
                   [%s])))
""" % " ".join(
    f'["pad{i}" [{" ".join(f"[{lo} {hi}]" for lo, hi in pairs)}] :{mode}]'
    for i, (pairs, mode) in enumerate(PAD_CASES)
)
# `max-pool` with its indices, and `max-unpool` back: (window, stride,
# padding, ceil mode) over the last two axes of `mx`, which holds ties,
# a NaN and -inf.
UNPOOL_CASES = [
    ((2, 2), None, (0, 0), False),
    ((3, 3), (2, 2), (1, 1), True),
    ((2, 3), (1, 2), (1, 0), False),
]
PROGRAM += """
(defn pooled [[window stride padding ceil]]
  (fn [x] (max-pool x :window window :stride stride :padding padding :ceil-mode ceil
                    :return-indices true)))
(defn unpooled [[window stride padding]]
  (fn [x] (let [[v i] ((pooled [window stride padding false]) x)]
            (max-unpool (* v 2.0) i :window window :stride stride :padding padding
                        :output-size [5 6]))))
(defn max-pooled [[window stride padding ceil]]
  (fn [x] (max-pool x :window window :stride stride :padding padding :ceil-mode ceil)))
(save-npz "unpool.npz"
  (into {} (mapcat (fn [[k c]]
                     (let [[v i] ((pooled c) (:mx d))
                           w (get d (keyword (str k "-w")))]
                       [[(keyword (str k "-values")) v]
                        [(keyword (str k "-indices")) i]
                        [(keyword (str k "-indices-cpu")) (second (call (pooled c) (:mx d)))]
                        [(keyword (str k "-grad")) (weighted (max-pooled c) (:mx d) w)]
                        [(keyword (str k "-grad-indices"))
                         (weighted (fn [x] (first ((pooled c) x))) (:mx d) w)]
                        [(keyword (str k "-zeros")) ((max-pooled c) (:mz d))]
                        [(keyword (str k "-unpool")) ((unpooled c) (:ux d))]
                        [(keyword (str k "-unpool-cpu")) (call (unpooled c) (:ux d))]
                        [(keyword (str k "-unpool-grad")) (squared (unpooled c) (:ux d))]]))
                   [%s])))
""" % " ".join(
    f'["pool{i}" [[{w[0]} {w[1]}] {"nil" if s is None else f"[{s[0]} {s[1]}]"} [{p[0]} {p[1]}] {str(c).lower()}]]'
    for i, (w, s, p, c) in enumerate(UNPOOL_CASES)
)
# Advanced indexing with several index tensors, broadcast together, with
# negative and repeated ids: (SexpGPU form on `ax`, PyTorch's).
ADVANCED = {
    "front": ("(index x (:ai d) (:aj d))", lambda x, i, j: x[i, j]),
    "apart": ("(index x (:ai d) (:aj d) :axes [0 2])", lambda x, i, j: x[i, :, j]),
    "inner": ("(index x (:ai d) (:aj d) :axes [1 -1])", lambda x, i, j: x[:, i, j]),
}
PROGRAM += """
(save-npz "advanced.npz"
  (into {} (mapcat (fn [[k f]]
                     [[(keyword k) (f (:ax d))]
                      [(keyword (str k "-cpu")) (call f (:ax d))]
                      [(keyword (str k "-grad")) (squared f (:ax d))]])
                   [%s])))
""" % " ".join(f'["{k}" (fn [x] {form})]' for k, (form, _) in ADVANCED.items())

INF = np.inf

ARRAYS = {
    "lae-a": f32(
        [-INF, INF, INF, 1.0, np.nan, -1e30, 0.0, 88.0, -3.0, 2.0, 100.0, -INF]
    ),
    "lae-b": f32([-INF, INF, -INF, -INF, 1.0, 3.0, 0.0, 89.0, 5.0, 2.0, -100.0, 4.0]),
    "lae-w": np.linspace(-1.0, 2.0, 12).astype(np.float32),
    "base32": np.array([-3, -2, -1, 0, 1, 2, 3, 7, -5, 2, 0, -1, 10], dtype=np.int32),
    "exp32": np.array([-4, 5, -3, 0, -1, 31, 40, 13, 3, -1, 7, 8, 0], dtype=np.int32),
    "base64": np.array([3, -3, 2, 0, -1, 1, 123456], dtype=np.int64),
    "m": np.random.default_rng(1).standard_normal((3, 4, 5)).astype(np.float32),
    "sq": np.random.default_rng(2).standard_normal((4, 4)).astype(np.float32),
    "vec": f32([1.5, -2.0, 0.25]),
    "px": np.random.default_rng(3).standard_normal((1, 2, 5, 6)).astype(np.float32),
    "mx": f32(
        [
            [
                [
                    [1, 1, 0, 2, 2, 5],
                    [0, np.nan, 3, 3, np.nan, np.nan],
                    [-INF, -INF, 4, 0, 1, 1],
                    [-INF, -INF, 2, 2, 7, 7],
                    [0, 1, 2, 3, 4, 5],
                ]
            ]
        ]
    ),
    "ux": np.random.default_rng(4)
    .permutation(60)
    .astype(np.float32)
    .reshape(1, 2, 5, 6),
    "ax": np.random.default_rng(5).standard_normal((4, 5, 6)).astype(np.float32),
    "ai": np.array([[0, -1, 2], [3, 0, -4]], dtype=np.int64),
    "aj": np.array([1, -2, 1], dtype=np.int32),
    "p": np.array([[True, False, True], [False, False, False]]),
    # Repeated ids, a tie of a sent value with the position's own (12 at
    # [2, 3], 1 at [0, 0]) and a zero for `prod`.
    "sbase": f32([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]),
    "sidx": np.array([[0, 1, 0, 2], [0, 0, 0, 0]], dtype=np.int64),
    "sidx-unique": np.array([[0, 1, 2, 0], [2, 0, 1, 1]], dtype=np.int64),
    "ssrc": f32([[3, 0, 5, 12], [1, 8, 9, 10]]),
    "sw": np.linspace(-1.0, 2.0, 12).astype(np.float32).reshape(3, 4),
    "ibase": np.array([[-1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], dtype=np.int32),
    "isrc": np.array([[-3, 4, 5, 6], [-7, 8, 9, 10]], dtype=np.int32),
    "q": np.array([[False, False, True], [True, False, False]]),
    # Ties of NaN (sent and own), +inf, -inf and of 0.0 with -0.0, sent
    # along axis 0 to positions 0, 2 and 3 (1 and 4 receive nothing).
    "ebase": f32([[1.0, -INF, INF, 0.0], [np.nan, 1.0, 1.0, 1.0], [3.0, 2.0, INF, 2.0],
                  [4.0, 5.0, 1.0, -INF], [np.nan, 5.0, 6.0, 7.0]]),
    "eidx": np.array([[0, 0, 2, 0], [0, 0, 2, 0], [2, 3, 2, 2], [3, 3, 3, 3]], dtype=np.int64),
    "esrc": f32([[np.nan, -INF, INF, -0.0], [2.0, -INF, 2.0, 0.0], [INF, 5.0, INF, 2.0],
                 [1.0, 5.0, -INF, -INF]]),
    "ew": np.linspace(-1.0, 2.0, 20).astype(np.float32).reshape(5, 4),
    # Windows of negative numbers and -0.0 only: the maximum is -0.0.
    "mz": f32([[[[-0.0, -1.0, -3.0, -0.0], [-2.0, -0.0, -0.0, -4.0]]]]),
}


def weights(shape) -> np.ndarray:
    """Distinct weights, so each gradient position is told apart."""
    n = int(np.prod(shape))
    return np.linspace(-1.5, 2.5, n).astype(np.float32).reshape(shape)


T = torch.tensor
INDEXING = {
    "diagonal": (lambda x: torch.diagonal(x, 1, 2, 0), "m"),
    "diag-matrix": (lambda x: torch.diag(x, -1), "vec"),
    "diag-of": (lambda x: torch.diag(x, 1), "sq"),
    "interleave": (lambda x: torch.repeat_interleave(x, T([2, 0, 1, 3]), dim=1), "sq"),
}
for _name, (_f, _x) in INDEXING.items():
    ARRAYS[f"{_name}-w"] = weights(_f(T(ARRAYS[_x])).shape)
for _i, (_w, _s, _p, _c) in enumerate(UNPOOL_CASES):
    _pooled = F.max_pool2d(T(ARRAYS["mx"]), _w, _s, _p, ceil_mode=_c)
    ARRAYS[f"pool{_i}-w"] = weights(_pooled.shape)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> dict[str, np.ndarray]:
    files = ("math", "index", "scatter", "pad", "unpool", "advanced")
    return run_outputs(tmp_path_factory.mktemp("ops"), PROGRAM, ARRAYS, files)


def t(name: str) -> torch.Tensor:
    return torch.tensor(ARRAYS[name])


def test_logaddexp_value_and_gradient_with_infinities(out):
    theirs = torch.logaddexp(t("lae-a"), t("lae-b"))
    same(out["logaddexp"], theirs)
    np.testing.assert_array_equal(out["logaddexp-cpu"], out["logaddexp"])
    same(out["logaddexp-number"], torch.logaddexp(t("lae-a"), torch.tensor(2.0)))
    a, b = (torch.tensor(ARRAYS[k], requires_grad=True) for k in ("lae-a", "lae-b"))
    (torch.logaddexp(a, b) * t("lae-w")).sum().backward()
    # NaN where both are the same infinity (PyTorch's `1 / (1 + exp(b - a))`).
    same(out["logaddexp-grad-a"], a.grad, rtol=1e-6)
    same(out["logaddexp-grad-b"], b.grad, rtol=1e-6)


def test_integer_pow_is_exact_and_wraps_as_pytorchs(out):
    theirs = torch.pow(t("base32"), t("exp32"))
    np.testing.assert_array_equal(out["pow-i32"], theirs.numpy())
    np.testing.assert_array_equal(out["pow-i32-cpu"], theirs.numpy())
    assert out["pow-i32"].dtype == np.int32
    for n in (3, 41):
        np.testing.assert_array_equal(
            out[f"pow-i64-{n}"], torch.pow(t("base64"), n).numpy()
        )
    np.testing.assert_array_equal(
        out["pow-i64-41-cpu"], torch.pow(t("base64"), 41).numpy()
    )
    np.testing.assert_array_equal(
        out["pow-number-base"], torch.pow(3, t("exp32")).numpy()
    )


def test_a_negative_number_exponent_of_integers_is_refused(tmp_path):
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        torch.pow(t("base32"), -1)
    run = run_program(tmp_path, '(pow (:base32 (load-npz "in.npz")) -1)\n', ARRAYS)
    assert run.returncode != 0
    assert "integers to negative integer powers are not allowed" in run.stderr


def test_extremes_of_bool_tensors(out):
    p, q = t("p"), t("q")
    np.testing.assert_array_equal(out["maximum-bool"], torch.maximum(p, q).numpy())
    np.testing.assert_array_equal(out["minimum-bool"], torch.minimum(p, q).numpy())
    np.testing.assert_array_equal(out["max-bool-several"], torch.maximum(p, q).numpy())
    np.testing.assert_array_equal(out["max-bool"], torch.amax(p, dim=1).numpy())
    np.testing.assert_array_equal(out["min-bool"], torch.amin(p, dim=1).numpy())
    np.testing.assert_array_equal(out["max-bool-all"], torch.max(p).numpy())
    np.testing.assert_array_equal(
        out["min-bool-cpu"], torch.amin(p, dim=0, keepdim=True).numpy()
    )
    assert out["max-bool"].dtype == np.bool_


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_diagonals_and_repeat_interleave_value_and_gradient(out, name):
    f, x = INDEXING[name]
    same(out[name], f(t(x)))
    np.testing.assert_array_equal(out[f"{name}-cpu"], out[name])
    same(out[f"{name}-grad"], grad(f, ARRAYS[x], ARRAYS[f"{name}-w"]))


def test_diagonals_and_repeat_interleave_edges(out):
    same(out["diagonal-default"], torch.diagonal(t("sq")))
    assert out["diagonal-past"].shape == torch.diagonal(t("sq"), -7).shape == (0,)
    np.testing.assert_array_equal(out["diag-ints"], torch.diag(t("base64")).numpy())
    same(out["interleave-flat"], torch.repeat_interleave(t("sq"), 2))
    np.testing.assert_array_equal(
        out["interleave-bool"], torch.repeat_interleave(t("p"), 3, dim=0).numpy()
    )


def scatter_reduced(base, src, idx, weight, how, include_self):
    """PyTorch's `scatter_reduce` along axis 0, and its gradients of the
    sum of the result times `weight`, for `base` and `src`."""
    b, s = (torch.tensor(a, requires_grad=True) for a in (base, src))
    theirs = b.scatter_reduce(0, torch.tensor(idx), s, how, include_self=include_self)
    (theirs * torch.tensor(weight)).sum().backward()
    return theirs.detach(), b.grad, s.grad


@pytest.mark.parametrize("how", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_value_and_gradient(out, how, include_self):
    """Ties of `amax`/`amin` share the gradient evenly, as PyTorch's
    `scatter_reduce_backward`, which with `include_self=False` still
    counts a left-out `base` value equal to the result among the ties
    (12 at [2, 3]: the sent 12 gets half the gradient, the base none)."""
    key = how + ("-self" if include_self else "")
    value, grad_base, grad_src = scatter_reduced(
        ARRAYS["sbase"], ARRAYS["ssrc"], ARRAYS["sidx"], ARRAYS["sw"], how, include_self
    )
    same(out[key], value)
    np.testing.assert_array_equal(out[f"{key}-cpu"], out[key])
    same(out[f"{key}-grad-base"], grad_base, rtol=1e-6)
    same(out[f"{key}-grad-src"], grad_src, rtol=1e-6)


@pytest.mark.parametrize("how", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_extremes_at_nan_infinite_and_zero_ties(out, how, include_self):
    """PyTorch's gradients where the result is NaN (NaN for `base` and
    for the values sent there: no element equals the result, and PyTorch
    multiplies 0 by the gradient over a count of 0), where infinities tie
    and where 0.0 ties with -0.0; the values' signed zeros too (a NaN's
    sign bit aside)."""
    key = "edge-" + how + ("-self" if include_self else "")
    value, grad_base, grad_src = scatter_reduced(
        ARRAYS["ebase"], ARRAYS["esrc"], ARRAYS["eidx"], ARRAYS["ew"], how, include_self
    )
    same(out[key], value)
    numbers = ~np.isnan(value.numpy())
    np.testing.assert_array_equal(
        np.signbit(out[key][numbers]), np.signbit(value.numpy()[numbers])
    )
    np.testing.assert_array_equal(out[f"{key}-cpu"], out[key])
    same(out[f"{key}-grad-base"], grad_base, rtol=1e-6)
    same(out[f"{key}-grad-src"], grad_src, rtol=1e-6)


@pytest.mark.parametrize("key, ids", [("scatter", "sidx-unique"), ("scatter-repeated", "sidx")])
def test_scatter_replaces_and_its_gradient(out, key, ids):
    """Of repeated ids the last written is kept, as PyTorch's CPU kernel;
    every sent value's gradient is the result's gradient at its position,
    the overwritten ones' too, as PyTorch's `grad.gather(dim, index)`."""
    idx = torch.tensor(ARRAYS[ids])
    b, s = (torch.tensor(ARRAYS[k], requires_grad=True) for k in ("sbase", "ssrc"))
    theirs = b.scatter(0, idx, s)
    (theirs * t("sw")).sum().backward()
    same(out[key], theirs.detach())
    np.testing.assert_array_equal(out[f"{key}-cpu"], out[key])
    same(out[f"{key}-grad-base"], b.grad)
    same(out[f"{key}-grad-src"], s.grad)
    same(out["scatter-number"], t("sbase").scatter(0, t("sidx"), 0.5))


def test_scatter_reduce_of_integers(out):
    ib, idx, isrc = t("ibase"), t("sidx"), t("isrc")
    np.testing.assert_array_equal(
        out["mean-int"], ib.scatter_reduce(0, idx, isrc, "mean").numpy()
    )
    theirs = ib.scatter_reduce(0, idx, isrc, "amin", include_self=False)
    np.testing.assert_array_equal(out["amin-int"], theirs.numpy())


@pytest.mark.parametrize("case", range(len(PAD_CASES)))
def test_pad_with_crops_as_pytorchs(out, case):
    pairs, mode = PAD_CASES[case]
    # PyTorch lists the last axis first.
    pads = tuple(amount for pair in reversed(pairs) for amount in pair)

    def f(x):
        # PyTorch pads one axis of a 3-D input only: the batch axis is dropped.
        one_axis = len(pairs) == 1
        return F.pad(x[0] if one_axis else x, pads, mode=mode)[
            None if one_axis else ...
        ]

    same(out[f"pad{case}"], f(t("px")))
    np.testing.assert_array_equal(out[f"pad{case}-cpu"], out[f"pad{case}"])
    theirs = grad(lambda x: f(x) ** 2, ARRAYS["px"])
    same(out[f"pad{case}-grad"], theirs, rtol=1e-6)


@pytest.mark.parametrize("case", range(len(UNPOOL_CASES)))
def test_max_pool_indices_and_max_unpool(out, case):
    """Indices are the first of equal maxima, the last NaN's where a NaN is
    the maximum, never padding (a window of -inf and padding takes the first
    -inf). Unpooling distinct values (`ux`) is PyTorch's."""
    window, stride, padding, ceil = UNPOOL_CASES[case]
    k = f"pool{case}"
    values, indices = F.max_pool2d(
        t("mx"), window, stride, padding, ceil_mode=ceil, return_indices=True
    )
    same(out[f"{k}-values"], values)
    np.testing.assert_array_equal(out[f"{k}-indices"], indices.numpy())
    np.testing.assert_array_equal(out[f"{k}-indices-cpu"], indices.numpy())

    def unpooled(x):
        v, i = F.max_pool2d(x, window, stride, padding, return_indices=True)
        return F.max_unpool2d(v * 2.0, i, window, stride, padding, output_size=(5, 6))

    same(out[f"{k}-unpool"], unpooled(t("ux")))
    np.testing.assert_array_equal(out[f"{k}-unpool-cpu"], out[f"{k}-unpool"])
    # Where overlapping windows send one maximum several times, each gets
    # the gradient at its index whole, as PyTorch's.
    same(out[f"{k}-unpool-grad"], grad(lambda x: unpooled(x) ** 2, ARRAYS["ux"]))


@pytest.mark.parametrize("case", range(len(UNPOOL_CASES)))
def test_max_pool_gradient_goes_to_the_index(out, case):
    """The whole gradient of a window goes to the element its index names
    (the first of equal maxima, the last NaN, never padding), adding up
    where overlapping windows name the same element, as PyTorch's; with
    `:return-indices` too. A window whose maximum is -0.0 gives -0.0."""
    window, stride, padding, ceil = UNPOOL_CASES[case]
    k = f"pool{case}"
    pool = lambda x: F.max_pool2d(x, window, stride, padding, ceil_mode=ceil)
    theirs = grad(pool, ARRAYS["mx"], ARRAYS[f"{k}-w"])
    same(out[f"{k}-grad"], theirs)
    same(out[f"{k}-grad-indices"], theirs)
    zeros = pool(t("mz")).numpy()
    same(out[f"{k}-zeros"], zeros)
    np.testing.assert_array_equal(np.signbit(out[f"{k}-zeros"]), np.signbit(zeros))


@pytest.mark.parametrize("name", sorted(ADVANCED))
def test_advanced_indexing_with_several_index_tensors(out, name):
    """PyTorch's placement: the broadcast index shape where the indexed
    axes stood when they are adjacent, first when they are apart."""
    f = ADVANCED[name][1]
    i, j = t("ai"), t("aj").long()
    same(out[name], f(t("ax"), i, j))
    np.testing.assert_array_equal(out[f"{name}-cpu"], out[name])
    same(out[f"{name}-grad"], grad(lambda x: f(x, i, j) ** 2, ARRAYS["ax"]), rtol=1e-6)
