# Bug: heads split with the wrong factor. Each token's D = 768 values are
# cut into h = 5 heads, but 768 isn't a multiple of 5: the head width d
# would be 153.6. In PyTorch, x.view(b, n, 5, -1) fails only when it runs.
# Fix: h=H (12 heads of Dh = 64).
dim D = 768
dim H = 12
dim Dh = D / H

## Splits each token's D values into H heads of Dh.
fn split_heads(x: [b n D]) -> [b H n Dh] = rearrange(x, [b n (h d)] -> [b h n d], h=5)  # ~ E0402
