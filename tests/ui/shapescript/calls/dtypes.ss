# dtype-less tensor parameters take any float dtype, the same for all of
# them in one call, and the result has it: a bf16 model stays bf16 (E0502 for
# a mix). A parameter with a dtype takes that dtype.
dim D = 64

fn scale(x: [b D], s: [D]) -> [b D] = x * s
fn stays_bf16(x: [b D] bf16, s: [D] bf16) -> [b D] bf16 = scale(x, s)
fn mixed(x: [b D] bf16, s: [D] f32) -> [b D] = scale(x, s)               # ~ E0502
fn f32_only(x: [b D] f32) -> [b D] f32 = x
fn wrong_dtype(x: [b D] f16) -> [b D] f32 = f32_only(x)                  # ~ E0502
fn lost_dtype(x: [b D] bf16, s: [D] bf16) -> [b D] f32 = scale(x, s)     # ~ E0502
