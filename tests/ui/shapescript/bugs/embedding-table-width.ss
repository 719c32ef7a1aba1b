# Bug: an embedding table of the wrong size. The token table was made
# [V 512], the width of a smaller model, so the token vectors don't fit the
# 768-wide position vectors they are added to.
# Fix: table: [V D].
dim V = 50257
dim D = 768

fn embed(ids: [b n] Index[V], table: [V 512], pos: [n D]) -> [b n D] = embedding(ids, table) + pos  # ~ E0401
