# Shape aliases: names for lists of axes, replaced where used (docs/shapescript/aliases.md).
dim D = 768
dim Images = [b 3 16gh 16gw]
dim Pair = [Later 2]    # uses an alias declared after it
dim Later = [b n]

## The whole shape, with a domain and dtype after it.
extern fn patchify(img: Images Unit f32) -> [b (gh gw) D] = "vision.patchify"

## Among another shape's axes: [Images D] is [b 3 16gh 16gw D].
extern fn features(x: [Images D]) -> [b D] = "vision.features"

## b is f's generic axis, the same in the return type.
extern fn f(x: Images) -> [b D] = "vision.f"

## Each function has its own b.
extern fn pairs(x: Pair) -> [b n 2] = "vision.pairs"
