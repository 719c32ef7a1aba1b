# Dividing by a literal 0.
fn f(x: [n]) -> [n] = x / 0  # ~ E0602
