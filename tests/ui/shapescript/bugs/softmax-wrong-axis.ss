# Bug: attention scores softmaxed over the wrong axis. The scores are
# [b h i j], queries i by keys j, and each query's weights must sum to one
# over the keys. The author reached for d, the last axis of q and k, but
# the einsum contracted d away: it is no axis of the scores. In PyTorch the
# same slip is softmax(dim=1) or dim=-2, which runs and silently normalizes
# over heads or queries; names make the choice visible and checkable.
# Fix: over=j.
fn attention_weights(q: [b h i d], k: [b h j d]) -> [b h i j] {
  let scores = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  softmax(scores, over=d)  # ~ E0405
}
