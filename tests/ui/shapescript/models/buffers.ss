# `buffer name: Type = expr` is non-trainable state computed once when the
# model is made, from its sizes: its value is checked against its type like
# any other value (E0401 for the wrong shape), may call fns and built-ins,
# and a buffer without a value or that is no tensor is E0412.
dim D = 8

fn table(n: Int) -> [?k] f32 = arange(n) to Real

fn angles() -> [D D] f32 = einsum(arange(D) to Real, arange(D) to Real, [p], [f] -> [p f])

model Rotary(N) {
  w: [N N] = ones
  buffer cos: [D D] = cos(angles())
  buffer mask: [N N] Bool = tril(ones([N N])) > 0.0
  buffer wrong: [N D] = zeros([D N])             # ~ E0401
  buffer missing: [N]                            # ~ E0412
  buffer count: Int = 3                          # ~ E0412
  fn forward(self, x: [b N N]) -> [b N N] = where(self.mask, x * self.w, x)
}
