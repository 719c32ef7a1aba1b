# A stack of models is indexed by an Int (docs/shapescript/models.md); the
# tensor index forms `none`, `...` and lists pick no one model.
dim D = 8
dim L = 3

model Block {
  w: [D D] = normal(std=0.02)
  fn forward(self, x: [b D]) -> [b D] = x @ self.w
}

model Net {
  blocks: [L] Block
  fn first(self, x: [b D]) -> [b D] = self.blocks[0](x)
  fn listed(self, x: [b D]) -> [b D] = self.blocks[[0, 1]](x)   # ~ E0408 not one model
  fn rest(self, x: [b D]) -> [b D] = self.blocks[...](x)        # ~ E0408 not one model
}
