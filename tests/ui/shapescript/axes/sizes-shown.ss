# Messages show both the name a pattern gave an axis and its size
# (docs/shapescript/patterns.md): `i` (size `n`).
fn swapped(q: [b n d], k: [b m d], v: [b n m]) -> [b n m] {
  let s = einsum(q, k, [b i d], [b j d] -> [b i j])
  s + rearrange(v, [b x y] -> [b y x])                       # ~ E0401
}
fn missing(q: [b n d], k: [b m d]) -> [b n] {
  let s = einsum(q, k, [b i d], [b j d] -> [b i j])
  sum(s, over=d)                                             # ~ E0405
}
