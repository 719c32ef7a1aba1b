# A call gives back the unknown sizes of its arguments
# (docs/shapescript/sizes.md): masked rows `[?k D]` go through elementwise
# built-ins, `...` externs, a user fn's generic axis and a whole-axis slice
# with their `?k`, so they combine with the rows. Only a callee's own `?k`
# is new at each call, and within one type the same `?k` is one size.
dim D = 8
fn idf(x: [n D]) -> [n D] = x
fn kept(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]

fn masked(x: [n D], hit: [n] Bool, w: [D D]) -> [?k D] {
  let rows = x[hit]
  let a = rows + exp(rows)
  let b = linear(rows, w)
  let c = dropout(rows, training=true)
  let d = idf(rows)
  let e = rows[:, 0]
  let f = rows * softmax(rows, over=D)
  let g = e * sum(rows, over=D)
  rows + a + b + c + d + f + g
}
fn two_calls(x: [n D]) -> [?k D] {
  let k1 = kept(x)
  let k2 = kept(x)
  k1 + k2                                                    # ~ E0401
}
fn square(x: [n m]) -> [?k ?k] = x                           # ~ E0401
fn same(x: [n n]) -> [?k ?k] = x
fn pair(x: [n D]) -> ([?k D], [?k]) = (x, sum(x, over=D))
fn unpaired(x: [n D], y: [m]) -> ([?k D], [?k]) = (x, y)     # ~ E0401
