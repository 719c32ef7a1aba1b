# A return type with `...` needs a parameter with one (E0308).
extern fn grow(x: [n]) -> [... n] = "m.grow" # ~ E0308
