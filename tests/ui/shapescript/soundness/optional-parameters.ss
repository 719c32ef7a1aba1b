# A parameter whose default is `none` is Python's `None` when left out: it
# is only passed on to a parameter that may be left out too, and a size only
# it gives has no value (its axes are checked when it is given).
fn added(x: [n], b: [n] = none) -> [n] = x + b                        # ~ E0408
fn scaled(x: [n], e: [k] = none) -> [n] = x * k                       # ~ E0306
fn dense(x: [b Din], w: [Dout Din], bias: [Dout] = none) -> [b Dout] = linear(x, w, bias)
fn outer(x: [b Din], w: [Dout Din], bias: [Dout] = none) -> [b Dout] = dense(x, w, bias)
fn unused(x: [n], e: [k k] = none) -> [n] = x * 2.0
