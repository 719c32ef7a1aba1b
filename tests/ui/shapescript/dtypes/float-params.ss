# A tensor parameter without a dtype takes a float dtype: integer and bool
# tensors there are E0502 (an `Index[N]` id tensor is i64). And a dtype-less
# argument, which takes the caller's float dtype (bf16 in a bf16 model),
# mixed with a concrete f32 one in the same call is E0502: the call would
# fail at run time in bf16.
dim D = 64
dim V = 100

fn scale(x: [b D], s: [D]) -> [b D] = x * s
fn ids_given(x: [b D] Index[V], s: [D]) -> [b D] = scale(x, s)         # ~ E0502
fn ints_given(x: [b D] i64, s: [D]) -> [b D] = scale(x, s)             # ~ E0502
fn mask_given(x: [b D], m: [D] Bool) -> [b D] = scale(x, m)            # ~ E0502
fn mixed_with_f32(x: [b D], s: [D] f32) -> [b D] = scale(x, s)         # ~ E0502
fn both_f32(x: [b D] f32, s: [D] f32) -> [b D] f32 = scale(x, s)
fn both_any(x: [b D], s: [D]) -> [b D] = scale(x, s)
fn converted(x: [b D] Index[V], s: [D]) -> [b D] = scale(x to Real, s)
