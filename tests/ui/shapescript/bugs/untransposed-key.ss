# Bug: attention scores as q @ k, forgetting to transpose the keys. Both are
# [b h n d]; the product needs the keys as [b h d j]. With n = d (64 tokens
# of 64 values) PyTorch even runs it and computes nonsense.
# Fix: q @ rearrange(k, [b h j d] -> [b h d j]), or an einsum.
fn scores(q: [b h i d], k: [b h j d]) -> [b h i j] = q @ k  # ~ E0401
