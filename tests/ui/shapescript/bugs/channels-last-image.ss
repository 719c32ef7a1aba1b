# Bug: a channels-last image fed to a channels-first convolution. The images
# come from a data loader as [b 32 32 3] (height, width, channels), and
# conv2d takes [b C H W]: it meets 32 channels where the weight has 3.
# Fix: rearrange(img, [b h w c] -> [b c h w]) first.
fn features(img: [b 32 32 3], w: [16 3 3 3]) -> [b 16 32 32] = conv2d(img, w, padding=1)  # ~ E0401
