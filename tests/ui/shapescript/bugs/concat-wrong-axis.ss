# Bug: concatenation over the wrong axis. Two sequences of tokens, n and m
# long, are joined over the feature axis D instead of the token axis. Every
# other axis must then match, and n tokens don't match m tokens (torch.cat:
# "Sizes of tensors must match except in dimension 2").
# Fix: over=n, which gives [b n+m D].
dim D = 512

fn join(a: [b n D], c: [b m D]) -> [b n+m D] = concat(a, c, over=D)  # ~ E0401
