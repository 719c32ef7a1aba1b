# Bug: a residual MLP that forgets its second layer. The hidden activations
# are 4 * D wide and must be projected back to D before they are added to
# the block's input.
# Fix: x + linear(gelu(linear(x, w1)), w2) with w2: [D Dmlp].
dim D = 768
dim Dmlp = 4 * D

fn mlp_block(x: [b n D], w1: [Dmlp D]) -> [b n D] = x + gelu(linear(x, w1))  # ~ E0401
