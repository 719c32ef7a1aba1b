# A variance kept in a `let` and normalized by without an epsilon: the note
# says where the range came from.
# Fix: rsqrt(v + 1e-5).
dim D = 64

fn norm(x: [b D]) -> [b D] {
  let c = x - mean(x, over=D)
  let v = mean(c * c, over=D)
  c * rsqrt(v)  # ~ E0601
}
