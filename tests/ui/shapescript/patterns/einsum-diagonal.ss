# A name twice on one left side of an `einsum` pattern takes the diagonal,
# as torch does (docs/shapescript/patterns.md); the right side names each once.
fn diagonal(x: [n n]) -> [n] = einsum(x, [i i] -> [i])
fn trace(x: [n n]) -> [] = einsum(x, [i i] -> [])
fn batched(x: [b n n]) -> [b n] = einsum(x, [c i i] -> [c i])
fn unequal(x: [n m]) -> [n] = einsum(x, [i i] -> [i])             # ~ E0401 n and m
fn twice_out(x: [n n]) -> [n n] = einsum(x, [i j] -> [i i])       # ~ E0410 twice on the right
fn rearranged(x: [n n]) -> [n n] = rearrange(x, [i i] -> [i i])   # ~ E0410 only einsum
