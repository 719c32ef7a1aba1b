# Rounded division in an extern fn's return type (docs/shapescript/signatures.md): worked out at
# each call. Numbers round down; a generic size must divide exactly (E0402);
# a divisor of 0 is E0406; a result axis below 1 is E0401.
fn strided(img: [b 3 32 32], w: [16 3 3 3]) -> [b 16 16 16] = conv2d(img, w, stride=2, padding=1)
fn rounds_down(img: [b 3 33 33], w: [16 3 3 3]) -> [b 16 16 16] = conv2d(img, w, stride=2)
fn generic(img: [b 3 h w], k: [16 3 3 3]) -> [b 16 h w] = conv2d(img, k, stride=2, padding=1)  # ~ E0402
fn same_generic(img: [b 3 h w], k: [16 3 3 3]) -> [b 16 h w] = conv2d(img, k, padding=1)
fn zero(img: [b 3 32 32], w: [16 3 3 3]) -> [b 16 32 32] = conv2d(img, w, stride=0)   # ~ E0406
fn too_small(img: [b 3 2 2], w: [16 3 3 3]) -> [b 16 1 1] = conv2d(img, w)            # ~ E0401
fn pooled(x: [b 8 32 32]) -> [b 8 16 16] = max_pool2d(x, 2)
fn pooled_stride(x: [b 8 32 32]) -> [b 8 15 15] = avg_pool2d(x, 3, stride=2)
