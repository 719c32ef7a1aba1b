# A Real value returned where the return type says Unit.
# Fix: sigmoid(x), or x to Unit.
fn f(x: [n]) -> [n] Unit = x  # ~ E0606
