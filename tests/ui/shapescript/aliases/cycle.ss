# An alias may use other aliases, but not itself, directly or through others (E2201).
dim Pair = [Images 2]     # ~ E2201
dim Images = [Pair 3]
dim Selfish = [b Selfish] # ~ E2201
dim Outer = [Pair 4]      # uses a broken alias: no second error

extern fn f(x: Pair) -> [n] = "m.f" # the alias is broken: no cascade
