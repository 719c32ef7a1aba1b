# Mistakes with imports: a missing file (E0201), a file not imported (E0204),
# a name the file doesn't declare (E0301), an import declared twice (E0203).
import vision
import visoin                                  # ~ E0201
import vision                                  # ~ E0203
extern fn f(x: [audio.D]) -> [n] = "m.f"       # ~ E0204
extern fn g(x: [vision.Nope]) -> [b] = "m.g"   # ~ E0301
dim Uses = vision.Images                       # ~ E0303
