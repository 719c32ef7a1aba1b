# `interpolate(x, S)` upsamples by a whole factor: [b C H W] becomes
# [b C S*H S*W], so the size rule is checked like any other shape.
fn up(x: [b c 16 16]) -> [b c 32 32] = interpolate(x, 2)
fn wrong(x: [b c 16 16]) -> [b c 32 32] = interpolate(x, 3, bilinear=true)   # ~ E0401
