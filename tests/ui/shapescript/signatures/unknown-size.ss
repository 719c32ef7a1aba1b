# `?k` is an unknown size: allowed in a return type, not in a parameter's (E0306).
extern fn nonzero(x: [n]) -> [?k] Index[n] = "torch.nonzero"

## The same ?k in one type is one size.
extern fn pairs(x: [n]) -> [?k ?k] = "m.pairs"

fn first(x: [?k D]) -> [D] = x # ~ E0306 the caller chooses parameters' sizes
dim D = 4
