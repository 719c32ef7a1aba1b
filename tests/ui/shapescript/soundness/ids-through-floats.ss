# Ids converted to a float dtype kept their `Index` domain, though bf16
# holds whole numbers exactly only up to 2^8 and f16 up to 2^11: id 4095
# is 4096 in bf16, and indexed past an axis of 4096 in PyTorch. A float
# conversion keeps `Index[n]` only where the dtype holds every id below n.
fn unknown(x: [n d], ids: [k] Index[n] i64) -> [k d] = take(x, (ids to f16) to i64, over=n)  # ~ E0603
dim V = 4096
fn rounded(x: [V d], ids: [k] Index[V] i64) -> [k d] = take(x, (ids to bf16) to i64, over=V)  # ~ E0603
dim W = 2048
fn exact(x: [W d], ids: [k] Index[W] i64) -> [k d] = take(x, (ids to f16) to i64, over=W)
fn exact_f32(x: [V d], ids: [k] Index[V] i64) -> [k d] = take(x, (ids to f32) to i32, over=V)
