# A name used as a type must be a shape alias, a model or a record (E0310).
dim D = 768
fn f(x: D) -> [D] = x                      # ~ E0310 a dim is a size
fn g(x: [n], y: f) -> [n] = x              # ~ E0310 a function is a value
fn h(x: Missing) -> [D] = x                # ~ E0301
fn k(x: D Unit f32) -> [D] = x             # ~ E0310 a dim is not a shape alias
