# `take` with ids counted for another axis.
dim N = 7

fn f(x: [N 4], ids: [k] Index[5]) -> [k 4] = take(x, ids, over=N)  # ~ E0603
