# Found by shapescript-gen (campaign 13000, program 11506): PyTorch's
# `gelu` is `x (1 + erf(x / sqrt 2)) / 2`, and in f32 (which bf16 computes
# in) `1 + erf` cancels to 0 below about -5.3: `gelu(-6)` is -6e-9, and
# PyTorch's f32 0. `sigmoid` and `silu` divide by `1 + exp(-x)`, which
# overflows to inf below about -88.7, so they are 0 there too.
fn gelu_tail(x: [n] Signed f32) -> [n] Neg f32 = gelu(x - 7.0)            # ~ E0606
fn silu_tail(x: [n] Signed f32) -> [n] Neg f32 = silu(x - 100.0)          # ~ E0606
fn sigmoid_tail(x: [n] Signed f32) -> [n] Pos f32 = sigmoid(x - 100.0)    # ~ E0606
fn gelu_nonpos(x: [n] Signed f32) -> [n] NonPos f32 = gelu(x - 7.0)
fn gelu_near(x: [n] Signed bf16) -> [n] NonPos bf16 = gelu(x - 4.0)
fn sigmoid_nonneg(x: [n] Signed f32) -> [n] NonNeg f32 = sigmoid(x - 100.0)
