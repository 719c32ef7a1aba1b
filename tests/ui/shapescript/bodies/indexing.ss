# Indexing (docs/shapescript/functions.md): an Int drops the axis, a slice known to fit
# gives its size, one that may not fit or is known only at run time gives an
# unknown size, a Bool mask over the leading axes gives `[?k rest...]`, and
# an unknown size equals only itself until `as` states it.
dim D = 8

fn first(x: [b n D]) -> [n D] = x[0]
fn column(x: [b n D]) -> [b D] = x[:, 0]
fn window(x: [b 10 D]) -> [b 4 D] = x[:, 2:6]
fn tail(x: [n + 1]) -> [n] = x[1:]
fn runtime(x: [b n D], k: Int) -> [b ?m D] = x[:, 0:k]
fn kept(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]
fn stated(x: [196 D], pos: [196 D]) -> [196 D] {
  let rows = x[sum(x, over=D) != 0]
  (rows as [196 D]) + pos
}
fn two_unknowns(x: [n D]) -> [?k D] {
  let a = x[sum(x, over=D) > 0]
  let c = x[sum(x, over=D) < 0]
  a + c                                              # ~ E0401 ?k and ?k2
}
fn too_many(x: [n D]) -> [D] = x[0, 1, 2]           # ~ E0401
fn whole(x: [n]) -> [n] = x[0:n]
fn maybe_empty(x: [n]) -> [?k] = x[1:]
fn may_not_fit(x: [n]) -> [2] = x[0:2]               # ~ E0401 n may be 1
