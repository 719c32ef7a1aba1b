# Found by shapescript-gen (campaign 5000, program 1212): PyTorch divides once,
# so `2.5 / 1.5` is 1.6666666666666667 in f64; the checker once took it as
# `2.5 * (1 / 1.5)`, 1.6666666666666665, one spacing too low. A tensor
# divided by a number may be a product with its reciprocal on a GPU, and a
# mean rounds in its sum: those ends move out a little.
fn quotient(acc: [2 s] Unit f64) -> [2 s] Unit f64 = (acc + 1.5) / 1.5          # ~ E0606
fn by_tensor(acc: [2 s] Unit f64, d: [2 s] f64) -> [2 s] Unit f64 =
    (acc + 1.5) / (d * 0.0 + 1.5)                                                 # ~ E0606
fn mean(acc: [2 s] Unit f64) -> [2] Unit f64 = reduce(acc / 3.0 + 1.0, [2 s] -> [2], mean)  # ~ E0606
fn exact(acc: [2 s] Unit f32) -> [2 s] Unit f32 = acc / 2.0
fn exact_mean(acc: [2 s] Unit f32) -> [2] Unit f32 = reduce(acc, [2 s] -> [2], mean)
fn cube(x: [n] Unit f64) -> [n] Unit f64 = (x * 0.5 + 0.3) ** 3
fn whole_cube(x: [n] Unit f32) -> [n] NonNeg f32 = (x + 2.0) ** 3 - 8.0
