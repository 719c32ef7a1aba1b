# Bug: a patch size that doesn't divide the image. The images are 224 high
# but 225 wide, off by one from a crop; 16gw against 225 gives gw = 14.06,
# not a whole number of patches. PyTorch's unfold or conv would quietly drop
# the last pixel column.
# Fix: crop to 224 x 224.
dim D = 768

fn patchify(img: [b 3 16gh 16gw], w: [D 768]) -> [b (gh gw) D] {
  let patches = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
  patches @ rearrange(w, [d k] -> [k d])
}

fn embed(img: [b 3 224 225], w: [D 768]) -> [b 196 D] = patchify(img, w)  # ~ E0402
