# Powers and signs in sizes (docs/shapescript/sizes.md): `**` with an exponent
# known before the program runs, a size that starts with a sign in
# parentheses, and unary plus in expressions.
dim K = 3
dim P = 2**K
dim Q = -1 + P                                       # a lone size may start with a sign
dim R = 10 -1                                        # a lone size has nothing to mistake `-1` for

fn square(x: [n**2]) -> [n*n] = x
fn cube(x: [2**K]) -> [8] = x
fn dimmed(x: [P]) -> [8] = x
fn less(x: [Q]) -> [7] = x
fn nine(x: [R]) -> [9] = x
fn ids(x: [n] Index[-1 + P]) -> [n] Index[7] = x
fn shifted(x: [(-1 + n) 4]) -> [n - 1 4] = x
fn plus(x: [n]) -> [n] = +x * 2.0
fn difference(x: [b 3 - 1 + l]) -> [b 2 + l] = x
fn ambiguous(x: [b 3 -1 + l]) -> [b 2 + l] = x       # ~ E0109 new axis or difference
fn leading(x: [b -1 + l]) -> [b l - 1] = x           # ~ E0109 needs parentheses
fn generic_power(x: [2**k]) -> [?m] = x as [?m]    # ~ E0303 exponent unknown
dim Bad = 2**(0 - 1)                                 # ~ E0305 negative power
fn expanded(x: [(n + 1)**2]) -> [n*n + 2*n + 1] = x
fn huge(x: [(a + c + d)**100]) -> [?m] = x as [?m]   # ~ E0303 too large a polynomial
