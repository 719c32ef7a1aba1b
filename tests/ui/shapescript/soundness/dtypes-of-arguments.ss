# An argument has its parameter's dtype, and a record field's value its
# field's: a made float tensor is no `i32`, and a field without a dtype
# takes a float one, as a parameter without one does. A size only an
# `Index[c]` domain names has no value in the body. An integer converted
# to a positive float domain is converted first, then clamped.
record Pair {
  a: [p]
  b: [p] NonNeg
}
fn ints(g: [s] i32) -> [s] i32 = g
fn made(x: [m]) -> [m] i32 = ints(zeros([m]))                              # ~ E0502
fn paired(h: [t] i32, x: [t]) -> [t] = Pair(a=h, b=relu(x)).a             # ~ E0502
fn counted(a: [b] Index[c], x: [b]) -> [b] = take(full([c], 2.0), a, over=c)  # ~ E0306
fn positive(a: [s] i32, x: [s]) -> [] = sum(a to Pos, over=s)
fn floats(h: [t] i32, x: [t]) -> [t] = Pair(a=h to Real, b=relu(x)).a
