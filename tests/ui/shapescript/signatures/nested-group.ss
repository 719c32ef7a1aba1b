# Groups nest one level in types (E0311); a grouped size inside a group is fine.
extern fn f(x: [((a b) c)]) -> [c] = "m.f"   # ~ E0311
extern fn g(x: [(16gh w)]) -> [gh w] = "m.g"
