# Ids bounded by the context length given to a model's embedding of V rows:
# the method's parameter says `Index[N]`, and N is V for this field.
dim V = 100
dim Ctx = 64
dim D = 16

model Embedding(N, Dout) {
  weight: [N Dout]
  fn forward(self, ids: [b n] Index[N]) -> [b n Dout] = embedding(ids, self.weight)
}

model Net {
  wte: Embedding(V, D)
  fn forward(self, ids: [b n] Index[Ctx]) -> [b n D] = self.wte(ids)  # ~ E0603
  fn right(self, ids: [b n] Index[V]) -> [b n D] = self.wte(ids)
}
