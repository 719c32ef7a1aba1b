# Products, quotients and powers of positive floats may underflow to 0
# (`0.5 ** 1000`), so they are not `Pos`; a value computed in floats may
# round to an end it only exceeds in exact arithmetic; a `let` rebound
# later holds other values than its first, so its first value's domain is
# not its type's; `take`'s ids are integers, not a mask.
dim W = 3
fn power(m0: [D] Pos, m1: Int) -> [D] Pos = m0 ** m1                        # ~ E0606
fn product(p: [n] Pos, q: [n] Pos) -> [n] = log(p * q)                      # ~ E0601
fn in_logs(p: [n] Pos, q: [n] Pos) -> [n] = log(p) + log(q)
fn picked(w: [W], y: [k] Bool) -> [k] = take(w, y, over=W)                  # ~ E0502
fn rebound(hid: Int, m0: [c t] Neg f32) -> [c t] f32 {
  let y = m0
  for w in range(hid) {
    y = -y as [c t] f32
  }
  y
}
dim D = 2
