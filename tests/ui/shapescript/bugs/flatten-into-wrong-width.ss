# Bug: the classifier's input width assumes the convolution kept the map's
# size, but it has no padding: [b 32 16 16] becomes [b 64 14 14], which
# flattens to 12544 values, not 64 * 16 * 16 = 16384 (torch: "mat1 and mat2
# shapes cannot be multiplied (8x12544 and 16384x10)").
# Fix: padding=1 in the convolution, or w_fc: [10 12544].
fn classify(x: [b 32 16 16], w_conv: [64 32 3 3], w_fc: [10 16384]) -> [b 10] {
  let feats = conv2d(x, w_conv)
  linear(rearrange(feats, [b c h w] -> [b (c h w)]), w_fc)  # ~ E0401
}
