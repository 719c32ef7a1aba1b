# A Real argument for a parameter that takes only positive values.
fn safe_log(x: [n] Pos) -> [n] = log(x)
fn f(x: [n]) -> [n] = safe_log(x - 1.0)  # ~ E0606
