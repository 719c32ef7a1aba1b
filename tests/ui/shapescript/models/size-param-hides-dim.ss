# A model's size parameter with the name of a dim: the model's types would
# read the dim, never the parameter its users give a value. One diagnostic,
# at the parameter; calls to its methods say nothing more.
dim D = 64

model Proj(D) {                           # ~ E0203
  w: [D D]
  fn forward(self, x: [b D]) -> [b D] = x @ self.w
}

model Net {
  p: Proj(32)
  fn forward(self, x: [b 32]) -> [b 32] = self.p(x)
}

# A function's name is no size, so a size parameter may take one.
fn width(x: [n]) -> [n] = x

model Sized(width) {
  w: [width]
  fn forward(self, x: [width]) -> [width] = x * self.w
}

fn use_sized(m: Sized(8), x: [8]) -> [8] = m(x)
