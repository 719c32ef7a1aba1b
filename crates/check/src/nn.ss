# The ShapeScript nn prelude: layers every file sees, as typed stubs of
# torch.nn.functional. A declaration of the same name in a file hides a stub.

## A fully connected layer: input @ weight^T + bias, over the last axis.
extern fn linear(input: [... Din], weight: [Dout Din], bias: [Dout] = none) -> [... Dout] =
  "torch.nn.functional.linear"

## Layer normalization over the last axis, with optional scale and shift.
## torch wants a tuple for the normalized shape, so this goes through the
## small runtime module emitted beside every built package.
extern fn layer_norm(
  input: [... D],
  weight: [D] = none,
  bias: [D] = none,
  eps: Float = 0.00001
) -> [... D] = "shapescript_runtime.layer_norm"

## Root-mean-square normalization over the last axis, with an optional scale.
extern fn rms_norm(input: [... D], weight: [D] = none, eps: Float = 0.000001) -> [... D] =
  "shapescript_runtime.rms_norm"

## Batch normalization over the channel axis C, from running statistics
## (training=false) or the batch's own (training=true).
extern fn batch_norm(
  input: [b C ...],
  running_mean: [C],
  running_var: [C],
  weight: [C] = none,
  bias: [C] = none,
  training: Bool = false,
  momentum: Float = 0.1,
  eps: Float = 0.00001
) -> [b C ...] = "torch.nn.functional.batch_norm"

## A 1-D convolution over the last axis. The output length follows torch's
## formula, rounding down: Whisper's stride-2 stem takes a length 2*t to t.
extern fn conv1d(
  input: [b Cin L],
  weight: [Cout Cin k],
  bias: [Cout] = none,
  stride: Size[S] = 1,
  padding: Size[P] = 0
) -> [b Cout (L + 2*P - k)/S + 1] = "torch.nn.functional.conv1d"

## A 2-D convolution. Output sizes follow torch's formula, rounding down.
extern fn conv2d(
  input: [b Cin H W],
  weight: [Cout Cin kh kw],
  bias: [Cout] = none,
  stride: Size[S] = 1,
  padding: Size[P] = 0
) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"

## 2-D max pooling over K x K windows; the stride defaults to the window.
extern fn max_pool2d(
  input: [b C H W],
  kernel_size: Size[K],
  stride: Size[S] = K,
  padding: Size[P] = 0
) -> [b C (H + 2*P - K)/S + 1 (W + 2*P - K)/S + 1] = "torch.nn.functional.max_pool2d"

## 2-D average pooling over K x K windows; the stride defaults to the window.
extern fn avg_pool2d(
  input: [b C H W],
  kernel_size: Size[K],
  stride: Size[S] = K,
  padding: Size[P] = 0
) -> [b C (H + 2*P - K)/S + 1 (W + 2*P - K)/S + 1] = "torch.nn.functional.avg_pool2d"

## Rows of a table by integer ids: ids of any shape give that shape plus D.
extern fn embedding(input: [...] Index[V], weight: [V D]) -> [... D] =
  "torch.nn.functional.embedding"

## Softmax attention: softmax(query @ key^T / sqrt(E) + mask) @ value.
extern fn scaled_dot_product_attention(
  query: [... L E],
  key: [... S E],
  value: [... S Ev],
  attn_mask: [... L S] = none,
  dropout_p: Float = 0.0,
  is_causal: Bool = false
) -> [... L Ev] = "torch.nn.functional.scaled_dot_product_attention"

## Zeroes each element with probability p while training, scaling the rest by 1/(1-p).
extern fn dropout(input: [...], p: Float = 0.5, training: Bool = true) -> [...] =
  "torch.nn.functional.dropout"

## Adds the rows of source into input at the rows index names (several
## may name the same row): out[index[r]] += source[r]. Sparse dispatch
## scatters each expert's rows back with it.
extern fn index_add(input: [n ...], index: [k] Index[n], source: [k ...]) -> [n ...] =
  "shapescript_runtime.index_add"

## Adds each element of source into input along the first axis at the row
## the same element of index names: out[index[r, ...], ...] += source[r, ...].
extern fn scatter_add(input: [n ...], index: [k ...] Index[n], source: [k ...]) -> [n ...] =
  "shapescript_runtime.scatter_add"

## Upsamples images by a whole factor S: each side grows S times. Nearest
## neighbour by default; bilinear = true interpolates linearly (torch's
## align_corners=False).
extern fn interpolate(
  input: [b C H W],
  scale_factor: Size[S],
  bilinear: Bool = false
) -> [b C S*H S*W] = "shapescript_runtime.interpolate"
