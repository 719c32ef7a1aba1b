# Value ranges that check clean (docs/shapescript/ranges.md): each value's
# interval comes from the domains, the constants and the operations, and
# every edge here is kept.
dim D = 768
dim V = 50257
dim K = 2

fn log_eps(x: [n] NonNeg) -> [n] = log(x + 1e-6)
fn sqrt_exp(x: [n]) -> [n] NonNeg = sqrt(exp(x))
fn logistic(x: [n]) -> [n] Unit = 1 / (1 + exp(x))
fn log_probs(x: [b n]) -> [b n] = log_softmax(x, over=n)
fn square(x: [n]) -> [n] NonNeg = x * x
fn power(x: [n]) -> [n] NonNeg = x ** 2
fn rms(x: [b D]) -> [b D] = x * rsqrt(mean(x ** 2, over=D) + 1e-6)

## A layer norm written out: the variance plus a positive eps is positive.
fn layer_norm_by_hand(x: [b n D], w: [D], bias: [D]) -> [b n D] {
  let centered = x - mean(x, over=D)
  let var = mean(centered * centered, over=D)
  centered * rsqrt(var + 1e-5) * w + bias
}

## A softmax cross-entropy written by hand, stable in log space.
fn cross_entropy(logits: [b c], targets: [b c] Unit) -> [b] {
  let shifted = logits - max(logits, over=c)
  let log_z = log(sum(exp(shifted), over=c))
  -sum(targets * (shifted - log_z), over=c)
}

## The same in log space: a softmax's values may round to 0, its log's not.
fn cross_entropy_softmax(logits: [b c], targets: [b c] Unit) -> [b] = -sum(targets * log_softmax(logits, over=c), over=c)

fn embed(ids: [b n] Index[V], table: [V D]) -> [b n D] = embedding(ids, table)
fn rows(x: [V D], ids: [k] Index[V]) -> [k D] = take(x, ids, over=V)
fn classes(ids: [b] Index[10]) -> [b 10] i64 = one_hot(ids, 10)

fn clamped(x: [n]) -> [n] = log(clamp(x, lo=1e-6))
fn squashed(x: [n]) -> [n] Unit = x to Unit
fn claimed(x: [n]) -> [n] = log(x as Pos)
fn chosen(c: [n] Bool, a: [n] Pos, b: [n] Pos) -> [n] = log(where(c, a, b))
fn larger(x: [n]) -> [n] = log(maximum(x, 1e-6))
fn std_scaled(x: [b D]) -> [b D] = x / (std(x, over=b, correction=0) + 1e-5)
fn log1p_unit(p: [n] Unit) -> [n] = log1p(p)
fn by_size(x: [n]) -> [n] = x / n
fn stubs(x: [n]) -> [n] NonNeg = softplus(x) + sigmoid(x) * exp(x)
fn declared(x: [n]) -> [n] {
  let y: [n] Pos = exp(x) + 1e-6
  log(y)
}

## A Python number parameter is `Real`: narrowed where it comes in, it is
## positive (checked, or clamped, when the program runs).
fn layer_norm_eps(x: [b D], eps: Float) -> [b D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D) + (eps as Pos))
fn tempered(x: [b n], t: Float) -> [b n] = softmax(x / (t to Pos), over=n)
fn narrowed_once(x: [b D], eps: Float) -> [b D] {
  let e = eps as Pos
  x * rsqrt(mean(x * x, over=D) + e)
}
fn log_count(i: Int) -> Float = log1p(i as NonNeg)

## A sum over a softmax's axis holds its largest value, at least 1/n: the
## top-k probabilities renormalize without an eps.
fn renormalized(logits: [t V]) -> ([t K], [t K] Index[V]) {
  let (top, ids) = topk(softmax(logits, over=V), K, over=V)
  (top / sum(top, over=K), ids)
}
