# `over=` by position, as PyTorch's `dim=-1`, for an axis whose size no name
# fits (docs/shapescript/broadcasting.md, `over=`); a named axis goes by name.
fn joined(a: [b n1 + n2], c: [b m]) -> [b n1 + n2 + m] = concat(a, c, over=-1)
fn front(a: [3*n D], c: [n D]) -> [4*n D] = concat(a, c, over=0)
fn halves(x: [b 2*n]) -> [b n] {
  let (l, r) = split(x, 2, over=1)
  l + r
}
fn total(x: [b n1 + n2]) -> [b] = sum(x, over=-1)
fn probs(x: [b 3*n]) -> [b 3*n] = softmax(x, over=-1)
fn stacked(a: [b n1 + n2], c: [b n1 + n2]) -> [b n1 + n2 2] = stack(a, c, over=-1)
fn between(a: [b n], c: [b n], d: [b n]) -> [b 3 n] = stack(a, c, d, over=1)
fn named(x: [b n]) -> [b] = sum(x, over=-1)            # ~ E0406 name it
fn outside(x: [b 2*n]) -> [b] = sum(x, over=2)         # ~ E0405 no axis
fn past(a: [b n], c: [b n]) -> [2 b n] = stack(a, c, over=3)   # ~ E0406 no such position
