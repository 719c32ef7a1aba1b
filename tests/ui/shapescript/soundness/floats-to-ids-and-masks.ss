# Floats converted to ids (`to [n] Index[W]`) or a mask (`to [n] Bool`)
# without a dtype become `i64` and `bool`, what the domain implies and the
# emitted `.long()` and `!= 0` give, in a body of a concrete float dtype
# too (a mask is `!= 0`, as PyTorch's `.bool()`, not a clamp into [0, 1]);
# integers converted to ids keep their dtype.
dim W = 3
fn summed(x: [n] f32) -> [] f32 = sum(zeros([n]) to [n] Index[W])                 # ~ E0502
fn summed_mask(x: [n] bf16) -> [] bf16 = sum(x to [n] Bool)                           # ~ E0502
fn ids(x: [n] f32) -> [n] Index[W] = clamp(x, lo=0.0, hi=2.0) to [n] Index[W]
fn mask(x: [n] bf16) -> [n] Bool = x to [n] Bool
fn counted(x: [n] f64) -> [] i64 = sum(x to [n] Index[W])
fn picked(x: [n] bf16) -> [n] bf16 = where(x to [n] Bool, x, 0.0)
fn nonzero(x: [n]) -> [n] Bool = x to [n] Bool
fn counts(i: [n] i64) -> [n] Bool = i to [n] Bool
fn narrow(i: [n] i32) -> [n] Index[W] i32 = i to [n] Index[W]
# A mask in a float dtype the type names is 0 and 1 there; a float made
# from a mask stays a float through another `to` of its dtype (found by
# shapescript-gen, campaign 8000, program 214: `(z to f32) to f32` was `!= 0`).
fn mask_as_floats(x: [n] f32) -> [n] f32 = x to Bool f32
fn floats_of_a_mask(z: [n] Bool) -> [n] f32 = (z to f32) to f32
