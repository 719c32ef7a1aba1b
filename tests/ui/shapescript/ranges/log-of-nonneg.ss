# `log` of a NonNeg value: it may be exactly 0, and log(0) is -inf.
# Fix: log(x + 1e-6).
fn f(x: [n] NonNeg) -> [n] = log(x)  # ~ E0601
