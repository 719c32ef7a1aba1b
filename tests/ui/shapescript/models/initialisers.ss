# Initialisers whose numbers depend on the model's sizes (docs/shapescript/models.md,
# "Initialisers"): He (fan-in) init, PyTorch's default 1/sqrt(fan_in) bounds,
# dims, `sqrt`, `log` and `exp`. Checks clean, and builds to ruff-clean Python.
dim D = 64
dim Scale = 2

model Conv(Cin, Cout, K) {
  weight: [Cout Cin K K] = normal(std=(2.0 / (Cin * K * K)) ** 0.5)
  bias: [Cout] = uniform(lo=-1.0 / sqrt(Cin * K * K), hi=1.0 / sqrt(Cin * K * K))
}

model Embed(V) {
  table: [V D] = normal(mean=0.5, std=1 / D ** 0.5)
  gate: [D] = uniform(lo=-exp(-Scale), hi=log(Scale * 2.0))
  scale: [D] = normal(std=V ** -1)
  conv: Conv(D, D, 3)
  fn forward(self, x: [b V]) -> [b D] = x @ self.table * self.gate
}
