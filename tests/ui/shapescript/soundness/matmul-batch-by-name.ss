# `@` pairs the batch axes by name, as broadcasting does: `[h b n d] @
# [h d e]` pairs `h` with `h`, which PyTorch's right alignment would pair
# with `b` (tests/python/test_soundness.py compares with `einsum`).
fn heads_first(a: [h b n d], w: [h d e]) -> [h b n e] = a @ w
fn batch_first(a: [b n d], w: [b h d e]) -> [b h n e] = a @ w
fn shared(a: [n d], w: [h d e]) -> [h n e] = a @ w
fn vector(a: [d], w: [h d e]) -> [h e] = a @ w
