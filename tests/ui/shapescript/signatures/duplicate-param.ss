# Each parameter needs its own name (E0307).
fn add(x: [n], x: [n]) -> [n] = x # ~ E0307
