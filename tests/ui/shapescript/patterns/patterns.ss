# Patterns (docs/shapescript/patterns.md) with einops' rules, every size checked through the
# solver: `16gh` is the layout (gh 16), `(16 gh)` the other one; keyword
# sizes for what the left side can't determine; `...` for the other axes.
dim D = 768
dim H = 12
dim Dh = D / H

fn patches(img: [b 3 224 224]) -> [b 196 768] = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
fn grouped(img: [b 3 224 224]) -> [b 196 768] = rearrange(img, [b c 16gh 16gw] -> [b (gh gw) (c 16 16)])
fn other_layout(img: [b 3 224 224]) -> [b 196 768] = rearrange(img, [b c (16 gh) (16 gw)] -> [b (gh gw) (c 16 16)])
fn split(x: [b n D]) -> [b H n Dh] = rearrange(x, [b n (h d)] -> [b h n d], h=H)
fn by_dims(x: [b n 3*D]) -> [3 b H n Dh] = rearrange(x, [b n (3 H Dh)] -> [3 b H n Dh])
fn rest(x: [b n D]) -> [b D n] = rearrange(x, [... n d] -> [... d n])
fn pooled(x: [b 32 32 c]) -> [b 16 16 c] = reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)
fn tiled(x: [b n]) -> [b n 4] = repeat(x, [b n] -> [b n r], r=4)
fn scores(q: [b h i d], k: [b h j d]) -> [b h i j] = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
fn runtime(x: [b (h d)], heads: Int) -> [b ?h ?d] = rearrange(x, [b (h d)] -> [b h d], h=heads)

fn wrong_factor(x: [b n D]) -> [b 5 n Dh] = rearrange(x, [b n (h d)] -> [b h n d], h=5)   # ~ E0402
fn lost_axis(x: [b n D]) -> [b D] = rearrange(x, [b n d] -> [b d])                        # ~ E0410
fn new_axis(x: [b n]) -> [b n 1] = rearrange(x, [b n] -> [b n r])                          # ~ E0410
fn unsolvable(x: [b D]) -> [b 2 384] = rearrange(x, [b (h d)] -> [b h d])                    # ~ E0401
fn too_few(x: [b n D]) -> [b n D] = rearrange(x, [b d] -> [b d])                           # ~ E0401
fn twice(x: [b n D]) -> [b n D] = rearrange(x, [b n n] -> [b n n])                         # ~ E0410
fn contraction(q: [b 64], k: [b 32]) -> [b] = einsum(q, k, [b d], [b d] -> [b])            # ~ E0401
fn no_reduction(x: [b n]) -> [b] = reduce(x, [b n] -> [b], median)                         # ~ E0406
