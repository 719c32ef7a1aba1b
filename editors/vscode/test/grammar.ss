# SYNTAX TEST "source.shapescript" "ShapeScript grammar"
## Model width.
# <- comment.line.documentation.shapescript
dim D = 768
# <- storage.type.dim.shapescript
#   ^ entity.name.constant.shapescript
#       ^^^ constant.numeric.integer.shapescript
dim Images = [b 3 16gh 16gw]
#                 ^^ constant.numeric.integer.shapescript
#                   ^^ variable.other.axis.shapescript
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
# <- storage.modifier.extern.shapescript
#         ^^^^ entity.name.function.shapescript
#                 ^^^^ support.type.domain.shapescript
#                       ^^ keyword.operator.arrow.shapescript
#                                   ^^^^^^^^^^^^^^^^^^^^ string.quoted.double.shapescript
fn f(x: [b n D] bf16) -> [b n D] {
#               ^^^^ support.type.dtype.shapescript
  let y = x to f32  # a cast
# ^^^ storage.type.let.shapescript
#           ^^ keyword.operator.word.shapescript
#                   ^^^^^^^^ comment.line.number-sign.shapescript
  y
}
