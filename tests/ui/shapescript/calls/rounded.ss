# Rounded division in an extern fn's return type (docs/shapescript/signatures.md): worked out at
# each call. Numbers round down; with a generic size, the division must round
# alike for every value of it, as when the divisor divides the coefficient of
# each generic size (E0402 otherwise, whose help never suggests the sizes
# already written); a divisor of 0 is E0406; a result axis below 1 is E0401.
fn strided(img: [b 3 32 32], w: [16 3 3 3]) -> [b 16 16 16] = conv2d(img, w, stride=2, padding=1)
fn rounds_down(img: [b 3 33 33], w: [16 3 3 3]) -> [b 16 16 16] = conv2d(img, w, stride=2)
fn generic(img: [b 3 h w], k: [16 3 3 3]) -> [b 16 h w] = conv2d(img, k, stride=2, padding=1)  # ~ E0402
fn same_generic(img: [b 3 h w], k: [16 3 3 3]) -> [b 16 h w] = conv2d(img, k, padding=1)
fn zero(img: [b 3 32 32], w: [16 3 3 3]) -> [b 16 32 32] = conv2d(img, w, stride=0)   # ~ E0406
fn too_small(img: [b 3 2 2], w: [16 3 3 3]) -> [b 16 1 1] = conv2d(img, w)            # ~ E0401
fn pooled(x: [b 8 32 32]) -> [b 8 16 16] = max_pool2d(x, 2)
fn pooled_stride(x: [b 8 32 32]) -> [b 8 15 15] = avg_pool2d(x, 3, stride=2)
# Whisper's stem on a length 2t: (2t + 2 - 3)/2 + 1 = t - 1 + 1 = t for every t.
fn whisper_stem(x: [b 80 2t], w1: [384 80 3], w2: [384 384 3]) -> [b 384 t] {
  let h = conv1d(x, w1, padding=1)
  conv1d(h, w2, stride=2, padding=1)
}
fn odd_length(x: [b 80 t], w: [384 80 3]) -> [b 384 ?n] = conv1d(x, w, stride=2, padding=1)  # ~ E0402
fn triple(x: [b 80 3t], w: [384 80 3]) -> [b 384 ?n] = conv1d(x, w, stride=2)  # ~ E0402
fn exact_again(x: [b 80 3t], w: [384 80 3]) -> [b 384 t] = conv1d(x, w, stride=3)
fn by_axis(x: [b 80 2t], w: [384 80 3], s: [u]) -> [b 384 ?n] = conv1d(x, w, stride=u)  # ~ E0402
