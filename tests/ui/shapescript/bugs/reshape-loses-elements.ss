# Bug: a reshape that loses elements. An image [3 32 32] holds 3072 values,
# and `to [b 1024]` keeps 1024 per image (torch: "shape '[8, 1024]' is
# invalid for input of size 24576"; worse, x.view(-1, 1024) runs and turns a
# batch of 8 images into 24 rows).
# Fix: to [b 3072], or rearrange(img, [b c h w] -> [b (c h w)]).
fn flatten(img: [b 3 32 32]) -> [b 1024] = img to [b 1024]  # ~ E0401
