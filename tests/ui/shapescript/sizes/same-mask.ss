# Masks by one binding select as many rows (docs/shapescript/sizes.md):
# `x[hit]` and `w[hit]` share their `?k` when `hit` is a parameter or a
# `let` that nothing rebinds, so sparse dispatch (the rows, their weights
# and their ids for `index_add`) checks. A mask written out twice, a `let`
# that `hit = ...` rebinds somewhere, or a second `let` of the same name
# gives a new `?k`: its rows may be others.
dim D = 8

fn dispatch(x: [n D], w: [n], hit: [n] Bool) -> [n D] {
  let rows = x[hit] * w[hit]
  index_add(zeros([n D]), arange(n)[hit], rows)
}
fn by_let(x: [n D], w: [n]) -> [?k D] {
  let hit = w > 0.0
  x[hit] * w[hit]
}
fn in_a_loop(x: [n D], w: [n E]) -> [n D] {
  let out = zeros([n D])
  for e in range(E) {
    let hit = w[:, e] > 0.0
    out = index_add(out, arange(n)[hit], x[hit] * w[:, e][hit])
  }
  out
}
fn written_twice(x: [n D], w: [n]) -> [?k D] = x[w > 0.0] * w[w > 0.0]   # ~ E0401
fn rebound(x: [n D], w: [n]) -> [?k D] {
  let hit = w > 0.0
  let rows = x[hit]
  hit = w < 1.0
  rows * w[hit]                                                          # ~ E0401
}
fn rebound_in_a_loop(x: [n D], w: [n]) -> [?k D] {
  let hit = w > 0.0
  let rows = x[hit]
  for i in range(3) {
    rows = x[hit]                                                        # ~ E0401
    hit = w > 1.0
  }
  rows
}
fn shadowed(x: [n D], w: [n]) -> [?k D] {
  let hit = w > 0.0
  let rows = x[hit]
  let hit = w < 1.0
  rows * w[hit]                                                          # ~ E0401
}
