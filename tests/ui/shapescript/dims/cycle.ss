# A dim defined in terms of itself is E0304, with each step of the chain.
dim A = 2 * B # ~ E0304
dim B = C + 1
dim C = A
dim Twice = 2 * A # uses the broken A: no second error

dim Selfish = Selfish + 1 # ~ E0304
