# An extern fn that names torch.log gets log's edge, whatever its own name.
extern fn ln(x: Real) -> Real = "torch.log"

fn f(x: [n] Unit) -> [n] = ln(x)  # ~ E0601
fn g(x: [n] Unit) -> [n] = ln(exp(x))
