# A call binds the callee's generic axes all at once: the callee's `b` is
# the caller's `t` and its `t` the caller's `W`, so `[t b E]` is `[W t E]`,
# never `[W W E]` (a second substitution). An `as` claims sizes and domains,
# which the program checks when it runs; it converts no dtype.
dim W = 1
dim E = 1
fn smallest(tmp: [b], val: [t]) -> [t b E] Index[W] = argmin(full([t W b E], -1.5), over=W)
fn crosswise(y: [t]) -> [W t E] Index[W] = smallest(ones([t]), full([W], 0.25))
fn collapsed(y: [t]) -> [W W E] Index[W] = smallest(ones([t]), full([W], 0.25))     # ~ E0401
fn claimed_f64() -> [2] f64 = full([2], 0.5) as [2] f64                              # ~ E0502
fn claimed_f32(x: [n] bf16) -> [n] f32 = x as [n] f32                                # ~ E0502
fn converted(x: [n] bf16) -> [n] f32 = x to f32
fn claimed_ids(x: [n] i64) -> [n] Index[4] = x as [n] Index[4]
