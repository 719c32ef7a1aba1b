# Bug: a bf16 tensor and an f32 tensor passed together to a function whose
# parameters name no dtype. Such parameters take any float dtype, but the
# same one for all of them in a call, so a bf16 model stays bf16.
# Fix: make the bias bf16 where it is created, or pass bias to bf16.
dim D = 768

fn add_bias(x: [b D], bias: [D]) -> [b D] = x + bias

fn layer(x: [b D] bf16, bias: [D] f32) -> [b D] bf16 = add_bias(x, bias)  # ~ E0502
