# `over=` finds axes by name (docs/shapescript/broadcasting.md): reductions drop them, softmax and
# friends keep them; a name that isn't an axis of the argument is E0405, and
# something that isn't a name is E0406.
dim D = 64
fn total(x: [b n D]) -> [b D] = sum(x, over=n)
fn both(x: [b n D]) -> [D] = mean(x, over=(b n))
fn all_axes(x: [b n]) -> [] = sum(x)
fn weights(s: [b i j]) -> [b i j] Unit = softmax(s, over=j)
fn best(s: [b n V]) -> [b n] Index[V] = argmax(s, over=V)
fn joined(a: [b n D], c: [b m D]) -> [b n+m D] = concat(a, c, over=n)
fn missing(x: [b n D]) -> [b D] = sum(x, over=m)                   # ~ E0405
fn numbered(x: [b n D]) -> [b D] = sum(x, over=1)                  # ~ E0406
fn halves(x: [b 64]) -> [b 32] = rearrange(x, [b d] -> [b d])[:, 0:32]
fn split_halves(x: [b n D]) -> [b n 32] {
  let (left, right) = split(x, 2, over=D)
  left + right
}
fn split_thirds(x: [b n D]) -> [b n D] {
  let (a, c, d) = split(x, 3, over=D)                              # ~ E0402
  x
}
