# An operation whose sizes may not give what it needs is refused before it
# runs: a convolution whose output may be empty, pooling padded past half
# its window, `topk` of more values than the axis may hold, a `mean` of a
# mask's rows (which may be none), an unbiased `std` of a batch that may be
# one example, and `where` of a condition that is no mask.
fn valid_conv(x: [b c h w], k: [c c 3 3]) -> [b c h-2 w-2] = conv2d(x, k)   # ~ E0401
fn padded_conv(x: [b c h w], k: [c c 3 3]) -> [b c h w] = conv2d(x, k, padding=1)
fn roomy_conv(x: [b c h+2 w+2], k: [c c 3 3]) -> [b c h w] = conv2d(x, k)
fn over_padded(x: [b c 8 8]) -> [b c 5 5] = max_pool2d(x, 2, padding=2)    # ~ E0406
fn half_padded(x: [b c 8 8]) -> [b c 5 5] = max_pool2d(x, 2, padding=1)
fn too_many(x: [b n]) -> [b 5] = topk(x, 5, over=n)[0]                     # ~ E0415
fn enough(x: [b n+4]) -> [b 5] = topk(x, 5, over=1)[0]
fn selected(x: [n], keep: [n] Bool) -> [] = mean(x[keep])                 # ~ E0415
fn batch_spread(x: [b D]) -> [D] NonNeg = std(x, over=b)                   # ~ E0415
fn population_spread(x: [b D]) -> [D] NonNeg = std(x, over=b, correction=0)
fn unmasked(a: [n]) -> [n] = where(zeros([n]), a, a)                       # ~ E0503
