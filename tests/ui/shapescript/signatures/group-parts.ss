# A generic axis the parameters give only inside a group with other unknown
# parts has no size of its own (docs/shapescript/signatures.md): used on its
# own it is E0306, once per function, and calls of the function are quiet.
fn flat(x: [(a b c)]) -> [a b c] = x to [a b c]                  # ~ E0306
fn value(x: [(a b)]) -> Int = a                                  # ~ E0306
fn reshaped(x: [(a b)]) -> [(a b)] = (x to [a b]) to [(a b)]     # ~ E0306
fn caller(z: [24]) -> [2 3 4] = flat(z)
# A size the entry can't read from an axis of its own (`a` of `[a * b]`) has
# no value in the body either; one an axis gives with an offset (`n` of
# `[n + 1]`, read as the axis less 1, checked to be at least 1) has.
fn offset(x: [n + 1]) -> Int = n
fn product(x: [a * b]) -> Int = a                                # ~ E0306
fn made(x: [n + 1]) -> [n] = zeros([n])
fn counted(x: [n + 1]) -> [n] = arange(n) to Real
fn shape_only(x: [n + 1]) -> [n] = x[1:]
