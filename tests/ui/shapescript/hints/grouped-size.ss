# H2201: `16 gh` with a space is two axes; a grouped size `16gh` was probably
# meant when gh is an axis of its own nowhere else in the signature and part
# of a group somewhere in it (docs/shapescript/signatures.md, "Grouped sizes").
dim D = 768

extern fn f(img: [b 3 16 gh]) -> [b (gh gw) D] = "m.f" # ~ H2201 E0301 gw is in no parameter

## n is an axis of its own elsewhere: no hint.
extern fn g(x: [2 n]) -> [n] = "m.g"

## gw is written as a grouped size elsewhere: no hint.
extern fn rows(img: [b 16gh 16gw]) -> [b gh 16 gw 16] = "m.rows"
