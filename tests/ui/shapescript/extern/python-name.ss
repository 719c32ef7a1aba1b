# The string of an extern fn is a dotted Python name: a module and a
# function, each part a Python identifier and not a keyword (E0308).
## The complementary error function.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

extern fn lone(x: Real) -> Real = "erfc"                  # ~ E0308 no module
extern fn keyword(x: Real) -> Real = "torch.lambda"       # ~ E0308 a keyword
extern fn spaced(x: Real) -> Real = "torch.special erfc"  # ~ E0308 not an identifier
extern fn dotted(x: Real) -> Real = "torch..erfc"         # ~ E0308 empty part
extern fn digit(x: Real) -> Real = "torch.2erfc"          # ~ E0308
