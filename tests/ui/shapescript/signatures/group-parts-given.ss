# Checks clean and builds: a group used whole, or its parts given by another
# parameter, before or after it (the part is read once every parameter is).
fn whole(x: [(a b)]) -> [(a b)] = x * 2.0
fn given_after(x: [(a b)], y: [b]) -> [a b] = x to [a b]
fn given_before(y: [b], x: [(a b)]) -> Int = a
fn after_value(x: [(a b)], y: [b]) -> Int = a
