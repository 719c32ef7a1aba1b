# A sparse mixture-of-experts layer with the sizes of one layer of
# Mixtral 8x7B: D = 4096, 8 SwiGLU experts of width 14336, and a router
# that sends each token to its top 2 experts.
#
# The router scores every expert for every token (a linear layer without
# bias), turns the scores into probabilities with a softmax over the
# experts, keeps the two highest with `topk` and rescales them to sum to 1,
# as Hugging Face writes it. The division needs no eps: the sum holds the
# largest probability, at least 1/8, and the checker knows it
# (docs/shapescript/ranges.md).
#
# Dispatch is sparse: a mask picks the ids of the tokens routed to each
# expert, `arange(b * n)[hit]` (PyTorch's `hit.nonzero()`), whose number
# `?k` is known only when it runs; the expert computes on those rows only,
# `tokens[ids]` of `[?k D]`, and `index_add` adds its output, weighted by
# the tokens' gates for the expert, back into the rows the tokens came
# from. The expert mask of Hugging Face's Mixtral, `one_hot(route, E)`,
# gives once for all experts which tokens each one gets and the tokens'
# gates, each token's weight for every expert. (`tokens[hit]` checks as
# well, with the same `?k`, but each mask index searches the mask again:
# picking the ids once searches it once.)
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
    # The K experts each token scores highest, and their weights: the
    # router's probabilities over all E, the K kept renormalized.
    let probs = softmax(self.gate(tokens), over=E)
    let (top, route) = topk(probs, K, over=E)
    let weights = top / sum(top, over=K)
    # Which expert each of a token's K choices names: `one_hot(route, E)`
    # is 1 where slot K chose expert E. From it, once for all experts, each
    # token's gate for every expert (its weight where it chose the expert,
    # 0 elsewhere) and whether it chose the expert at all.
    let choice = one_hot(route, E)
    let gates = sum(choice * weights, over=K)
    let routed = any(choice == 1, over=K)
    let out = zeros([(b n) D])
    for e in range(E) {
      # The ids of the tokens routed to expert e, picked by its mask.
      let ids = arange(b * n)[routed[:, e]]
      # Only the expert's rows: `tokens[ids]` is `[?k D]`, weighted by
      # their gates for e.
      let expert = self.experts[e]
      out = index_add(out, ids, expert(tokens[ids]) * gates[ids, e])
    }
    rearrange(out, [(b n) D] -> [b n D], b=b)
  }
}
