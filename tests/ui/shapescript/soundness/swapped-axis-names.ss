# Dims equal by value are not interchangeable with their names: `[A B]`
# returned as `[B A]` would swap the axes without moving a value, and
# `over=B` would then reduce the other one; the same holds when two
# operands name the axes in another order.
dim A = 4
dim B = 4
fn relabel(x: [A B]) -> [B A] = x                          # ~ E0401
fn add(x: [A B], y: [B A]) -> [A B] = x + y                # ~ E0401
fn same(x: [A B], y: [A B]) -> [A B] = x + y
fn transposed(x: [A B]) -> [B A] = rearrange(x, [a b] -> [b a])
