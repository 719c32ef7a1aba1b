# A name in a dim's value that isn't a dim is E0301 (not found) or E0303 (not a size).
dim A = Missing * 2     # ~ E0301
dim Images = [b 3 16gh 16gw]
dim N = Images          # ~ E0303 an alias is not a size
dim F = erfc2 + 1       # ~ E0303 a function is not a size
dim K = ?k              # ~ E0303 an unknown size is not a dim

extern fn erfc2(x: Real) -> NonNeg = "torch.special.erfc"
