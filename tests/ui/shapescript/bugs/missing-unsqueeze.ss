# Bug: a missing unsqueeze. Each of the 8 images in a batch gets its own
# loss weight, a vector [8], but multiplying it into the per-pixel losses
# [8 3 32 32] lines the 8 up with the last axis, the width 32, as NumPy does:
# it needs to be [8 1 1 1] (weights[:, None, None, None]).
# Fix: weights: [8 1 1 1], or a named batch axis b in both types.
fn weighted(pixel_loss: [8 3 32 32], weights: [8]) -> [8 3 32 32] = pixel_loss * weights  # ~ E0401
