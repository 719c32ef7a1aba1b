# Bug: a convolution's output size worked out by hand, wrongly. A 5x5
# convolution without padding shrinks 32 x 32 to (32 + 2*0 - 5) / 1 + 1 = 28,
# not 32; the return type claims the size didn't change.
# Fix: padding=2, or return [b 16 28 28].
fn features(img: [b 3 32 32], w: [16 3 5 5]) -> [b 16 32 32] = conv2d(img, w)  # ~ E0401
