# Parameter types introduce generic axes; a grouped size 16gh introduces gh.
dim D = 768

## gh and gw come from the grouped sizes; b from the first axis.
extern fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = "vision.patchify"

## A name only in the return type can't be worked out from the arguments.
fn widen(x: [n]) -> [m] = x # ~ E0301

## A dim's name can't be grouped by touching: it needs the group's parentheses.
fn patches(x: [b 4D]) -> [b] = x # ~ E0309
