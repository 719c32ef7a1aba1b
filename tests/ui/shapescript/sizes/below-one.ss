# Every axis has at least one element: a size known to be less than 1 is E0401.
dim D = 768
extern fn shrink(x: [D - 800]) -> [D] = "m.shrink" # ~ E0401 -32
extern fn empty(x: [n], y: [2 - 2]) -> [n] = "m.empty" # ~ E0401 0
extern fn fine(x: [n - 1]) -> [n] = "m.fine"
