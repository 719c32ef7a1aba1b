# Bug: normalizing by rsqrt of a variance with no epsilon. A variance is
# NonNeg and can be exactly 0 (a constant row, or padding), and rsqrt(0) is
# inf.
# Fix: rsqrt(var(x, over=D) + 1e-5).
dim D = 768

fn normalize(x: [b n D]) -> [b n D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D))  # ~ E0601
