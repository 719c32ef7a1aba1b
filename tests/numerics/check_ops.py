"""Recomputes every case written by crates/sexpgpu-graph/tests/numerics.rs in
NumPy and compares it with the reference executor's output.

Usage: check_ops.py DIR   (DIR holds manifest.json and the .npy files)

Floats are recomputed in float64 and rounded to the case's dtype (bf16 is
emulated: round-to-nearest-even of the float32 bits); results must agree
within a few units in the last place of that dtype. Integers and booleans
must agree exactly. Random nodes are recomputed from scratch with an
independent Threefry-2x32 implementation, following docs/sexpgpu/operations.md.
Prints one line per failure and ends with 'N passed, N failed'.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np

# --- dtypes -----------------------------------------------------------------


def to_bf16(x):
    """Rounds float32 values to the nearest bf16 (ties to even), kept as float32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out).astype(np.float32)


def finish(x, dtype):
    """Stores a float64/int64/bool result as the executor stores `dtype`."""
    x = np.asarray(x)
    if dtype == "f32":
        return x.astype(np.float32)
    if dtype == "bf16":
        return to_bf16(x.astype(np.float32))
    if dtype == "i32":
        return x.astype(np.int64).astype(np.int32)
    if dtype == "i64":
        return x.astype(np.int64)
    return x.astype(bool)


def widen(x):
    """Inputs as the executor computes with them: floats in float64 for the
    oracle, integers in int64, booleans as bool."""
    if x.dtype.kind == "f":
        return x.astype(np.float64)
    if x.dtype.kind in "iu":
        return x.astype(np.int64)
    return x


# --- threefry ---------------------------------------------------------------

ROTATIONS = [[13, 15, 26, 6], [17, 29, 16, 24]]


def rotl(x, r):
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def threefry2x32(key, counter):
    """Threefry-2x32, 20 rounds, on uint32 arrays."""
    k0, k1 = (np.asarray(k, dtype=np.uint32) for k in key)
    c0, c1 = (np.asarray(c, dtype=np.uint32) for c in counter)
    ks = [k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA)]
    with np.errstate(over="ignore"):
        x0, x1 = c0 + ks[0], c1 + ks[1]
        for group in range(5):
            for r in ROTATIONS[group % 2]:
                x0 = x0 + x1
                x1 = rotl(x1, r) ^ x0
            i = group + 1
            x0 = x0 + ks[i % 3]
            x1 = x1 + ks[(i + 1) % 3] + np.uint32(i)
    return x0, x1


def check_known_answers():
    vectors = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for key, counter, want in vectors:
        got = tuple(int(w) for w in threefry2x32(key, counter))
        assert got == want, f"threefry known answer: {got} != {want}"


def stream_bits(seed, stream, n):
    """The two words of elements 0..n of a node's stream."""
    run_key = (np.uint32(seed >> 32), np.uint32(seed & 0xFFFFFFFF))
    key = threefry2x32(run_key, (np.uint32(0), np.uint32(stream)))
    index = np.arange(n, dtype=np.uint64)
    return threefry2x32(key, ((index >> np.uint64(32)).astype(np.uint32), (index & np.uint64(0xFFFFFFFF)).astype(np.uint32)))


UNIT = 2.0**-24


def uniform(case, dtype):
    shape = tuple(case["shape"])
    w0, _ = stream_bits(case["seed"], case["stream"], int(np.prod(shape)))
    u = (w0 >> np.uint32(8)).astype(np.float64) * UNIT
    low, high = case["low"], case["high"]
    out = finish(low + (high - low) * u, dtype)
    if low < high:
        # A value that rounded up to `high` becomes the dtype's largest value below it.
        out = np.where(out >= high, largest_below(high, dtype), out).astype(np.float32)
    return out.reshape(shape)


def largest_below(high, dtype):
    x = np.float32(high)
    while float(x) >= high:
        x = np.nextafter(x, np.float32(-np.inf))
    if dtype == "bf16":
        # Step down in bf16: truncate the bits, then one bf16 ulp at a time.
        b = to_bf16(np.float32(high))
        while float(b) >= high:
            bits = int(np.asarray(b, dtype=np.float32).view(np.uint32))
            if bits & 0x7FFFFFFF == 0:
                bits = 0x80010000
            elif bits & 0x80000000:
                bits += 0x10000
            else:
                bits -= 0x10000
            b = np.array(bits, dtype=np.uint32).view(np.float32)
        return np.float32(b)
    return x


def normal(case, dtype):
    shape = tuple(case["shape"])
    w0, w1 = stream_bits(case["seed"], case["stream"], int(np.prod(shape)))
    u1 = ((w0 >> np.uint32(8)).astype(np.float64) + 1.0) * UNIT
    u2 = (w1 >> np.uint32(8)).astype(np.float64) * UNIT
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return finish(case["mean"] + case["std"] * z, dtype).reshape(shape)


# --- ops --------------------------------------------------------------------

UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "acos": np.arccos,
    "asin": np.arcsin,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "softplus": lambda x: np.logaddexp(0.0, x),
    "log1p": np.log1p,
    "expm1": np.expm1,
    "erf": lambda x: np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tan": np.tan,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "log2": np.log2,
    "exp2": np.exp2,
    "log10": np.log10,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,  # half to even, as PyTorch
    "trunc": np.trunc,
    # PyTorch's sign: 0 for NaN.
    "sign": lambda x: np.where(np.isnan(x), 0.0, np.sign(x)) if x.dtype.kind == "f" else np.sign(x),
    "stop-gradient": lambda x: x,
}


def int_quot(a, b):
    """Integer division rounded toward zero; by zero 0 (as NumPy)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(a) // np.where(b == 0, 1, np.abs(b)) * np.sign(a) * np.sign(b)
    return np.where(b == 0, 0, q)


def quot(a, b):
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    return int_quot(a, b)


def rem(a, b):
    if a.dtype.kind == "f":
        return np.fmod(a, b)
    return np.where(b == 0, 0, a - int_quot(a, b) * b)


def float_exact(f):
    """Division-like float ops recomputed in float32, where they are exact
    (so rounding the f64 quotient first cannot differ)."""
    def run(a, b):
        if a.dtype.kind == "f":
            return f(a.astype(np.float32), b.astype(np.float32))
        return f(a, b)
    return run


def shift(op, a, b, dtype):
    width = 32 if dtype == "i32" else 64
    a = a.astype(np.int64)
    inside = (b >= 0) & (b < width)
    amount = np.where(inside, b, 0).astype(np.int64)
    if op == "shift-left":
        out = np.where(inside, np.left_shift(a, amount), 0)
    else:
        out = np.where(inside, np.right_shift(a, amount), np.where(a < 0, -1, 0))
    return out
BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "atan2": np.arctan2,
    "copysign": np.copysign,
    "quot": quot,
    "rem": float_exact(rem),
    "floor-div": float_exact(np.floor_divide),
    "mod": float_exact(np.remainder),
    "bit-and": np.bitwise_and,
    "bit-or": np.bitwise_or,
    "bit-xor": np.bitwise_xor,
}
COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def scatter_index(idx, axis):
    """Index tuple placing each element of `idx` at its own position with the
    axis coordinate replaced by its value (gather / scatter-add)."""
    grid = list(np.indices(idx.shape))
    grid[axis] = idx
    return tuple(grid)


def linear_scan(a, b, axis, reverse, dtype):
    a = np.moveaxis(a.astype(np.float32), axis, 0)
    b = np.moveaxis(b.astype(np.float32), axis, 0)
    out = np.zeros_like(b)
    h = np.zeros(b.shape[1:], dtype=np.float32)
    order = range(b.shape[0] - 1, -1, -1) if reverse else range(b.shape[0])
    for t in order:
        h = a[t] * h + b[t]  # float32 arithmetic, as docs/sexpgpu/operations.md says
        out[t] = h
    return finish(np.moveaxis(out, 0, axis), dtype)


def cast(x, src, to):
    if src in ("f32", "bf16") and to in ("i32", "i64"):
        x = np.nan_to_num(np.trunc(x), nan=0.0)
        limit = np.iinfo(np.int32 if to == "i32" else np.int64)
        # Saturate explicitly: float64(int64 max) is 2**63, which would overflow.
        high, low = x >= float(limit.max), x <= float(limit.min)
        inside = np.where(high | low, 0.0, x).astype(np.int64)
        out = np.where(high, limit.max, np.where(low, limit.min, inside))
        return finish(out, to)
    if to == "bool":
        return x != 0
    return finish(x, to)


def axes_of(case):
    return None if case["axes"] is None else tuple(case["axes"])


def arg_extreme(case, w, largest):
    """The first extreme over the axes, counted row-major within them; NaN
    counts as the extreme (PyTorch)."""
    x = w[0]
    axes = list(range(x.ndim)) if case["axes"] is None else [a % x.ndim for a in case["axes"]]
    axes = sorted(axes)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + axes)
    flat = moved.reshape([x.shape[a] for a in kept] + [-1])
    if flat.dtype.kind == "f":
        nan = np.isnan(flat)
        key = np.where(nan, np.inf if largest else -np.inf, flat)
        out = (np.argmax if largest else np.argmin)(key, axis=-1)
        out = np.where(nan.any(axis=-1), np.argmax(nan, axis=-1), out)
    else:
        out = (np.argmax if largest else np.argmin)(flat, axis=-1)
    if case["keepdims"]:
        out = out.reshape([1 if a in axes else x.shape[a] for a in range(x.ndim)])
    return out


def variance(case, w, dtype, root):
    x = w[0].astype(np.float32)  # the rounded inputs
    axes = axes_of(case)
    n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
    mean = np.sum(w[0], axis=axes, keepdims=True) / n if n else np.full([1] * x.ndim, np.nan)
    dev = (w[0] - mean) ** 2
    var = np.sum(dev, axis=axes, keepdims=case["keepdims"]) / max(n - case["correction"], 0)
    return finish(np.sqrt(var) if root else var, dtype)


def lerp(w, dtype):
    a, b, t = w
    return finish(np.where(np.abs(t) < 0.5, a + t * (b - a), b - (b - a) * (1 - t)), dtype)


def argsort(x, axis, descending):
    """Stable, NaN above every number (last ascending, first descending)."""
    x = np.moveaxis(x, axis, -1)
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    filled = np.where(nan, 0, x)
    if descending:
        # Sort keys: NaN first, then larger first; lexsort is stable.
        order = np.lexsort((-filled, ~nan), axis=-1)
    else:
        order = np.lexsort((filled, nan), axis=-1)
    return np.moveaxis(order, -1, axis)


def top_k(case, x):
    order = argsort(x, case["axis"], case["largest"])
    return np.take(order, np.arange(case["k"]), axis=case["axis"])


def categorical(case, w):
    u = uniform({**case, "low": 0.0, "high": 1.0}, "f32")
    logits = w[0].astype(np.float32)
    with np.errstate(divide="ignore"):
        noisy = logits - np.log(-np.log(u))
    return np.argmax(noisy, axis=-1)


def cumulative(op, x, axis, reverse, dtype):
    x = np.moveaxis(x, axis, -1)
    if reverse:
        x = x[..., ::-1]
    if op == "cumprod":
        out = np.cumprod(x.astype(np.float32), axis=-1)  # each step an f32 product
    elif op == "cummax":
        out = np.maximum.accumulate(x, axis=-1)
    elif op == "cummin":
        out = np.minimum.accumulate(x, axis=-1)
    else:
        out = np.logaddexp.accumulate(x, axis=-1)
    if reverse:
        out = out[..., ::-1]
    return finish(np.moveaxis(out, -1, axis), dtype)


def cum_indices(case, x, largest):
    """PyTorch's rule: a position takes over when it is NaN, or when no NaN
    was met and it is >= (<=) the running extreme."""
    x = np.moveaxis(x, case["axis"], -1)
    out = np.zeros(x.shape, dtype=np.int64)
    n = x.shape[-1]
    order = range(n - 1, -1, -1) if case["reverse"] else range(n)
    for line in np.ndindex(x.shape[:-1]):
        best, at = None, 0
        for t in order:
            v = x[line + (t,)]
            nan_v = x.dtype.kind == "f" and np.isnan(v)
            nan_best = best is not None and x.dtype.kind == "f" and np.isnan(best)
            better = best is None or (v >= best if largest else v <= best)
            if nan_v or (not nan_best and better):
                best, at = v, t
            out[line + (t,)] = at
    return np.moveaxis(out, -1, case["axis"])


def prod(case, w, dtype):
    x = w[0].astype(np.float32)
    return finish(np.prod(x, axis=axes_of(case), keepdims=case["keepdims"], dtype=np.float32), dtype)


def linspace(case, dtype):
    start, end, steps = case["start"], case["end"], case["steps"]
    if steps == 1:
        return finish(np.full([1], start), dtype)
    f = np.float32
    cast = (lambda v: to_bf16(np.float32(v))) if dtype == "bf16" else f
    start_, end_ = cast(start), cast(end)
    step = cast((f(end_) - f(start_)) / f(max(steps - 1, 1)))
    i = np.arange(steps)
    lo = cast(f(start_) + cast(cast(i.astype(f)) * step))
    hi = cast(f(end_) - cast(cast(f(steps - 1) - i.astype(f)) * step))
    return finish(np.where(i < steps // 2, lo, hi), dtype)


def unfold(case, x):
    axis, size, step = case["axis"] % x.ndim, case["size"], case["step"]
    n = x.shape[axis]
    starts = range(0, n - size + 1, step)
    windows = [np.moveaxis(np.take(x, np.arange(s, s + size), axis=axis), axis, -1) for s in starts]
    return np.stack(windows, axis=axis)


def slice_step(case, x):
    start, stop, step = case["start"], case["stop"], case["step"]
    stop = None if stop == -1 else stop
    index = [slice(None)] * x.ndim
    index[case["axis"]] = slice(start, stop, step)
    return x[tuple(index)]


def int_pow(case, w):
    """PyTorch's integer `pow`: wrapping, and where the exponent is
    negative 1 for a base of 1, ±1 for -1, else 0."""
    e = np.asarray(case["number"], dtype=np.int64) if "number" in case else w[1]
    x, e = np.broadcast_arrays(w[0], e)
    power = np.power(x, np.maximum(e, 0))
    inverse = np.where(x == 1, 1, np.where(x == -1, np.where(e % 2 == 1, -1, 1), 0))
    return np.where(e < 0, inverse, power)


def repeat_interleave(case, x):
    repeats = case["repeats"]
    repeats = repeats[0] if len(repeats) == 1 else repeats
    return np.repeat(x, repeats, axis=case["axis"])


def scatter(case, w, d):
    """PyTorch's `scatter` (the last of repeated ids kept) and
    `scatter_reduce`, one id at a time in row-major order."""
    base, idx, src = w
    axis = case["axis"] % base.ndim
    sent = {}
    for i in np.ndindex(idx.shape):
        target = i[:axis] + (int(idx[i]),) + i[axis + 1 :]
        sent.setdefault(target, []).append(src[i])
    out = base.copy()
    how = case.get("reduce")
    for target, values in sent.items():
        if how is None:
            out[target] = values[-1]
            continue
        values = ([base[target]] if case["include_self"] else []) + values
        if how == "mean":
            total = np.sum(values)
            out[target] = total / len(values) if base.dtype.kind == "f" else total // len(values)
        else:
            out[target] = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}[how](values)
    return finish(out, d)


def pad(case, x):
    """PyTorch's `F.pad`, negative amounts cropping: `reflect` and
    `replicate` read about the input's own borders, the others crop first."""
    pairs, mode = case["pairs"], case["mode"]
    first = x.ndim - len(pairs)
    for i, (lo, hi) in enumerate(pairs):
        axis, n = first + i, x.shape[first + i]
        if mode in ("reflect", "replicate"):
            at = np.arange(-lo, n + hi)
            at = n - 1 - np.abs(n - 1 - np.abs(at)) if mode == "reflect" else np.clip(at, 0, n - 1)
            x = np.take(x, at, axis=axis)
            continue
        x = np.take(x, np.arange(max(-lo, 0), n - max(-hi, 0)), axis=axis)
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        if mode == "constant":
            x = np.pad(x, widths, constant_values=case["value"])
        elif x.shape[axis]:
            x = np.pad(x, widths, mode="wrap")
    return x


def max_pool_indices(case, x):
    """PyTorch's `max_pool2d` indices: the first in-bounds element of a
    window, replaced by each larger one and each NaN."""
    (kh, kw), (sh, sw), (ph, pw) = case["window"], case["stride"], case["padding"]
    height, width = x.shape[-2:]
    oh, ow = (height + 2 * ph - kh) // sh + 1, (width + 2 * pw - kw) // sw + 1
    out = np.zeros(x.shape[:-2] + (oh, ow), dtype=np.int64)
    for lead in np.ndindex(x.shape[:-2]):
        for i, j in np.ndindex(oh, ow):
            best, at = -np.inf, None
            for a, b in np.ndindex(kh, kw):
                h, w = i * sh - ph + a, j * sw - pw + b
                if 0 <= h < height and 0 <= w < width:
                    v = x[lead + (h, w)]
                    at = h * width + w if at is None else at
                    if v > best or np.isnan(v):
                        best, at = v, h * width + w
            out[lead + (i, j)] = at
    return out


def max_unpool(case, x):
    """`max_pool2d` then `max_unpool2d` to the input's size."""
    indices = max_pool_indices(case, x)
    out = np.zeros_like(x)
    for lead in np.ndindex(x.shape[:-2]):
        plane, at = x[lead].ravel(), indices[lead].ravel()
        out[lead].reshape(-1)[at] = plane[at]
    return out


def index_many(case, w):
    """NumPy's advanced indexing, which places the broadcast index shape as
    PyTorch does."""
    x, ids = w[0], w[1:]
    index = [slice(None)] * x.ndim
    for axis, i in zip(case["axes"], ids):
        index[axis] = i
    return x[tuple(index)]


COMPOSED = {
    "index-many": lambda case, w, d: index_many(case, w),
    "max-pool-indices": lambda case, w, d: max_pool_indices(case, w[0]),
    "max-unpool": lambda case, w, d: finish(max_unpool(case, w[0]), d),
    "pad": lambda case, w, d: finish(pad(case, w[0]), d),
    "scatter": scatter,
    "scatter-reduce": scatter,
    "diagonal": lambda case, w, d: np.diagonal(w[0], case["offset"], case["axis1"], case["axis2"]),
    "diag": lambda case, w, d: np.diag(w[0], case["k"]),
    "repeat-interleave": lambda case, w, d: repeat_interleave(case, w[0]),
    "logaddexp": lambda case, w, d: finish(np.logaddexp(w[0], w[1]), d),
    "int-pow": lambda case, w, d: finish(int_pow(case, w), d),
    "cummax-indices": lambda case, w, d: cum_indices(case, w[0], True),
    "cummin-indices": lambda case, w, d: cum_indices(case, w[0], False),
    "prod": lambda case, w, d: prod(case, w, d),
    "cumprod": lambda case, w, d: cumulative("cumprod", w[0], case["axis"], case["reverse"], d),
    "cummax": lambda case, w, d: cumulative("cummax", w[0], case["axis"], case["reverse"], d),
    "cummin": lambda case, w, d: cumulative("cummin", w[0], case["axis"], case["reverse"], d),
    "logcumsumexp": lambda case, w, d: cumulative("logcumsumexp", w[0], case["axis"], case["reverse"], d),
    "linspace": lambda case, w, d: linspace(case, d),
    "flip": lambda case, w, d: np.flip(w[0], axis=tuple(case["axes"])),
    "roll": lambda case, w, d: np.roll(w[0], case["shift"], axis=case["axis"]),
    "tril": lambda case, w, d: np.where(np.tri(*w[0].shape[-2:], k=case["diagonal"], dtype=bool), w[0], np.zeros_like(w[0])),
    "triu": lambda case, w, d: np.where(~np.tri(*w[0].shape[-2:], k=case["diagonal"] - 1, dtype=bool), w[0], np.zeros_like(w[0])),
    "repeat": lambda case, w, d: np.tile(w[0], case["reps"]),
    "unfold": lambda case, w, d: unfold(case, w[0]),
    "slice-step": lambda case, w, d: slice_step(case, w[0]),
    "eye": lambda case, w, d: finish(np.eye(case["n"], case["m"]), d),
    "argsort": lambda case, w, d: argsort(w[0], case["axis"], case["descending"]),
    "sort": lambda case, w, d: np.take_along_axis(w[0], argsort(w[0], case["axis"], case["descending"]), axis=case["axis"]),
    "top-k": lambda case, w, d: top_k(case, w[0]),
    "categorical": lambda case, w, d: categorical(case, w),
    "min": lambda case, w, d: finish(np.min(w[0], axis=axes_of(case), keepdims=case["keepdims"]), d),
    "any": lambda case, w, d: np.any(w[0], axis=axes_of(case), keepdims=case["keepdims"]),
    "all": lambda case, w, d: np.all(w[0], axis=axes_of(case), keepdims=case["keepdims"]),
    "argmax": lambda case, w, d: arg_extreme(case, w, True),
    "argmin": lambda case, w, d: arg_extreme(case, w, False),
    "clip": lambda case, w, d: finish(np.where(w[0] > w[2], w[2], np.where(w[0] < w[1], w[1], w[0])), d),
    "one-hot": lambda case, w, d: finish(w[0][..., None] == np.arange(case["n"]), d),
    "bit-not": lambda case, w, d: finish(np.invert(w[0]), d),
    "logical-not": lambda case, w, d: np.logical_not(w[0]),
    "var": lambda case, w, d: variance(case, w, d, False),
    "std": lambda case, w, d: variance(case, w, d, True),
    "lerp": lambda case, w, d: lerp(w, d),
    "isnan": lambda case, w, d: np.isnan(w[0]),
    "isinf": lambda case, w, d: np.isinf(w[0]),
    "isfinite": lambda case, w, d: np.isfinite(w[0]),
}


def expected(case, xs):
    op, out_dtype = case["op"], case["output"]["dtype"]
    w = [widen(x) for x in xs]
    if op in UNARY:
        with np.errstate(invalid="ignore", divide="ignore"):
            return finish(UNARY[op](w[0]), out_dtype)
    if op in ("shift-left", "shift-right"):
        b = w[1] if "number" not in case else np.asarray(case["number"], dtype=np.int64)
        return finish(shift(op, w[0], np.broadcast_to(b, np.broadcast_shapes(w[0].shape, np.shape(b))), out_dtype), out_dtype)
    if op in COMPOSED:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return COMPOSED[op](case, w, out_dtype)
    if op in BINARY:
        operands = w if "number" not in case else [w[0], np.asarray(case["number"], dtype=w[0].dtype)]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return finish(BINARY[op](*operands), out_dtype)
    if op in COMPARE:
        return COMPARE[op](w[0], w[1])
    if op == "where":
        return finish(np.where(w[0], w[1], w[2]), out_dtype)
    if op in ("sum", "max"):
        axes = None if case["axes"] is None else tuple(case["axes"])
        f = np.sum if op == "sum" else np.max
        return finish(f(w[0], axis=axes, keepdims=case["keepdims"]), out_dtype)
    if op == "reshape":
        return xs[0].reshape(case["shape"])
    if op == "broadcast-to":
        return np.broadcast_to(xs[0], case["shape"])
    if op == "transpose":
        return np.transpose(xs[0], case["perm"])
    if op == "slice":
        return np.take(xs[0], np.arange(case["start"], case["stop"]), axis=case["axis"])
    if op == "concat":
        return np.concatenate(xs, axis=case["axis"])
    if op == "matmul":
        return finish(np.matmul(w[0], w[1]), out_dtype)
    if op == "attention":
        return attention(case, w, out_dtype)
    if op == "index":
        return xs[0][xs[1]]
    if op == "index-add":
        out = w[0].copy()
        np.add.at(out, w[1], w[2])
        return finish(out, out_dtype)
    if op == "gather":
        return xs[0][scatter_index(xs[1], case["axis"])]
    if op == "scatter-add":
        out = w[0].copy()
        np.add.at(out, scatter_index(xs[1], case["axis"]), w[2])
        return finish(out, out_dtype)
    if op == "linear-scan":
        a = np.full_like(xs[0], case["a"]) if "a" in case else xs[0]
        b = xs[0] if "a" in case else xs[1]
        return linear_scan(a, b, case["axis"], case["reverse"], out_dtype)
    if op == "cast":
        return cast(w[0], case["inputs"][0]["dtype"], case["to"])
    if op == "iota":
        shape = case["shape"]
        return finish(np.indices(shape)[case["axis"] % len(shape)], out_dtype)
    if op == "full":
        return finish(np.full(case["shape"], case["value"]), out_dtype)
    if op == "uniform":
        return uniform(case, out_dtype)
    if op == "normal":
        return normal(case, out_dtype)
    raise ValueError(f"no NumPy recipe for op {op!r}")


def attention(case, w, dtype):
    """Fused attention's part in float64 (docs/sexpgpu/operations.md)."""
    q, k, v = w[0], w[1], w[2]
    scores = case["scale"] * np.matmul(q, np.swapaxes(k, -1, -2))
    t, s = scores.shape[-2:]
    if case["causal"]:
        visible = np.arange(s)[None, :] <= np.arange(t)[:, None]
        scores = np.where(visible, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    lse = top[..., 0] + np.log(np.exp(scores - top).sum(axis=-1))
    p = np.exp(scores - lse[..., None])
    part = case["part"]
    if part == "output":
        return finish(np.matmul(p, v), dtype)
    if part == "lse":
        return finish(lse, "f32")
    dout, delta = w[3], w[4]
    ds = p * (np.matmul(dout, np.swapaxes(v, -1, -2)) - delta[..., None])
    grads = {
        "grad-q": case["scale"] * np.matmul(ds, k),
        "grad-k": case["scale"] * np.matmul(np.swapaxes(ds, -1, -2), q),
        "grad-v": np.matmul(np.swapaxes(p, -1, -2), dout),
    }
    return finish(grads[part], dtype)


# Relative and absolute tolerance per dtype: a few units in the last place.
TOLERANCE = {"f32": (1e-5, 1e-6), "bf16": (2.0**-7, 1e-6)}


def compare(case, got, want):
    dtype = case["output"]["dtype"]
    if list(got.shape) != case["output"]["shape"] or got.shape != np.shape(want):
        return f"shape {list(got.shape)} vs NumPy {list(np.shape(want))}"
    if dtype in TOLERANCE:
        # A case whose op sums long products in f32 (attention) names its own.
        rtol, atol = case.get("rtol", TOLERANCE[dtype][0]), case.get("atol", TOLERANCE[dtype][1])
        want = np.asarray(want, dtype=np.float64)
        ok = np.isclose(got.astype(np.float64), want, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            i = np.argwhere(~ok)[0]
            return f"at {tuple(int(k) for k in i)}: got {got[tuple(i)]!r}, NumPy {want[tuple(i)]!r} ({int((~ok).sum())} differ)"
        return None
    if not np.array_equal(got, np.asarray(want).astype(got.dtype)):
        diff = np.argwhere(got != np.asarray(want).astype(got.dtype))
        i = tuple(int(k) for k in diff[0])
        return f"at {i}: got {got[i]!r}, NumPy {np.asarray(want)[i]!r}"
    return None


def main():
    directory = Path(sys.argv[1])
    check_known_answers()
    cases = json.loads((directory / "manifest.json").read_text())
    passed = failed = 0
    for k, case in enumerate(cases):
        xs = [np.load(directory / i["file"]) for i in case["inputs"]]
        got = np.load(directory / case["output"]["file"])
        try:
            problem = compare(case, got, expected(case, xs))
        except Exception as e:  # a recipe that cannot run is a failure too
            problem = f"{type(e).__name__}: {e}"
        if problem is None:
            passed += 1
        else:
            failed += 1
            shapes = " ".join(f"{list(x.shape)}:{i['dtype']}" for x, i in zip(xs, case["inputs"]))
            attrs = {key: v for key, v in case.items() if key not in ("inputs", "output")}
            print(f"FAIL case {k} {attrs} inputs {shapes}: {problem}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
