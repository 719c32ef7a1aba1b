# `a / b` in a size is exact division (docs/shapescript/sizes.md, "Division").
dim D = 768
dim H = 12
dim Dh = D / H

## 2*n / 2 is n.
fn symbolic(x: [2*n / 2]) -> [n] = x

## D / H is 64 once the dims are replaced by their values.
fn by_dims(x: [b D/H]) -> [b Dh] = x

## n*m / n is m.
fn cancel(x: [n m], y: [n*m / n]) -> [m] = y

fn bad_dim(x: [D / 5]) -> [D] = x     # ~ E0402 768 / 5 is not whole
fn bad_generic(x: [n / 2]) -> [n] = x # ~ E0402 n may be odd
fn by_sum(x: [n m], y: [n / (m + 1)]) -> [n] = x # ~ E0402 the divisor is a sum
fn by_zero(x: [n / 0]) -> [n] = x     # ~ E0402
