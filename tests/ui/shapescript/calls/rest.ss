# Rest axes (docs/shapescript/externs.md): `...` is the same axes in every type of an extern
# fn's signature, and the result's `...` is the argument's, names included.
dim D = 64
dim V = 1000

fn project(x: [b n D], w: [V D]) -> [b n V] = linear(x, w)
fn tokens(ids: [b n] Index[V], table: [V D]) -> [b n D] = embedding(ids, table)
fn attend(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d] = scaled_dot_product_attention(q, k, v)
fn heads_lost(q: [b h i d], k: [b j d], v: [b j d]) -> [b h i d] = scaled_dot_product_attention(q, k, v)  # ~ E0401
fn flat(x: [D]) -> [] = linear(x, x)                                  # ~ E0401
