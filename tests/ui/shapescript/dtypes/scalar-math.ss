# torch's elementwise functions raise a TypeError on Python numbers: on
# numbers, `exp`, `log`, `log1p`, `expm1`, `sqrt`, `sin`, `cos`, `tanh` and
# `erf` are Python's `math` (a Float, computed once); the others need a
# tensor (E0408). `clamp` without a bound is a RuntimeError in torch, so it
# is E0407 here.
dim Dh = 64

fn freqs(x: [n Dh]) -> [n Dh] = x * exp(0.0 - log(10000.0) / 64.0)
fn number() -> Float = sqrt(2.0) * tanh(1.0)
fn of_int(i: Int) -> Float = log1p(i as NonNeg)
fn no_math(x: [n Dh]) -> [n Dh] = x * rsqrt(2.0)       # ~ E0408
fn as_tensor(x: [n Dh]) -> [n Dh] = x * rsqrt(full([], 2.0))
fn unbounded(x: [n Dh]) -> [n Dh] = clamp(x)           # ~ E0407
fn bounded(x: [n Dh]) -> [n Dh] = clamp(x, lo=0.0)
fn not_a_number() -> Float = exp(full([], 1.0))        # ~ E0408
