# ViT-B/16: the Vision Transformer of Dosovitskiy et al., "An Image is Worth
# 16x16 Words" (2020), base size with 16x16 patches, for 224x224 RGB images
# and the 1000 ImageNet classes: 86,567,656 parameters.
#
# The image is cut into 14 x 14 patches of 16 x 16 pixels by a pattern, each
# patch is projected to D = 768 values, a learned class token goes in front,
# a learned position embedding is added, and 12 pre-norm transformer blocks
# follow. The class token's final state, normalized, gives the class scores.
#
# Every size here is checked before the model runs: a patch size that doesn't
# divide the image, heads that don't divide D, or a weight with its axes the
# wrong way round are errors with a code, not a crash in the first batch.
#
# Parameter names follow timm's `vit_base_patch16_224` (`blocks.0.attn.qkv`,
# `norm`, `head`...), so a checkpoint maps over by name. Two differences:
# the patch embedding is a linear layer over flattened patches, whose weight
# is timm's convolution weight reshaped from [768 3 16 16] to [768 768]; and
# there is no dropout (timm's default rates are 0).

# ---------------------------------------------------------------- sizes

## Height and width of the input images, in pixels.
dim Image = 224

## Side of one square patch, in pixels.
dim Patch = 16

## Patches along each side of the image: 14. The division must be exact, so a
## patch size that doesn't divide the image is E0305 here, not a silent crop.
dim Grid = Image / Patch

## Patches per image: 196.
dim Patches = Grid * Grid

## Tokens per image: the patches and the class token.
dim Tokens = Patches + 1

## Values in one flattened patch: 3 colour channels of 16 x 16 pixels.
dim PatchValues = 3 * Patch * Patch

## Width of the model: every token is a vector of D values.
dim D = 768

## Attention heads per block.
dim H = 12

## Width of one head: 64. D must be a multiple of H (E0305 otherwise).
dim Dh = D / H

## Hidden width of each block's MLP.
dim Dmlp = 3072

## Transformer blocks.
dim L = 12

## ImageNet classes.
dim Classes = 1000

## A batch of images, the model's input.
dim Images = [b 3 Image Image]

# ------------------------------------------------------------- layers

## A fully connected layer over the last axis of a batch of token vectors,
## with torch's layout: weight [Dout Din], like nn.Linear.
model Linear(Din, Dout) {
  weight: [Dout Din] = normal(std=0.02)
  bias: [Dout] = zeros
  fn forward(self, x: [b n Din]) -> [b n Dout] = linear(x, self.weight, self.bias)
}

## Layer normalization over the last axis with a learned scale and shift.
## ViT uses eps = 1e-6.
model LayerNorm(N) {
  weight: [N] = ones
  bias: [N] = zeros
  fn forward(self, x: [b n N]) -> [b n N] = layer_norm(x, self.weight, self.bias, eps=1e-6)
}

## Softmax attention of queries i over keys j, for each batch row and head:
##
##   scores  = einsum(q, k, [b h i d], [b h j d] -> [b h i j]) * d ** -0.5
##   weights = softmax(scores, over=j)
##   einsum(weights, v, [b h i j], [b h j d] -> [b h i d])
##
## computed by PyTorch's fused kernel, as timm does, so the generated module
## runs as fast as the hand-written one. The signature still says which axes
## meet: queries i and keys j may differ in number, heads and width may not.
fn attend(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d] =
  scaled_dot_product_attention(q, k, v)

## Multi-head self-attention: one projection makes queries, keys and values
## for all heads at once, the heads attend independently, then their outputs
## are joined and projected back to D.
model Attention {
  qkv: Linear(D, 3 * D)
  proj: Linear(D, D)
  fn forward(self, x: [b n D]) -> [b n D] {
    # 3 * D values per token are (query, key, value) x H heads x Dh, in that
    # order, which is the order timm's checkpoint uses.
    let heads = rearrange(self.qkv(x), [b n (3 H Dh)] -> [3 b H n Dh])
    let out = attend(heads[0], heads[1], heads[2])
    self.proj(rearrange(out, [b h n d] -> [b n (h d)]))
  }
}

## The MLP in each block: widen, GELU, narrow.
model Mlp(Din, Dhidden) {
  fc1: Linear(Din, Dhidden)
  fc2: Linear(Dhidden, Din)
  fn forward(self, x: [b n Din]) -> [b n Din] = self.fc2(gelu(self.fc1(x)))
}

## One pre-norm transformer block: attention and MLP, each on a normalized
## copy of the tokens and added back to them.
model Block {
  norm1: LayerNorm(D)
  attn: Attention
  norm2: LayerNorm(D)
  mlp: Mlp(D, Dmlp)
  fn forward(self, x: [b n D]) -> [b n D] {
    let y = x + self.attn(self.norm1(x))
    y + self.mlp(self.norm2(y))
  }
}

## Puts c tokens (the class token) in front of n tokens (the patches).
fn prepend(first: [b c D], rest: [b n D]) -> [b c+n D] = concat(first, rest, over=c)

# -------------------------------------------------------------- model

## ViT-B/16: images in, one score per class out.
model VisionTransformer {
  ## Projects each flattened patch to a token.
  patch_embed: Linear(PatchValues, D)
  ## The learned class token, shared by every image.
  cls_token: [1 1 D] = normal(std=0.02)
  ## One learned vector per position: the class token's, then each patch's.
  pos_embed: [1 Tokens D] = normal(std=0.02)
  blocks: [L] Block
  norm: LayerNorm(D)
  head: Linear(D, Classes)

  fn forward(self, img: Images) -> [b Classes] {
    # Cut each image into 16 x 16 patches, row by row, each flattened as
    # (channel, row, column), the order of a 16 x 16 stride-16 convolution's
    # weight. Against 224, (gh 16) solves gh = 14. (The 16s are Patch; if
    # Patch changed and they didn't, patch_embed's PatchValues would no
    # longer fit the (c 16 16) values per patch, and check would say so.)
    let patches = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
    let cls = repeat(self.cls_token, [1 t d] -> [b t d], b=b)
    let x = prepend(cls, self.patch_embed(patches)) + self.pos_embed
    for blk in self.blocks {
      x = blk(x)
    }
    # Only the class token's state is classified. The head is a rank-2
    # linear layer here, so this calls the prelude's `linear` directly.
    let summary = self.norm(x)[:, 0]
    linear(summary, self.head.weight, self.head.bias)
  }
}
