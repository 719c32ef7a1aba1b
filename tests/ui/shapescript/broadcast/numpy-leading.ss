# When no name decides, NumPy's rule (docs/shapescript/broadcasting.md): the
# smaller operand gets leading axes while literal 1s on either side expand.
fn outer(c: [3 1], r: [4]) -> [3 4] = c * r
fn batch(x: [b 3 1], r: [4]) -> [b 3 4] = x + r
fn flipped(r: [4], c: [3 1]) -> [3 4] = r - c
fn picked(c: [3 1], r: [4], k: [3 1] Bool) -> [3 4] = where(k, c, r)
fn mismatch(c: [3 2], r: [4]) -> [3 4] = c * r          # ~ E0401 2 meets 4
fn named(c: [n 1], r: [m]) -> [n m] = c * r             # ~ E0401 no axis named m
