# A `let` that declares Pos, given a value that may be 0.
fn f(x: [n]) -> [n] {
  let y: [n] Pos = x * x  # ~ E0606
  log(y)
}
