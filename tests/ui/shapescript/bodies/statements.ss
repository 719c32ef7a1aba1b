# Statements (docs/shapescript/functions.md): `let` with or without a type, tuple destructuring,
# rebinding that keeps the type, `return`, `if` on a Python Bool, `for` over
# `range(n)`. One mistake, one diagnostic: a failed expression is quiet after.
dim D = 64

fn lets(x: [b D], w: [D D]) -> [b D] {
  let y = x @ w
  let z: [b D] = y + x
  let (values, ids) = topk(z, 4, over=D)
  let k: [b 4] = values
  let picked: [b 4] Index[D] = ids
  z
}

fn early(x: [b D], flag: Bool) -> [b D] {
  if flag {
    return x * 2.0
  } else {
    let half = x / 2.0
  }
  x
}

fn repeated(x: [b D], w: [D D], n: Int) -> [b D] {
  let h = x
  for i in range(n) {
    h = h @ w
  }
  h
}

fn typed_let(x: [b D]) -> [b D] {
  let y: [b 2*D] = x                       # ~ E0401
  x
}

fn rebound(x: [b D]) -> [b D] {
  let h = x
  h = sum(x, over=D)                       # ~ E0401
  h
}

fn tensor_if(x: [b D]) -> [b D] {
  if x > 0 { return x }                    # ~ E0408
  x
}

fn cascade(x: [b D]) -> [b D] {
  let y = x @ missing                      # ~ E0301
  let z = y + y * 2.0
  z
}

fn three(x: [b D]) -> [b D] {
  let (a, c, d) = topk(x, 2, over=D)       # ~ E0408
  x
}

fn no_value(x: [b D]) -> [b D] {           # ~ E0408
  let y = x
}

# An `if` on a tensor at the end of a body is one mistake, told once, at
# the condition; a body ending with an `if` on a Bool is told at the return
# type, with the `if` it ends with.
fn tensor_if_else(x: [b D]) -> [b D] {
  if x > 0.0 {                             # ~ E0408
    x
  } else {
    x * 2.0
  }
}

fn bool_if_else(x: [b D], flag: Bool) -> [b D] {  # ~ E0408
  if flag {
    x
  } else {
    x * 2.0
  }
}

fn ends_assigning(x: [b D]) -> [b D] {     # ~ E0408
  let h = x
  h = h * 2.0
}
