# Sizes are polynomials in a normal form, compared after replacing each dim
# by its value (docs/shapescript/sizes.md): nothing here is wrong.
dim D = 768
dim H = 12
dim Dh = D / H

## 3*D and 3*H*Dh are both 2304, and 3*Dh*H is the same polynomial.
extern fn qkv(x: [b n D], w: [D 3*D]) -> [b n 3*H*Dh] = "model.qkv"

## n+n is 2*n.
extern fn twice(x: [n + n]) -> [2*n] = "model.twice"
