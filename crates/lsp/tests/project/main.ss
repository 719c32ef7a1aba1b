import vision

## Model width.
dim D = 64
dim Bad = D / 5

fn project(x: [b n vision.C], w: [vision.C D]) -> [b n D] {
  let h = x @ w
  gelu(h)
}

fn pool(img: vision.Images) -> vision.Images = img
