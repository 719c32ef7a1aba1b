# Sizes that flow through a call stay in the caller's terms: a result size
# that overflows with the call's values is E0414 (never the callee's own
# `[n*n + n]`, which would match the caller's `n`), a generic axis solved to
# a size that is below 1 for small sizes (`p + 1` against `t` gives
# `p = t - 1`) is E0401, and an axis read with an offset (`[p + 1]`) is
# checked to leave `p` at least 1 when the program runs.
fn square(x: [n]) -> [n*n + n] = zeros([n*n + n])
fn overflows(x: [n]) -> [n*n + n] = square(zeros([100000000000000000000]))   # ~ E0414
fn drop_first(x: [p + 1]) -> [p] = x[1:]
fn maybe_empty(x: [t]) -> [t - 1] = drop_first(x)                           # ~ E0401
fn roomy(x: [t + 1]) -> [t] = drop_first(x)
fn odd(x: [2*h + 1]) -> [h] = x[1::2]
fn made_unknown(x: [n]) -> [] = sum(zeros([?k D]))                           # ~ E0406
dim D = 3
