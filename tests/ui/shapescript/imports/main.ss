# Another file's dims and aliases are written with its name (docs/shapescript/imports.md,
# "Importing other files"); dims inside its aliases are named as this file
# names them, and other names are still this signature's own.
import vision

extern fn embed(x: vision.Images) -> [b (gh gw) vision.D] = "m.embed"
extern fn unit(x: vision.Images Unit f32) -> [b vision.D] = "m.unit"
extern fn feats(x: [vision.Images vision.D]) -> [b vision.D] = "m.feats"
extern fn tokens(x: vision.Tokens) -> [b n] = "m.tokens"

## An alias may use another file's alias.
dim Pair = [vision.Images 2]
extern fn pair(x: Pair) -> [b 2] = "m.pair"
