# Bug: a block that changes the width of its input, applied in a loop. Each
# pass through the loop rebinds h, which must keep its type, [b n D]; a block
# returning [b n 2*D] can't be stacked on itself.
# Fix: make Block.forward return [b n D] (project back down).
dim D = 256
dim L = 4

model Block {
  w: [2*D D]
  fn forward(self, x: [b n D]) -> [b n 2*D] = linear(x, self.w)
}

model Stack {
  blocks: [L] Block
  fn forward(self, x: [b n D]) -> [b n D] {
    let h = x
    for blk in self.blocks {
      h = blk(h)  # ~ E0401
    }
    h
  }
}
