# A product of floats may underflow to 0 in every float dtype, f64 and
# Python's `float` too (`1e-200 * 1e-200` is 0.0), and so may `prod`, `@`
# and `einsum`, which multiply before they add: none of them is `Pos`
# (docs/shapescript/ranges.md, "Rounding"). Sums of positive values stay
# positive.
fn prod_pos(x: [n] Pos) -> [] Pos = prod(x, over=n)                               # ~ E0606
fn dot_pos(x: [n] Pos, y: [n] Pos) -> [] Pos = x @ y                               # ~ E0606
fn einsum_pos(x: [n] Pos, y: [n] Pos) -> [] Pos = einsum(x, y, [n], [n] -> [])      # ~ E0606
fn reduce_pos(x: [n m] Pos) -> [m] Pos = reduce(x, [n m] -> [m], prod)             # ~ E0606
fn mul_f64(x: [n] Pos f64, y: [n] Pos f64) -> [n] Pos f64 = x * y                  # ~ E0606
fn pow_f64(x: [n] Pos f64) -> [n] Pos f64 = x ** 3                                 # ~ E0606
fn div_f64(x: [n] Pos f64) -> [n] Pos f64 = x / 1e300                              # ~ E0606
fn number(x: [n], t: Float) -> [n] = x / ((t as Pos) * 1e-300)                     # ~ E0602
fn prod_nonneg(x: [n] Pos) -> [] NonNeg = prod(x, over=n)
fn dot_nonneg(x: [n] Pos f64, y: [n] Pos f64) -> [] NonNeg f64 = x @ y
fn mul_nonneg(x: [n] Pos f64, y: [n] Pos f64) -> [n] NonNeg f64 = x * y
fn sum_pos(x: [n] Pos f64) -> [] Pos f64 = sum(x, over=n)
# Found by shapescript-gen (campaign 6000, program 19110): a Pos f64 value
# cast to f32 may underflow to 0 (`torch.finfo(torch.float64).tiny` is 0
# in f32), so it is NonNeg there; to a dtype as fine it stays Pos.
fn narrowed(w: [n] NonNeg f64) -> [n] Pos f32 = (w to Pos) to f32   # ~ E0606
fn narrowed_ok(w: [n] NonNeg f64) -> [n] NonNeg f32 = (w to Pos) to f32
fn widened(w: [n] Pos f32) -> [n] Pos f64 = w to f64
# Underflow goes by the least positive value, not the precision: bf16
# reaches 2^-133 and f16 only 2^-24, so `1e-30` in bf16 is 0 in f16. A
# value already on a dtype's numbers goes back to it exactly.
fn bf16_to_f16(y: [n] Pos bf16) -> [n] Pos f16 = y to f16                # ~ E0606
fn f32_through_bf16(y: [n] Pos f32) -> [n] Pos f32 = ((y to f64) to bf16) to f32  # ~ E0606
fn round_trip(y: [n] Pos bf16) -> [n] Pos bf16 = (y to f64) to bf16
fn f16_to_bf16(y: [n] Pos f16) -> [n] Pos bf16 = y to bf16
