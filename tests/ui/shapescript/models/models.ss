# Models and records (docs/shapescript/models.md): tensor fields with initialisers, sub-models
# with size arguments, stacks `[L] M` looped over with `for`, methods with
# `self`, `m(x)` calling `forward`, records built by field name.
dim D = 64
dim L = 4

model Linear(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  bias: [Dout] = zeros
  fn forward(self, x: [b n Din]) -> [b n Dout] = linear(x, self.weight, self.bias)
}

model Block {
  up: Linear(D, 4*D)
  down: Linear(4*D, D)
  scale: [D] = ones
  fn forward(self, x: [b n D]) -> [b n D] = x + self.down(gelu(self.up(x))) * self.scale
  fn widen(self, x: [b n D]) -> [b n 4*D] = self.up.forward(x)
}

record Stats {
  mean: [n] Real
  std: [n] NonNeg
}

model Net {
  blocks: [L] Block
  fn forward(self, x: [b n D]) -> [b n D] {
    let h = x
    for blk in self.blocks {
      h = blk(h)
    }
    h
  }
  fn stats(self, x: [b D]) -> Stats = Stats(mean=mean(x, over=b), std=std(x, over=b, correction=0))
  fn first(self, x: [b n D]) -> [b n 4*D] = self.blocks[0].widen(x)
  fn weight(self) -> [4*D D] = self.blocks[0].up.weight
  fn wrong_field(self) -> [D] = self.blocks[0].bias                    # ~ E0409
  fn wrong_width(self, x: [b n 2*D]) -> [b n D] = self.blocks[0](x)  # ~ E0401
}

model Bad {
  w: [D D] = gaussian(0.02)                                            # ~ E0412
}

fn summary(x: [b d]) -> [d] {
  let s = Stats(mean=mean(x, over=b), std=std(x, over=b, correction=0))
  s.mean + s.std
}
fn crossed(x: [b d]) -> Stats = Stats(mean=mean(x, over=b), std=std(x, over=d, correction=0))  # ~ E0401

model Sized {
  missing: Linear(D)                                                   # ~ E0407
  loose: [m D]                                                         # ~ E0301
}
