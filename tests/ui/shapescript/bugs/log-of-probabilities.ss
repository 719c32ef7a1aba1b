# Bug: the log of probabilities that may be 0. A cross-entropy against soft
# targets takes log(p), and p: Unit is anywhere in [0, 1]: a probability of
# exactly 0 gives -inf and then NaN gradients.
# Fix: log(p + 1e-6), or work with log-probabilities (log_softmax).
fn cross_entropy(p: [b c] Unit, targets: [b c] Unit) -> [b] = -sum(targets * log(p), over=c)  # ~ E0601
