# A slice's bounds are `Int`s: `/` of two `Int`s divides into a `Float`
# (PyTorch's `x[:2.5]` is a TypeError), unless it divides sizes exactly.
dim D = 8
fn half(x: [n], k: Int) -> [?k] = x[: k / 2]               # ~ E0408
fn half_of_dim(x: [D]) -> [4] = x[: D / 2]
fn positions() -> [4] Index[4] = arange(D / 2)
