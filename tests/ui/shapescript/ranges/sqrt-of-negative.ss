# `sqrt` of a value that may be negative gives NaN.
# Fix: clamp at 0 first.
fn f(x: [n] NonNeg) -> [n] = sqrt(x - 1.0)  # ~ E0604
