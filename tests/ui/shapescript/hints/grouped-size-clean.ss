# The hint alone does not fail `check` (exit 0); `--deny-hints` makes it fail.
dim D = 768
extern fn f(img: [b 3 16 gh 16 gw]) -> [b (gh gw) D] = "m.f" # ~ H2201 H2201
