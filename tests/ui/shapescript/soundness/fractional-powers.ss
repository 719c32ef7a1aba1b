# A negative float to a power that is not a whole number is NaN in
# PyTorch, as `sqrt` of it is (E0604): `x ** 1.5` of a `Signed` value was
# typed `Real` and computed NaN for every negative element.
fn root(x: [n] Signed f32) -> [n] f32 = x ** 1.5                     # ~ E0608
fn by_tensor(x: [n] Signed f32, p: [n] Unit f32) -> [n] f32 = x ** p  # ~ E0608
fn halves(x: [n] f32) -> [n] NonNeg f32 = x ** 0.5                  # ~ E0608
fn magnitude(x: [n] Signed f32) -> [n] f32 = sign(x) * abs(x) ** 1.5
fn clamped(x: [n] Signed f32) -> [n] NonNeg f32 = clamp(x, lo=0.0) ** 0.5
fn whole(x: [n] Signed f32) -> [n] f32 = x ** 3.0 + x ** 2
fn positive(x: [n] Unit f32, p: [n] f32) -> [n] f32 = (x + 1.0) ** p
