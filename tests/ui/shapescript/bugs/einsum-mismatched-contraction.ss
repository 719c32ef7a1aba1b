# Bug: einsum with a mismatched contraction. The queries have 64 values per
# head and the keys 32 (their projections were built with different head
# widths), so the contracted axis d has two sizes. torch.einsum reports
# "operands do not broadcast with remapped shapes" at run time.
# Fix: project keys to 64 per head.
fn scores(q: [b h n 64], k: [b h n 32]) -> [b h n n] = einsum(q, k, [b h i d], [b h j d] -> [b h i j])  # ~ E0401
