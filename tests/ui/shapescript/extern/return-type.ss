# An extern fn has no body, so it needs a return type (E0308).
extern fn erfc(x: Real) = "torch.special.erfc" # ~ E0308
