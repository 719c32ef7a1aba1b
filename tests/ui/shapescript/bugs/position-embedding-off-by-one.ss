# Bug: a position embedding that forgets the class token. 196 patches and
# the class token make 197 tokens, but the position table has 196 rows, one
# per patch.
# Fix: pos: [1 197 D].
dim D = 768

fn add_positions(tokens: [b 197 D], pos: [1 196 D]) -> [b 197 D] = tokens + pos  # ~ E0401
