# Messages say what they know (docs/shapescript/sizes.md): a note lists only
# the sizes solved to something else than their own name, sizes that don't
# pair show their values, and a dim of another file is written as this file
# names it (`vision.D`), in notes too.
import vision
dim H = 32
dim Hkv = 8
fn enc(x: [b n vision.D]) -> [b n vision.D] = x

fn grouped(q: [b H n d], k: [b Hkv n d]) -> [b H n d] = q + k   # ~ E0401
fn widths(x: [b n 64]) -> [b n vision.D] = x                    # ~ E0401
fn call(x: [b n 64]) -> [b n vision.D] = enc(x)                 # ~ E0401
fn heads(x: [b n vision.D]) -> [b n vision.D] {
  let y = rearrange(x, [b n (h d)] -> [b h n d], h=5)          # ~ E0402
  x
}
fn scores(x: [b n vision.D], y: [b m 64]) -> [b n m] = einsum(x, y, [b n e], [b m e] -> [b n m])  # ~ E0401
# Outside bodies too: a signature's, a model field's and an alias's sizes.
fn fifths(x: [b vision.D / 5]) -> [b] = sum(x, over=1)          # ~ E0402
dim Sevenths = [b vision.D / 7]                                  # ~ E0402
model Narrow {
  w: [vision.D / 5]                                              # ~ E0402
}
