# `tril` and `triu` take torch's `diagonal=k`, an Int (docs/shapescript/broadcasting.md, other built-ins).
fn strict_lower(x: [b n n]) -> [b n n] = tril(x, diagonal=-1)
fn upper_band(x: [n m], k: Int) -> [n m] = triu(x, k)
fn plain(x: [n n]) -> [n n] = tril(x)
fn float_diagonal(x: [n n]) -> [n n] = triu(x, diagonal=1.5)   # ~ E0408 an Int
