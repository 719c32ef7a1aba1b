# Bug: a stride of 0. conv2d's output size divides by the stride, and a
# stride of 0 is no stride at all; torch says "non-positive stride is not
# supported".
# Fix: stride=1 (or 2 to halve the size).
fn features(img: [b 3 32 32], w: [16 3 3 3]) -> [b 16 32 32] = conv2d(img, w, stride=0, padding=1)  # ~ E0406
