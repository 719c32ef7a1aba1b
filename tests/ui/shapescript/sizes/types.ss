# A tensor type is a shape, then an optional domain, then an optional dtype
# (docs/shapescript/signatures.md); a type with no shape is elementwise.
dim D = 768
extern fn signed(x: [b n D] Signed bf16) -> [b n D] Signed bf16 = "m.signed"
extern fn real(x: Real) -> Real = "m.real"
extern fn unit(p: Unit) -> Unit f32 = "m.unit"
extern fn ids(x: [b n] Index[D] i64) -> [b n D] = "m.ids"

## gh*gw and n+1 are sizes too.
extern fn grid(x: [gh gw], y: [n]) -> [gh*gw n + 1] = "m.grid"
