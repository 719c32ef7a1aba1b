# Mistakes in an initialiser's numbers (docs/shapescript/models.md, "Initialisers"):
# an unknown name, names that are no sizes, what is not arithmetic, and values
# known when checking that make no sense.
dim D = 64
fn helper(x: [n]) -> [n] = x

model Bad(Cin) {
  unknown: [D Cin] = normal(std=(2.0 / Cn) ** 0.5)               # ~ E0301
  function: [D Cin] = normal(std=1.0 / helper)                   # ~ E0412
  builtin: [D Cin] = normal(std=1.0 / sum)                       # ~ E0412
  zero: [D Cin] = normal(std=0)                                  # ~ E0412
  negative: [D Cin] = normal(std=-0.5 / D)                       # ~ E0412
  crossed: [D] = uniform(lo=1.0 / D, hi=-1.0 / D)                # ~ E0412
  root: [D] = normal(std=sqrt(-1.0))                             # ~ E0412
  called: [D] = normal(std=max(Cin, D))                          # ~ E0412
  compared: [D] = normal(std=Cin > D)                            # ~ E0412
  sized: [D Cin] = normal(std=-0.5 / Cin)                       # ~ E0412
  bounds: [D Cin] = uniform(lo=1.0 / sqrt(Cin), hi=-1.0 / sqrt(Cin))  # ~ E0412
  twice: [D] = normal(std=0.1, std=0.2)                           # ~ E0412
}
