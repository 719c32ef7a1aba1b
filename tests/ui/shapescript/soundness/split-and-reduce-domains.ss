# Found by shapescript-gen (campaign 12000, program 7391): a `reduce` by
# `sum` kept its argument's domain in its type, and `split` read its pieces'
# values from that type, so a sum of `Signed` values split in three was
# taken to be `Signed`. A `reduce` keeps the domain only by `max` or `min`
# (as the named `max` and `min`), and each piece of a `split` has the
# values of what was split, as computed.
fn summed(l: [l k 6 d] Signed f64) -> [k 2 d] Signed f64 = split(reduce(l, [l k 6 d] -> [k 6 d], sum), 3, over=1)[1]  # ~ E0606
fn least(l: [l k 6 d] Signed f64) -> [k 2 d] Signed f64 = split(reduce(l, [l k 6 d] -> [k 6 d], min), 3, over=1)[1]
# A piece bound by name has the values too.
fn summed_by_name(l: [l k 6 d] Signed f64) -> [k 2 d] Signed f64 {
  let (a, b, c) = split(reduce(l, [l k 6 d] -> [k 6 d], sum), 3, over=1)
  c as Signed
}
fn clamped(x: [k 6 d] Unit f64) -> [k 2 d] f64 {
  let (a, b, c) = split(clamp(x, -5.0, -2.0), 3, over=1)
  b
}
# Each piece of a `Unit` tensor is `Unit`, by its values.
fn pieces(x: [k 6 d] Unit f64) -> [k 2 d] Unit f64 {
  let (a, b, c) = split(x, 3, over=1)
  c
}
