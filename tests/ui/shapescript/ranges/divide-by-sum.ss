# Normalizing by a sum of NonNeg values that may all be 0.
fn f(x: [b n] NonNeg) -> [b n] = x / sum(x, over=n)  # ~ E0602
