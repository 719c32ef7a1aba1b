# A `let` declared Unit, rebound to a value that may leave [0, 1].
fn f(x: [n] Unit, w: [n]) -> [n] {
  let p: [n] Unit = x
  p = p * w  # ~ E0606
  p
}
