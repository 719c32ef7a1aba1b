# Ranges hold the floats a program computes, not only the reals: a function
# reaches the ends it only tends to (`exp(-104)` is 0 in f32, `sigmoid(17)`
# is 1, `tanh(10)` is 1), so their edges are checked with those ends in.
fn log_probs(x: [b n]) -> [b n] = log(softmax(x, over=n))                 # ~ E0601
fn log_gate(x: [n]) -> [n] = log(sigmoid(x))                              # ~ E0601
fn log_other(x: [n]) -> [n] = log(1.0 - sigmoid(x))                       # ~ E0601
fn inverse(x: [n]) -> [n] = 1.0 / exp(x)                                  # ~ E0602
fn positive(x: [n]) -> [n] Pos = exp(x)                                   # ~ E0606
fn inside(x: [n]) -> [n] Signed = tanh(x)
fn in_log_space(x: [b n]) -> [b n] = log_softmax(x, over=n) + log_sigmoid(x) + log_sigmoid(-x)
fn by_hand(x: [b n]) -> [b] = log(sum(exp(x - max(x, over=n)), over=n)) + max(x, over=n)
fn shifted_up(x: [n]) -> [n] = log(1.0 + exp(x))
# A Python number meets an f16 tensor as an f16: `1e-8` is 0 there.
fn half_eps(x: [n] f16) -> [n] f16 = log(x * x + 1e-8)                    # ~ E0601
fn half_fits(x: [n] f16) -> [n] f16 = log(x * x + 1e-5)
# A result past a dtype's largest finite value is an infinity: 100000 ones
# sum to inf in f16, and inf / 100000 is not `Unit`. A large Python number
# is not an infinity itself: PyTorch computes in f32 and rounds the result.
dim N = 100000
fn f16_sum(x: [N] Unit f16) -> [] Unit f16 = sum(x, over=N) / 100000.0       # ~ E0606
fn f16_scaled(x: [n] Unit f16) -> [n] Unit f16 = (x * 70000.0) / 70000.0     # ~ E0606
fn f16_divided(x: [n] Unit f16) -> [n] Unit f16 = x / 70000.0
fn f16_mean(x: [N] Unit f16) -> [] Unit f16 = mean(x, over=N)
