# `...` stands for any number of other axes: only in an extern fn, once per
# type, never inside a group (E0306).
extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn linear(input: [... Din], weight: [Dout Din]) -> [... Dout] = "torch.nn.functional.linear"

fn copy(x: [... n]) -> [n] = x                            # ~ E0306 only extern
extern fn two(x: [... n ...]) -> [n] = "m.two"            # ~ E0306 one per type
extern fn grouped(x: [(... n)]) -> [n] = "m.grouped"      # ~ E0306 not in a group
