# The call solver (docs/shapescript/functions.md): `16gh` against 224 gives gh = 14 and against 225
# is E0402; `v + c` gives v = s - c, at least 1; a product of two unknowns
# waits for other axes, and is E0401 naming them when nothing gives them (a
# fn whose parameters give only the product is E0306 itself).
dim D = 768

fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) 768] = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
fn patches(img: [b 3 224 224]) -> [b 196 D] = patchify(img)
fn crooked(img: [b 3 224 225]) -> [b 196 D] = patchify(img)        # ~ E0402

fn drop_first(x: [n + 1]) -> [n] = x[1:]
fn shorter(x: [197]) -> [196] = drop_first(x)
fn too_short(x: [1]) -> [1] = drop_first(x)                        # ~ E0401

fn heads(x: [b (h d)], w: [h]) -> [b h d] = x to [b h d]
fn twelve(x: [b 768], w: [12]) -> [b 12 64] = heads(x, w)
# `h` and `d` are known only as their product: the signature is the mistake
# (E0306), and its callers are quiet.
fn unknown_pair(x: [b (h d)]) -> [b h d] = x to [b h d]            # ~ E0306
fn unsolved(x: [b 768]) -> [b 768] = unknown_pair(x) to [b 768]
