# An integer literal past 128 bits is E0105, once: no stand-in value (a
# size of 0) is checked after it, in a shape, a dim, a grouped size or an
# expression.
dim Big = 999999999999999999999999999999999999999999   # ~ E0105
dim Twice = 2 * Big
fn wide(x: [n]) -> [999999999999999999999999999999999999999999] = x  # ~ E0105
fn takes(x: [999999999999999999999999999999999999999999 n]) -> [n] = x[0]  # ~ E0105
fn grouped(x: [999999999999999999999999999999999999999999gh]) -> [gh] = x  # ~ E0105
fn uses(x: [Twice]) -> [Twice] = x
fn scaled(x: [n]) -> [n] = x * 999999999999999999999999999999999999999999  # ~ E0105
