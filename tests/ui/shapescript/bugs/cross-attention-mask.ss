# Bug: a cross-attention mask built for the queries on both sides. The
# queries are i, the keys j (a different sequence), and the mask must be
# [i j]; a square [i i] mask only fits self-attention.
# Fix: mask: [b h i j].
fn cross_attend(q: [b h i d], k: [b h j d], v: [b h j d], mask: [b h i i]) -> [b h i d] {
  scaled_dot_product_attention(q, k, v, attn_mask=mask)  # ~ E0401
}
