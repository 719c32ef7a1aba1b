# `log(relu(x))`: relu's return type says NonNeg, so the value may be 0.
# Fix: log(relu(x) + 1e-6), or softplus, which is positive.
extern fn relu(x: Real) -> NonNeg = "torch.relu"

fn f(x: [n]) -> [n] = log(relu(x))  # ~ E0601
