# A tuple of sizes as an extern parameter, `(Size[A], Size[B])`, takes
# `(16, 32)` (docs/shapescript/externs.md): torch's size formulas check.
extern fn interpolate(input: [b c d h w], size: (Size[D2], Size[H2], Size[W2])) -> [b c D2 H2 W2] = "torch.nn.functional.interpolate"
extern fn pad(input: [... h w], pad: (Size[l], Size[r], Size[t], Size[u])) -> [... h + t + u w + l + r] = "torch.nn.functional.pad"
fn up(x: [b c 8 16 16]) -> [b c 16 32 32] = interpolate(x, size=(16, 32, 32))
fn padded(x: [b 10 20]) -> [b 14 26] = pad(x, (3, 3, 2, 2))
fn named(x: [b n n]) -> [b n + 2 n + 2] = pad(x, (1, 1, 1, 1))
fn by_axis(x: [b c n n n]) -> [b c 2*n 2*n 2*n] = interpolate(x, size=(2*n, 2*n, 2*n))
fn wrong_size(x: [b 10 20]) -> [b 14 20] = pad(x, (3, 3, 2, 2)) # ~ E0401 26, not 20
fn too_few(x: [b 10 20]) -> [b 14 26] = pad(x, (3, 3, 2)) # ~ E0406 four sizes
fn runtime(x: [b 10 20], k: Int) -> [b 14 26] = pad(x, (k, 3, 2, 2)) # ~ E0406 run time
fn inside(x: [n], s: (Size[a], Size[c])) -> [n] = x # ~ E0306 extern only
