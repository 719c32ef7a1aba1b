# A parameter and a generic axis of the same name are two values: `t` in the
# body is the parameter (a scale), `[b t]`'s size is bound apart in Python,
# so the product is by the scale, not by the sequence length
# (tests/python/test_soundness.py runs it).
fn scale(x: [b t], t: Float) -> [b t] = x * t

# A `let` that hides a generic axis's name leaves the size alone.
fn shifted(x: [n]) -> [n] {
  let n = 2.0
  x + zeros([n]) * n
}
