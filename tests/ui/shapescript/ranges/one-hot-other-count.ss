# `one_hot` with fewer classes than the ids count.
fn f(ids: [b] Index[12]) -> [b 10] i64 = one_hot(ids, 10)  # ~ E0603
