# `log1p(-p)` reaches log(0) when p is 1.
fn f(p: [n] Unit) -> [n] = log1p(-p)  # ~ E0605
