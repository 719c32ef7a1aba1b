# PyTorch's integers wrap around past their dtype's range: `x * x` of an
# i32 50000 is -1794967296, and `abs` of i32's least value is itself. A
# square, a sum or an `abs` of integers keeps its sign only where it
# cannot pass the range.
fn square(x: [n] i32) -> [n] NonNeg i32 = x * x                     # ~ E0606
fn doubled(x: [n] NonNeg i32) -> [n] NonNeg i32 = x + x             # ~ E0606
fn total(x: [n] Pos i64) -> [] Pos i64 = sum(x, over=n)             # ~ E0606
fn power(x: [n] NonNeg i32) -> [n] NonNeg i32 = x ** 2              # ~ E0606
fn magnitude(x: [n] i32) -> [n] NonNeg i32 = abs(x)                 # ~ E0606
fn narrowed(x: [n] NonNeg i64) -> [n] NonNeg i32 = x to i32          # ~ E0606
# What cannot pass the range stays typed: a count of a mask, a widening,
# `abs` and `-` of values that are within the range either way.
fn count(m: [n] Bool) -> [] NonNeg i64 = sum(m, over=n)
fn widened(x: [n] NonNeg i32) -> [n] NonNeg i64 = x to i64
fn kept(x: [n] NonNeg i32) -> [n] NonNeg i32 = abs(x)
fn negated(x: [n] NonNeg i32) -> [n] NonPos i32 = -x
dim V = 1000
fn shifted(ids: [k] Index[V] i32) -> [k] Pos i32 = ids + 1
# A `to` into integers clamps again once converted: `x to Pos i32` of 0.5
# was the float clamped to `Pos` and converted, 0, and a float past i32's
# range converts to anything (3e9 is -2^31).
fn to_pos(x: [n] Unit f32) -> [n] Pos i32 = x to Pos i32
fn to_nonneg(x: [n] f32) -> [n] NonNeg i32 = x to NonNeg i32
fn to_unit(x: [n] f32) -> [n] Unit i32 = x to Unit i32
