# `topk` with a `k` known before running gives that size; a run-time `k`
# gives an unknown size, which equals only itself.
dim V = 1000

fn best(scores: [b V]) -> ([b 5], [b 5] Index[V]) = topk(scores, 5, over=V)
fn some(scores: [b V], k: Int) -> [b ?k] = topk(scores, k, over=V)[0]
fn mixed(scores: [b V], k: Int, bias: [b 5]) -> [b 5] {
  let (values, ids) = topk(scores, k, over=V)
  values + bias                                                      # ~ E0401
}
