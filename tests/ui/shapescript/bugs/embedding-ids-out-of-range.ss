# Bug: ids beyond the embedding table. The tokenizer's ids go up to 50256,
# but the table has 50000 rows; torch fails with "index out of range in self"
# on the first rare token, maybe hours into training.
# Fix: a table of 50257 rows, or a tokenizer with 50000 tokens.
dim D = 768

fn embed(ids: [b n] Index[50257], table: [50000 D]) -> [b n D] = embedding(ids, table)  # ~ E0603
