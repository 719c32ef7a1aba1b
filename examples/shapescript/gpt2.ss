# GPT-2 small: the language model of Radford et al., "Language Models are
# Unsupervised Multitask Learners" (2019), with the 124M-parameter sizes:
# a vocabulary of 50257 tokens, a context of 1024, D = 768, 12 heads and
# 12 layers. 124,439,808 parameters.
#
# Token ids become vectors through an embedding table, a learned position
# embedding is added, 12 pre-norm blocks of causal self-attention and MLP
# follow, and a final layer norm. The output layer is TIED to the token
# embedding, as in the published model: the scores of the next token are the
# final states times the embedding table, so there is no separate head
# weight (and the parameter count above has none).
#
# Parameter names follow Hugging Face's `GPT2LMHeadModel` without its
# `transformer.` prefix (`wte`, `wpe`, `h.0.ln_1`, `h.0.attn.c_attn`,
# `ln_f`...). One difference: Hugging Face stores its projections as
# `Conv1D` weights of shape [in out]; here they are [out in], like
# nn.Linear, so a checkpoint's projection weights are transposed on load.
# There is no dropout (the published rate, 0.1, only matters in training).

# ---------------------------------------------------------------- sizes

## Tokens in the vocabulary: 50,000 merges, 256 bytes and <|endoftext|>.
dim V = 50257

## Longest sequence the position embedding covers.
dim Ctx = 1024

## Width of the model.
dim D = 768

## Attention heads per block.
dim H = 12

## Width of one head: 64. D must be a multiple of H (E0305 otherwise).
dim Dh = D / H

## Transformer blocks.
dim L = 12

## Hidden width of each block's MLP: four times the model's width.
dim Dmlp = 4 * D

# ------------------------------------------------------------- layers

## A fully connected layer over the last axis of a batch of token vectors,
## with torch's layout: weight [Dout Din], like nn.Linear.
model Linear(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  bias: [Dout] = zeros
  fn forward(self, x: [b n Din]) -> [b n Dout] = linear(x, self.weight, self.bias)
}

## Layer normalization over the last axis with a learned scale and shift.
model LayerNorm(N) {
  weight: [N] = ones
  bias: [N] = zeros
  fn forward(self, x: [b n N]) -> [b n N] = layer_norm(x, self.weight, self.bias, eps=1e-5)
}

## A table of N learned vectors, looked up by integer ids below N. Ids
## bounded by another size than N are a type error (E0603, `Index[N]`);
## ids claimed `as ... Index[N]` are checked when the program runs.
model Embedding(N, Dout) {
  weight: [N Dout] = normal(std=0.02)
  fn forward(self, ids: [b n] Index[N]) -> [b n Dout] = embedding(ids, self.weight)
}

## GELU with the tanh approximation that GPT-2 was trained with (the
## prelude's `gelu` is the exact one):
##
##   0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
##
## PyTorch computes it in one kernel, `gelu(x, approximate="tanh")`, which the
## runtime module of a built package names. Shapeless: any shape in, the
## same shape out.
extern fn gelu_tanh(x: Real) -> Real = "shapescript_runtime.gelu_tanh"

## Causal softmax attention of queries i over keys j: query i sees keys
## 0..=i only. Written out, with the mask [i j] lined up with the scores
## [b h i j] by name:
##
##   scores  = einsum(q, k, [b h i d], [b h j d] -> [b h i j]) * d ** -0.5
##   visible = tril(ones([i j])) > 0
##   weights = softmax(where(visible, scores, -1e9), over=j)
##   einsum(weights, v, [b h i j], [b h j d] -> [b h i d])
##
## computed here by PyTorch's fused kernel with `is_causal`, as nanoGPT
## does, so the generated module runs as fast as the hand-written one.
fn causal_attend(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d] =
  scaled_dot_product_attention(q, k, v, is_causal=true)

## Multi-head causal self-attention: `c_attn` makes queries, keys and values
## for all heads at once, `c_proj` mixes the heads' outputs.
model CausalSelfAttention {
  c_attn: Linear(D, 3 * D)
  c_proj: Linear(D, D)
  fn forward(self, x: [b n D]) -> [b n D] {
    # Each token's 3 * D values are query, key and value, each H heads of Dh.
    let heads = rearrange(self.c_attn(x), [b n (3 H Dh)] -> [3 b H n Dh])
    let out = causal_attend(heads[0], heads[1], heads[2])
    self.c_proj(rearrange(out, [b h n d] -> [b n (h d)]))
  }
}

## The MLP in each block: widen to 4 * D, GELU, narrow back.
model Mlp {
  c_fc: Linear(D, Dmlp)
  c_proj: Linear(Dmlp, D)
  fn forward(self, x: [b n D]) -> [b n D] = self.c_proj(gelu_tanh(self.c_fc(x)))
}

## One pre-norm transformer block.
model Block {
  ln_1: LayerNorm(D)
  attn: CausalSelfAttention
  ln_2: LayerNorm(D)
  mlp: Mlp
  fn forward(self, x: [b n D]) -> [b n D] {
    let y = x + self.attn(self.ln_1(x))
    y + self.mlp(self.ln_2(y))
  }
}

# -------------------------------------------------------------- model

## GPT-2 small: token ids in, next-token scores (logits) out, for every
## position at once.
model Gpt2 {
  ## Token embedding, also the output layer (tied weights).
  wte: Embedding(V, D)
  ## Position embedding: one learned vector per position below Ctx.
  wpe: Embedding(Ctx, D)
  h: [L] Block
  ln_f: LayerNorm(D)

  fn forward(self, ids: [b n] Index[V]) -> [b n V] {
    # Positions 0..n-1. That n fits the context can't be known before the
    # ids arrive, so `as` states it and the generated code checks it, with
    # a ShapeError naming this line for a sequence longer than Ctx.
    let positions = arange(n) as [n] Index[Ctx]
    # [b n D] + [n D]: the positions' vectors broadcast over the batch.
    let x = self.wte(ids) + embedding(positions, self.wpe.weight)
    for blk in self.h {
      x = blk(x)
    }
    # Tied output layer: linear(x, wte) is x @ wte^T, [b n D] -> [b n V].
    linear(self.ln_f(x), self.wte.weight)
  }

  ## The training loss: the mean cross-entropy of predicting `targets` (the
  ## ids shifted by one) at every position. log_softmax keeps the V axis and
  ## one_hot makes a [b n V] of the targets, so the sum over V picks each
  ## position's target log-probability; the mean over (b n) leaves a scalar.
  fn loss(self, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] {
    let log_probs = log_softmax(self.forward(ids), over=V)
    -mean(sum(one_hot(targets, V) * log_probs, over=V), over=(b n))
  }
}
