# A model's `Float`, `Int` and `Bool` fields (docs/shapescript/models.md,
# "Number fields"): a literal default makes a keyword argument of the
# constructor with that default, none a required one; the number is a plain
# attribute, not in `state_dict()`. Like a number parameter it is `Real`
# (docs/shapescript/ranges.md, "Python numbers"): `self.eps as Pos` narrows it
# at the edge of `rsqrt`, checked when the program runs. A number
# parameter's default may claim a domain too, decided now for a literal.
# Checks clean, and builds to ruff-clean Python.
dim D = 64

model LayerNorm {
  eps: Float = 1e-5
  w: [D] = ones()
  b: [D]
  fn forward(self, x: [b D]) -> [b D] = (x - mean(x, over=D)) * rsqrt(var(x, over=D) + (self.eps as Pos)) * self.w + self.b
}

model Scaled(H) {
  heads: Int = -1
  bias: Bool = true
  temperature: Float
  norm: LayerNorm
  fn forward(self, x: [b D], eps: Float = (1e-6 as Pos)) -> [b D] = self.norm(x) / (self.temperature to Pos) + eps
}

record Stats { mean: [n], scale: Float }

fn stats(x: [n]) -> Stats = Stats(mean=x, scale=2.0)
fn rescale(x: [n], floor: Float = (0.5 to Unit)) -> [n] = x * (stats(x).scale as Pos) + floor
