# `none` passed for a parameter whose default is `none` is that argument left
# out (it builds to Python's `None`); anywhere else `none` is no value (E0408).
fn lin(x: [n D], w: [E D], b: [E] = none) -> [n E] = linear(x, w, b)
fn explicit(x: [n D], w: [E D]) -> [n E] = lin(x, w, none)
fn by_keyword(x: [n D], w: [E D]) -> [n E] = linear(x, w, bias=none)
fn required(x: [n D], w: [E D]) -> [n E] = lin(none, w)    # ~ E0408
fn returned(x: [n D]) -> [n D] = none                       # ~ E0408
fn in_arithmetic(x: [n D]) -> [n D] = x + none              # ~ E0408
