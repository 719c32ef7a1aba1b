# A sparse mixture-of-experts layer with the sizes of one layer of
# Mixtral 8x7B: D = 4096, 8 SwiGLU experts of width 14336, and a router
# that sends each token to its top 2 experts.
#
# The router scores every expert for every token (a linear layer without
# bias) and keeps the two highest scores with `topk`; a softmax over those
# two gives the experts' weights. (That is the softmax over all the experts
# with the two largest probabilities rescaled to sum to 1, as Hugging Face
# writes it, without a division the checker would have to prove nonzero.) Dispatch is sparse: each expert gathers only the tokens routed to
# it with a mask, `x[hit]`, whose number of rows `?k` is known only when it
# runs, computes on those rows, and `index_add` adds its weighted output
# back into the rows the tokens came from. No expert computes on a token
# that was not routed to it.
#
# Parameter names follow Hugging Face's `MixtralSparseMoeBlock` (`gate`,
# `experts.0.w1`, `experts.0.w2`, `experts.0.w3`), so the state dict of one
# of Mixtral's MoE blocks loads as it is. 1,409,318,912 parameters.

# ---------------------------------------------------------------- sizes

## Width of the model.
dim D = 4096

## Hidden width of each expert's SwiGLU MLP.
dim F = 14336

## Experts.
dim E = 8

## Experts each token is sent to.
dim K = 2

# ------------------------------------------------------------- layers

## A fully connected layer without bias on rows of vectors, torch's layout:
## weight [Dout Din].
model Linear(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  fn forward(self, x: [t Din]) -> [t Dout] = linear(x, self.weight)
}

## One expert, a SwiGLU MLP: w2(silu(w1(x)) * w3(x)).
model Expert {
  w1: Linear(D, F)
  w2: Linear(F, D)
  w3: Linear(D, F)
  fn forward(self, x: [t D]) -> [t D] = self.w2(silu(self.w1(x)) * self.w3(x))
}

# -------------------------------------------------------------- model

## The mixture of experts: each token's output is the weighted sum of the
## outputs of the K experts its router chose.
model SparseMoe {
  gate: Linear(D, E)
  experts: [E] Expert

  fn forward(self, x: [b n D]) -> [b n D] {
    let tokens = rearrange(x, [b n D] -> [(b n) D])
    # The K experts each token scores highest, and their weights: a softmax
    # over those K scores, which is the softmax over all E renormalized
    # over the K kept.
    let (top, route) = topk(self.gate(tokens), K, over=E)
    let weights = softmax(top, over=K)
    let out = zeros([(b n) D])
    for e in range(E) {
      # The tokens routed to expert e (at most one of a token's K choices is e).
      let hit = any(route == e, over=K)
      let rows = tokens[hit]
      let weight = sum(where(route == e, weights, 0.0), over=K)
      let expert = self.experts[e]
      out = index_add(out, arange(b * n)[hit], expert(rows) * weight[hit])
    }
    rearrange(out, [(b n) D] -> [b n D], b=b)
  }
}
