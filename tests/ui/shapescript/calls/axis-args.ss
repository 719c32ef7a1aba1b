# Axis, Axes and Size arguments (docs/shapescript/externs.md). `roll(x, 2, dims=t)` names an
# axis of the first argument and Python gets its position; with `dim N = 16`,
# `Axis[N]` takes only an axis of size 16; a name that isn't an axis of the
# first argument is E0405, an argument that isn't a name is E0406, and a
# `Size` argument is a number, a dim or an axis name, never a run-time Int.
dim N = 16
dim Shift = 3
extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
extern fn pick(input: [...], dims: Axis[N]) -> [...] = "m.pick"

fn shifted(x: [b t N]) -> [b t N] = flip(roll(x, 2, dims=t), dims=b)
fn by_dim(x: [b t N]) -> [b t N] = roll(roll(x, Shift, dims=t), t, dims=N)
fn by_position(x: [b t N]) -> [b t N] = pick(roll(x, 2, dims=N), 2)  # ~ E0406 not a name
fn sixteen(x: [b t N]) -> [b t N] = pick(x, dims=N)
fn not_sixteen(x: [b t N]) -> [b t N] = pick(x, dims=t)              # ~ E0401 an axis of size 16
fn not_an_axis(x: [b t N]) -> [b t N] = roll(x, 1, dims=n)           # ~ E0405
fn runtime(x: [b t N], k: Int) -> [b t N] = roll(x, k, dims=t)       # ~ E0406
