# An extern fn stands for a Python function, so it needs its dotted name (E0308).
extern fn erfc(x: Real) -> NonNeg # ~ E0308
