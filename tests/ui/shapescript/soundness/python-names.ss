# Names Python would confuse are each given their own: a function named like
# a builtin and one named like its escape, a module the emitted code imports,
# a `let` named like a dim, `sum` and `sum_` side by side, model fields and
# methods named like `torch.nn.Module`'s attributes, and a `let` in an inner
# block that hides an outer one (tests/python/test_soundness.py runs each).
dim D = 4

fn list(x: [n]) -> [n] = x * 2.0
fn list_(x: [n]) -> [n] = x * 3.0
fn both(x: [n]) -> [n] = list(x) + list_(x)

fn math(x: [n]) -> [n] = x + 1.0
fn uses_math(x: [n]) -> [n] = exp(math(x))
fn local_math(x: [n]) -> [n] {
  let math = x
  log_sigmoid(math)
}

fn local_dim(x: [n D]) -> [n D] {
  let D = 3.0
  x * D
}

fn sums(x: [n]) -> [n] {
  let sum_ = x
  let sum = x * 2.0
  sum_ + sum
}

fn shadow(x: [n], c: Bool) -> [n] {
  let y = x
  if c {
    let y = x * 2.0
    y = y + 1.0
  }
  y
}

fn loop_shadow(x: [n]) -> [n] {
  let i = x
  let total = x
  for i in range(3) {
    let x = total * 2.0
    total = x
  }
  i + total
}

model Clash {
  cuda: [D D]
  training: Float = 0.5
  eval: [D] = ones
  fn forward(self, x: [b D]) -> [b D] = (x @ self.cuda + self.eval) * self.training
  fn train(self, x: [b D]) -> [b D] = x * 2.0
}
