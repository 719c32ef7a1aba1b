# `einsum` multiplies tensors of one float dtype, as `@` does; a sum over a
# mask's rows may add no value (it is 0 then); a call's `Bool` result stays
# a mask; `tril` of positive values holds zeros; and an `as` that names no
# domain checks none.
dim H = 4
dim E = 2
fn masked(r: [s H] Bool, z: [H] Unit) -> [s] = einsum(r, z, [s H], [H] -> [s])          # ~ E0503
fn mixed(x: [m s] f64, a: [s] f32) -> [m] f64 = einsum(x, full([s], 0.5), [m s], [s] -> [m])  # ~ E0502
fn rows(m: [t E] Signed, keep: [t] Bool) -> [] Pos = sum(softplus(m[keep]))              # ~ E0606
fn lower(h: [n n] Pos) -> [n n] Pos = tril(h)                                              # ~ E0606
fn positive(t: [c]) -> [c] Bool = t > 0.5
fn gate(x: [c] bf16) -> [c] Bool = positive(x)
fn shaped(h: [(E + 1) E] Pos) -> [(E + 1) E] NonNeg = tril(h) as [(E + 1) E]
fn counted(m: [t E] Signed, keep: [t] Bool) -> [] NonNeg = sum(softplus(m[keep]))
