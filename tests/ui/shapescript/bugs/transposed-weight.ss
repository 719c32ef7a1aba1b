# Bug: a transposed weight. `linear` takes torch's layout, weight [Dout Din],
# but this weight was declared [Din Dout], the layout for `x @ w`. The
# input's last axis, 768, meets the weight's second axis, 3072. PyTorch says
# "mat1 and mat2 shapes cannot be multiplied" at run time.
# Fix: w: [Dmlp D], or write x @ w.
dim D = 768
dim Dmlp = 3072

fn widen(x: [b n D], w: [D Dmlp]) -> [b n Dmlp] = linear(x, w)  # ~ E0401
