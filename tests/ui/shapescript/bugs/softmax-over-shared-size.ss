# Bug: self-attention softmaxed "over n". Queries and keys are both [b h n d],
# so the scores have two axes of size n, and `over=n` could mean the queries
# (wrong: each key's weights would sum to one) or the keys. PyTorch code with
# dim=2 instead of dim=3 runs and silently differs from attention. The einsum
# names the axes `i` and `j` (each of size n), and `n` matches both: E0411.
# Fix: over=j.
fn self_attention(q: [b h n d], k: [b h n d], v: [b h n d]) -> [b h n d] {
  let scores = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  let weights = softmax(scores, over=n)  # ~ E0411
  einsum(weights, v, [b h i j], [b h j d] -> [b h i d])
}
