# Bug: a run-time value where a size known before running is needed. The
# shift of roll is a Size parameter: a number, a dim or an axis name. An Int
# argument of the function is only known when it is called.
# Fix: a dim (dim Shift = 3), or an axis name.
dim D = 64

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"

fn shift_in_time(x: [b t D], shift: Int) -> [b t D] = roll(x, shift, dims=t)  # ~ E0406
