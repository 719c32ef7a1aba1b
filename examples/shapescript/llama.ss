# A LLaMA-style decoder with the sizes of TinyLlama-1.1B: a vocabulary of
# 32000 tokens, D = 2048, 32 query heads sharing 4 key/value heads
# (grouped-query attention), 22 layers and a SwiGLU MLP of width 5632.
#
# Each block is pre-norm with RMSNorm; queries and keys are turned by rotary
# position embeddings (the two halves of each head's width rotated by an
# angle that grows with the position); attention is written out with
# `einsum` and a causal `softmax(over=j)`; the MLP is SwiGLU,
# down(silu(gate(x)) * up(x)). No biases, as in LLaMA.
#
# Parameter names follow Hugging Face's `LlamaForCausalLM` without its
# `model.` prefix (`embed_tokens`, `layers.0.self_attn.q_proj`,
# `layers.0.mlp.gate_proj`, `norm`, `lm_head`), so a checkpoint with those
# names loads as it is.

# ---------------------------------------------------------------- sizes

## Tokens in the vocabulary.
dim V = 32000

## Width of the model.
dim D = 2048

## Query heads.
dim H = 32

## Key/value heads: each serves H / Hkv query heads.
dim Hkv = 4

## Width of one head: 64.
dim Dh = D / H

## Half a head's width: rotary embeddings turn pairs (x[f], x[f + Half]).
dim Half = Dh / 2

## Longest sequence the rotary tables cover.
dim Ctx = 2048

## Decoder blocks.
dim L = 22

## Hidden width of each block's SwiGLU MLP.
dim Dmlp = 5632

# ------------------------------------------------------------- layers

## A fully connected layer without bias, torch's layout: weight [Dout Din].
model Linear(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  fn forward(self, x: [b n Din]) -> [b n Dout] = linear(x, self.weight)
}

## A table of N learned vectors, looked up by integer ids below N.
model Embedding(N, Dout) {
  weight: [N Dout] = normal(std=0.02)
  fn forward(self, ids: [b n] Index[N]) -> [b n Dout] = embedding(ids, self.weight)
}

## RMSNorm: each vector divided by its root mean square, then scaled.
model RmsNorm(N) {
  weight: [N] = ones
  fn forward(self, x: [b n N]) -> [b n N] = x * rsqrt(mean(x * x, over=N) + 1e-5) * self.weight
}

## The rotary angles: position p turns the pair f by p * 10000^(-2f/Dh).
fn rotary_angles() -> [Ctx Half] f32 {
  let inv_freq = exp((arange(Half) to Real) * (0.0 - 2.0 * log(10000.0) / Dh))
  einsum(arange(Ctx) to Real, inv_freq, [p], [f] -> [p f])
}

## Rotary position embedding: the pair (x1, x2) of the two halves of each
## head's width is turned by the angle whose cosine and sine the tables
## hold for each position n, each angle twice (once per half), as Hugging
## Face writes it: x * cos + rotate_half(x) * sin, rotate_half(x) being
## (-x2, x1).
fn rope(x: [b h n Dh], cos: [n Dh], sin: [n Dh]) -> [b h n Dh] {
  let halves = rearrange(x, [b h n (two f)] -> [two b h n f], two=2)
  x * cos + concat(-halves[1], halves[0], over=f) * sin
}

## Causal attention of queries i over keys j, for g query heads per
## key/value head: query i sees keys 0..=i only. The mask [i j] lines up
## with the scores [b kv g i j] by name.
fn attend(q: [b kv g i d], k: [b kv j d], v: [b kv j d]) -> [b kv g i d] {
  let scores = einsum(q, k, [b kv g i d], [b kv j d] -> [b kv g i j]) * d ** -0.5
  let visible = tril(ones([i j])) > 0.0
  let weights = softmax(where(visible, scores, -inf), over=j)
  einsum(weights, v, [b kv g i j], [b kv j d] -> [b kv g i d])
}

## Grouped-query self-attention: H query heads, Hkv key/value heads.
model Attention {
  q_proj: Linear(D, H * Dh)
  k_proj: Linear(D, Hkv * Dh)
  v_proj: Linear(D, Hkv * Dh)
  o_proj: Linear(H * Dh, D)
  fn forward(self, x: [b n D], cos: [n Dh], sin: [n Dh]) -> [b n D] {
    let q = rope(rearrange(self.q_proj(x), [b n (h d)] -> [b h n d], h=H), cos, sin)
    let k = rope(rearrange(self.k_proj(x), [b n (h d)] -> [b h n d], h=Hkv), cos, sin)
    let v = rearrange(self.v_proj(x), [b n (h d)] -> [b h n d], h=Hkv)
    # Query head h uses key/value head h / (H / Hkv): split h into (kv g).
    let grouped = rearrange(q, [b (kv g) n d] -> [b kv g n d], kv=Hkv)
    let out = attend(grouped, k, v)
    self.o_proj(rearrange(out, [b kv g n d] -> [b n (kv g d)]))
  }
}

## SwiGLU: down(silu(gate(x)) * up(x)).
model Mlp {
  gate_proj: Linear(D, Dmlp)
  up_proj: Linear(D, Dmlp)
  down_proj: Linear(Dmlp, D)
  fn forward(self, x: [b n D]) -> [b n D] =
    self.down_proj(silu(self.gate_proj(x)) * self.up_proj(x))
}

## One pre-norm decoder block.
model Block {
  input_layernorm: RmsNorm(D)
  self_attn: Attention
  post_attention_layernorm: RmsNorm(D)
  mlp: Mlp
  fn forward(self, x: [b n D], cos: [n Dh], sin: [n Dh]) -> [b n D] {
    let h = x + self.self_attn(self.input_layernorm(x), cos, sin)
    h + self.mlp(self.post_attention_layernorm(h))
  }
}

# -------------------------------------------------------------- model

## The decoder: token ids in, next-token scores (logits) out.
model Llama {
  embed_tokens: Embedding(V, D)
  layers: [L] Block
  norm: RmsNorm(D)
  lm_head: Linear(D, V)
  ## The rotary tables, computed once when the model is made (in f32;
  ## `model.to(torch.bfloat16)` rounds them once).
  buffer cos: [Ctx Half] = cos(rotary_angles())
  buffer sin: [Ctx Half] = sin(rotary_angles())

  fn forward(self, ids: [b n] Index[V]) -> [b n V] {
    let x = self.embed_tokens(ids)
    # The first n rows; `as` states that n fits the tables, and the
    # generated code checks it (a ShapeError for a sequence longer than Ctx).
    let c = self.cos[:n] as [n Half]
    let s = self.sin[:n] as [n Half]
    # Each angle twice, once per half of a head's width, as `rope` reads them.
    let cos = concat(c, c, over=Half)
    let sin = concat(s, s, over=Half)
    for blk in self.layers {
      x = blk(x, cos, sin)
    }
    self.lm_head(self.norm(x))
  }
}
