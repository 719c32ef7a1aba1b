# Broadcasting by name (docs/shapescript/broadcasting.md): named axes pair by name, anonymous ones
# right-aligned with anonymous axes of equal size, a literal 1 with
# anything, equal ranks with 1s as NumPy does. Anything else is E0401.
dim D = 64

fn bias(x: [b n D], v: [D]) -> [b n D] = x + v
fn mask(x: [b n D], m: [b n]) -> [b n D] = x * m
fn square(s: [b h n n], m: [n n]) -> [b h n n] = s + m
fn ones(x: [b n D], s: [b 1 D]) -> [b n D] = x - s
fn numbers(x: [b 3 32 32], m: [32 32]) -> [b 3 32 32] = x * m
fn scalar(x: [b n D]) -> [b n D] = 2.0 * x + 1
fn chosen(c: [n m] Bool, x: [b n m], y: [m]) -> [b n m] = where(c, x, y)
fn compare(x: [b n], y: [n]) -> [b n] Bool = x > y
fn wrong_name(x: [b n D], v: [m]) -> [b n D] = x + v                    # ~ E0401
fn wrong_order(x: [b n D], v: [D n]) -> [b n D] = x + v                 # ~ E0401
fn matmul(x: [b n D], w: [D m]) -> [b n m] = x @ w
fn batched(q: [b h i d], k: [b h d j]) -> [b h i j] = q @ k
fn vector(x: [b D], v: [D]) -> [b] = x @ v
