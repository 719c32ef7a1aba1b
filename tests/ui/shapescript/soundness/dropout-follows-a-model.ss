# `dropout` follows the mode of the model whose method calls it
# (`self.training`); a plain `fn` has none, so it takes the mode as an
# argument instead of dropping values in `model.eval()` too.
fn dropped(x: [b n]) -> [b n] = dropout(x, 0.5)                          # ~ E0407
fn dropped_when(x: [b n], training: Bool) -> [b n] = dropout(x, 0.5, training=training)
model Block {
  w: [4 4]
  fn forward(self, x: [b 4]) -> [b 4] = dropped_when(x @ self.w, self.training) + dropout(x)
}
