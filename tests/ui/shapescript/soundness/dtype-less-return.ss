# A return type without a dtype is the caller's float dtype: a body that
# always makes f32 (no parameter gives it another) says so, or a bf16 caller
# gets f32 back. The same holds for a `to f32` inside a dtype-less function.
dim N = 8
fn angles() -> [N] = arange(N) to Real                      # ~ E0502
fn forced(x: [n]) -> [n] = (x * 2.0) to f32                 # ~ E0502
fn declared() -> [N] f32 = arange(N) to Real
fn follows(x: [n]) -> [n] = x * 2.0
