# `clamp` kept its argument's domain in its type whatever its bounds, so
# ids clamped up to 3 were still taken to be `Index[n]`, and indexed an axis
# of size 2 in PyTorch. Values only move to a bound: a `lo` no higher than
# the domain's top and a `hi` no lower than its bottom keep the domain.
fn raised(x: [n d], ids: [k] Index[n] i64) -> [k d] = take(x, clamp(ids, 3, 9), over=n)  # ~ E0603
fn lowered(x: [n d], ids: [k] Index[n] i64) -> [k d] = take(x, clamp(ids, 0, 9), over=n)
fn summed(x: [n d], ids: [k 2] Index[n] i64) -> [k d] = take(x, reduce(ids, [k 2] -> [k], sum), over=n)  # ~ E0603
fn below(x: [k 6] Unit f32) -> [k 3] Unit f32 = split(clamp(x, hi=-0.5), 2, over=1)[0]  # ~ E0606
fn within(x: [k 6] Unit f32) -> [k 3] Unit f32 = split(clamp(x, lo=-2.0, hi=0.5), 2, over=1)[0]
# Ids without a written dtype are `i64`, as their clamp is: they stay ids.
fn plain(x: [n d], ids: [k] Index[n]) -> [k d] = x[clamp(ids, hi=0)]
fn plain_raised(x: [n d], ids: [k] Index[n]) -> [k d] = x[clamp(ids, lo=1)]  # ~ E0603
