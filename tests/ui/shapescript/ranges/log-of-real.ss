# `log` of a difference, which may be negative. The help clamps it.
fn f(a: [n] Pos, b: [n] Pos) -> [n] = log(a - b)  # ~ E0601
