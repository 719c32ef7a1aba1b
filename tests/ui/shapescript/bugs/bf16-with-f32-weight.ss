# Bug: a bf16 tensor mixed with an f32 weight. The activations were cast to
# bf16 for speed but the weight stayed f32; torch.nn.functional.linear
# raises "expected m1 and m2 to have the same dtype" on the first batch.
# Fix: w: [D D] bf16, or linear(x, w to bf16).
dim D = 768

fn project(x: [b n D] bf16, w: [D D] f32) -> [b n D] bf16 = linear(x, w)  # ~ E0502
