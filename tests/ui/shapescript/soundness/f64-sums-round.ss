# Found by shapescript-gen (campaign seed 37, program 1350): `-1.0 + 1e-17`
# is -1.0 in f64, so a sum of a Signed and a Pos value reaches -1.
fn f(q: [b] Signed f64, m: [b] Pos f64) -> [b] Pos f64 = q + m + 1.0   # ~ E0606
fn g(q: [b] Signed f64, m: [b] Pos f64) -> [b] NonNeg f64 = q + m + 1.0
