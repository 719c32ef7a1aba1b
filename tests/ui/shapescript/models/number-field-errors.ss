# Mistakes with a model's number fields and a number parameter's default
# (docs/shapescript/models.md, "Number fields"): a default that is no literal,
# a sub-model or stack whose number field has no default (nothing could give
# it one), a default of another kind, a literal default outside the domain
# it claims or clamps to. A default sees no parameter: Python evaluates it
# where the `def` is.
dim D = 8

model Norm {
  eps: Float
  fn forward(self, x: [b D]) -> [b D] = x * (self.eps as Pos)
}

model Bad {
  scale: Float = 1.0 / D                      # ~ E0412
  count: Int = 1.5                            # ~ E0412
  flag: Bool = -true                          # ~ E0412
  norm: Norm                                  # ~ E0407
  norms: [2] Norm                             # ~ E0407
  fn forward(self, x: [b D]) -> [b D] = self.norm(x)
}

fn wrong_kind(x: [b D], n: Int = 0.5) -> [b D] = x                 # ~ E0408
fn claimed(x: [b D], eps: Float = (0.0 as Pos)) -> [b D] = x       # ~ E0606
fn clamped(x: [b D], p: Float = (2 to Unit)) -> [b D] = x          # ~ E0606
fn sees_no_parameter(x: [b D], n: Int = x) -> [b D] = x            # ~ E0301

## A field and a size parameter would both be `self.n`.
model Shadow(n) {
  n: Int = 3                                  # ~ E0203
  w: [n]
}

model SelfDefault {
  eps: Float = 1e-5
  fn forward(self, x: [b D], eps: Float = self.eps) -> [b D] = x     # ~ E0301
}
