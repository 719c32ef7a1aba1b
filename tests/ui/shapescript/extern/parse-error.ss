# A parse error is reported once: the checker doesn't also say what it left missing.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
extern fn broken(x: [n) -> [n] = "m.broken" # ~ E0103
