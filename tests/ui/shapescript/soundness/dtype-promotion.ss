# Integer and bool dtypes follow PyTorch's promotion (docs/shapescript/dtypes.md),
# and what PyTorch does not define for a dtype is E0503.
fn scaled(x: [n] i32) -> [n] i32 = x * 1.5                 # ~ E0502
fn halved(x: [n] i64) -> [n] i64 = x / 2                   # ~ E0502
fn widened(x: [n] i32, y: [n] i64) -> [n] i32 = x + y      # ~ E0502
fn counted(m: [n] bool) -> [] bool = sum(m, over=n)        # ~ E0502
fn averaged(x: [n] i64) -> [] = mean(x, over=n)            # ~ E0503
fn negated(m: [n] bool) -> [n] bool = -m                   # ~ E0503
fn absolute(m: [n] bool) -> [n] bool = abs(m)              # ~ E0503
fn first(m: [n] bool) -> [] i64 = argmax(m, over=n)        # ~ E0503
fn flipped(m: [n] bool) -> [n] i64 = 1 - m                 # ~ E0503
fn product(a: [n k] i64, b: [k m] i64) -> [n m] i64 = a @ b  # ~ E0503
fn mixed(a: [n k] f32, b: [k m] f64) -> [n m] f32 = a @ b    # ~ E0502
fn reciprocal(x: [n] i64) -> [n] i64 = x ** -1               # ~ E0607
fn powers(x: [n] i64, e: [n] i64) -> [n] i64 = x ** e        # ~ E0607

# What PyTorch gives, typed as it gives it.
fn as_float(x: [n] i32) -> [n] f32 = x * 1.5
fn true_division(x: [n] i64) -> [n] f32 = x / 2
fn wide(x: [n] i32, y: [n] i64) -> [n] i64 = x + y
fn count(m: [n] bool) -> [] i64 = sum(m, over=n)
fn narrow(x: [n] i32, y: [n] i64) -> [n] i32 = x + sum(y, over=n)
fn squared(x: [n] i64) -> [n] i64 = x ** 2
fn float_power(x: [n] i64) -> [n] f32 = x ** -1.0
