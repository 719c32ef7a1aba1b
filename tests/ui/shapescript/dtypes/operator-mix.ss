# Operators follow the call rule (docs/shapescript/functions.md): a tensor
# without a dtype has the caller's float dtype, so beside a concrete float
# dtype it is E0502 (`*` would give f32 in a bf16 model, `@` would fail).
# Float tensors made in a body take its float dtype: a dtype-less tensor's,
# else the one concrete float dtype of its tensors (`ones` beside a bf16 `x`
# is bf16), and so does `where` of two numbers.
dim D = 64

fn scaled(x: [b D], s: [D] f32) -> [b D] = x * s                    # ~ E0502
fn projected(x: [b D], w: [D D] f32) -> [b D] = x @ w               # ~ E0502
fn both_f32(x: [b D] f32, s: [D] f32) -> [b D] f32 = x * s
fn both_any(x: [b D], s: [D]) -> [b D] = x * s

fn made_bf16(x: [b D] bf16) -> [b D] bf16 = x + ones([b D]) + eye(D)[0] + (arange(D) to Real)
fn made_is_bf16(x: [b D] bf16) -> [b D] f32 = zeros([b D])          # ~ E0502
fn step_bf16(x: [b D] bf16) -> [b D] bf16 = where(x > 0.0, 1.0, 0.0)
fn step_ids(x: [b D] bf16) -> [b D] i64 = where(x > 0.0, 1, 0)
fn step_any(x: [b D], c: [b D] Bool) -> [b D] = where(c, 1.0, 0.0) * x
# Two float dtypes: made tensors have PyTorch's default one, f32, which
# mixes with the f32 tensor and not with the bf16 one.
fn made_mixed(x: [b D] bf16, y: [b D] f32) -> [b D] f32 = y + zeros([b D])
fn made_mixed_bf16(x: [b D] bf16, y: [b D] f32) -> [b D] bf16 = x + zeros([b D])  # ~ E0502

model Half {
  w: [D D] bf16
  fn made(self) -> [D D] bf16 = eye(D) * 2.0 + self.w
}
