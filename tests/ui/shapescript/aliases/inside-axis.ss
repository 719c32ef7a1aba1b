# An alias stands for several axes: it can't be part of one axis (E2202),
# and it isn't a size (E0303).
dim D = 4
dim Images = [b 3 16gh 16gw]

extern fn grouped(x: [(Images D)]) -> [D] = "m.grouped"        # ~ E2202
extern fn arith(x: [Images + 1]) -> [D] = "m.arith"            # ~ E2202
extern fn index(x: [n] Index[Images]) -> [n] = "m.index"       # ~ E0303
dim Bad = [b (Images 2)]                                       # ~ E2202
# Parentheses around one axis make one axis too: `(Images)` does not become
# its four axes.
extern fn parenthesised(x: [(Images)]) -> [D] = "m.parens"     # ~ E2202
dim Wrapped = [(Images) D]                                     # ~ E2202
# An alias used as a value is E0303 too: it stands for axes, not a size.
fn as_value(x: Images) -> Int = Images                         # ~ E0303
fn in_arithmetic(x: Images) -> Int = Images + 1                # ~ E0303
