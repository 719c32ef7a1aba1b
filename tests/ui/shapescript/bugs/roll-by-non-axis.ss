# Bug: rolling by a name that isn't an axis. The sequence axis of x is t,
# but the call names n, the sequence axis in another function of the same
# file; an Axis parameter takes only an axis of its first argument.
# Fix: dims=t.
dim D = 64

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"

fn shift_in_time(x: [b t D]) -> [b t D] = roll(x, 1, dims=n)  # ~ E0405
