# Bug: a kernel larger than its input. After three poolings the feature map
# is 4 x 4, and a 7x7 convolution without padding would produce
# (4 - 7) / 1 + 1 = -2 pixels per side; torch: "Kernel size can't be greater
# than actual input size".
# Fix: a 3x3 kernel, or padding=3.
fn head(x: [b 64 4 4], w: [128 64 7 7]) -> [b 128 1 1] = conv2d(x, w)  # ~ E0401
