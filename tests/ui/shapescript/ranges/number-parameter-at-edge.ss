# A Python `Float` or `Int` parameter is `Real` like any value without a
# domain (docs/shapescript/ranges.md): an `eps` that may be 0 or negative
# makes `rsqrt` infinite or NaN, a temperature of 0 divides by 0. The help
# narrows the number where it comes in.
dim D = 768

fn layer_norm_eps(x: [b D], eps: Float) -> [b D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D) + eps)  # ~ E0601
fn tempered(x: [b n], t: Float) -> [b n] = softmax(x / t, over=n)  # ~ E0602
fn log_count(i: Int) -> Float = log1p(i)  # ~ E0605

## A literal argument or default doesn't help: the body is checked once for every caller.
fn normed(x: [b D]) -> [b D] = layer_norm_eps(x, 1e-5)
fn rms_default(x: [b D], eps: Float = 0.00001) -> [b D] = x * rsqrt(mean(x * x, over=D) + eps)  # ~ E0601

## A model's number field is a Python number too.
model Norm {
  eps: Float
  fn forward(self, x: [b D]) -> [b D] = x * rsqrt(mean(x * x, over=D) + self.eps)  # ~ E0601
}
