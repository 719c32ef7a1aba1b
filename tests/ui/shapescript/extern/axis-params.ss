# An Axis parameter takes an axis of the first argument: the first parameter
# must have a shape, and an Axis parameter can't have a default (E0308).
dim N = 16
extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
extern fn fixed(input: [... N], dims: Axis[N]) -> [... N] = "torch.flip"

extern fn shapeless(x: Real, dims: Axis[n]) -> Real = "m.shapeless"     # ~ E0308
extern fn defaulted(x: [b n], dims: Axis[n] = 1) -> [b n] = "m.defaulted" # ~ E0308
