# A pattern's right side names its result's axes even when their sizes
# coincide (docs/shapescript/patterns.md): the scores below have axes `i` and
# `j`, each of size `n`, so `over=j` and a mask `[i j]` find the key axis, and
# a mask typed `[n n]` pairs with both in order. A name a pattern resolves to
# a number (`k`, 32) is an axis name too, and a call whose generic axis such
# an axis binds gives it back with its name.
dim D = 64

fn attention(q: [b h n d], k: [b h n d], v: [b h n d], mask: [n n] Bool) -> [b h n d] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  let m = rearrange(mask, [i j] -> [i j])
  let w = softmax(where(m, s, -1e9), over=j)
  einsum(w, v, [b h i j], [b h j d] -> [b h i d])
}
fn added(q: [b h n d], k: [b h n d], bias: [n n]) -> [b h n n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  softmax(s + bias, over=j)
}
fn keys_only(q: [b h n d], k: [b h n d], key_bias: [n]) -> [b h n n] {
  let s = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  let kb = rearrange(key_bias, [j] -> [j])
  s + kb
}
fn halves(x: [b h n D]) -> [b h n D] {
  let y = rearrange(x, [b h n (two k)] -> [b h n two k], two=2)
  rearrange(softmax(y, over=k), [b h n two k] -> [b h n (two k)])
}
fn renamed(s: [b n n]) -> [b n] {
  let t = rearrange(s, [b i j] -> [b i j])
  sum(t, over=j)
}
fn scale(x: [b h n m]) -> [b h n m] = x * 0.5
fn through_calls(q: [b h n d], k: [b h n d]) -> [b h n n] {
  let s = scale(einsum(q, k, [b h i d], [b h j d] -> [b h i j]))
  softmax(s, over=j)
}
