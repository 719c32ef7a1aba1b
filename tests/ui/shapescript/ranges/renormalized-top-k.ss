# The router of a mixture of experts renormalizes its top-k probabilities
# (docs/shapescript/ranges.md): the largest value of a softmax is at least
# 1/n, so the sum of the top k, which holds it, is above 0. A sum of values
# that may all be 0 still is not.
dim E = 8
dim K = 2
dim B = 16

fn route(logits: [t E]) -> [t K] {
  let probs = softmax(logits, over=E)
  let (top, ids) = topk(probs, K, over=E)
  top / sum(top, over=K)
}

fn first(logits: [t E]) -> [t K] {
  let top = topk(softmax(logits, over=E), K, over=E)[0]
  top / max(top, over=K)
}

fn by_largest(logits: [t E]) -> [t E] {
  let p = softmax(logits, over=E)
  p / max(p, over=E)
}

fn relu_sum(x: [b n]) -> [b n] = x / sum(relu(x), over=n)  # ~ E0602

## A softmax value alone may round to 0; so may a sum over another axis.
fn by_probability(x: [b n], logits: [b n]) -> [b n] = x / softmax(logits, over=n)  # ~ E0602
fn over_batch(logits: [b n]) -> [b n] {
  let p = softmax(logits, over=n)
  p / sum(p, over=b)  # ~ E0602
}

## The top k over another axis than the softmax's need not hold its largest value.
fn other_axis(logits: [B E]) -> [K E] {
  let (top, ids) = topk(softmax(logits, over=E), K, over=B)
  top / sum(top, over=K)  # ~ E0602
}
