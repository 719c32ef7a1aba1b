# Size arithmetic is checked: a size that doesn't fit in 128 bits is E0414.
dim Big = 170141183460469231731687303715884105727
dim Bigger = Big + 1                            # ~ E0414
dim Uses = Bigger * 2                           # broken by Bigger: no second error

fn wide(x: [n * 170141183460469231731687303715884105727 * 2]) -> [n] = x # ~ E0414
fn huge(x: [170141183460469231731687303715884105728 n]) -> [n] = x # ~ E0414 past i128

# Also once dims are replaced by their values: `A*A` is 10**40.
dim A = 100000000000000000000
dim B = 2
fn square(x: [A*A]) -> [n] = x                  # ~ E0414
fn cube(x: [n]) -> [A*A*B] = x to [A*A*B]       # ~ E0414 one for the whole size
fn fits(x: [A*B]) -> [A*B] = x
fn grouped(x: [(A A)]) -> [n] = x                # ~ E0414 a group's size too

# A size of more than 1,024 terms once its sums are multiplied out is E0419,
# refused before the work doubles with each factor.
fn many(x: [(a+b)*(c+d)*(e+f)*(g+h)*(i+j)*(k+l)*(m+o)*(p+q)*(r+s)*(t+u)*(v+w)]) -> [n] = x # ~ E0419
fn enough(x: [(a+b)*(c+d)*(e+f)*(g+h)*(i+j)*(k+l)*(m+o)*(p+q)*(r+s)*(t+u)]) -> Int = 1
