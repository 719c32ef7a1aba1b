# Bug: an axis given by position. torch.roll(x, 1, dims=1) counts axes, and
# the count goes stale when an axis is added in front; an Axis parameter
# takes the axis's name, and the generated code passes its position.
# Fix: dims=t.
dim D = 64

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"

fn shift_in_time(x: [b t D]) -> [b t D] = roll(x, 1, dims=1)  # ~ E0406
