# With --deny-hints, a hint fails `check` (exit 1).
# ui-args: check --deny-hints
# ui-exit: 1
dim D = 768
extern fn f(img: [b 3 16 gh 16 gw]) -> [b (gh gw) D] = "m.f" # ~ H2201 H2201
