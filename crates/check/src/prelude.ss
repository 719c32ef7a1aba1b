# The ShapeScript prelude: elementwise math every file sees.
# Each stub is an extern fn over a shapeless Real tensor; the return type
# bounds the result's values. A declaration of the same name in a file
# hides the stub.

## The exponential, e^x. Always positive.
extern fn exp(x: Real) -> Pos = "torch.exp"

## The natural logarithm. Defined for positive x.
extern fn log(x: Real) -> Real = "torch.log"

## log(1 + x), accurate for small x. Defined for x > -1.
extern fn log1p(x: Real) -> Real = "torch.log1p"

## e^x - 1, accurate for small x. Greater than -1.
extern fn expm1(x: Real) -> Real = "torch.expm1"

## The square root. Defined for x >= 0.
extern fn sqrt(x: Real) -> NonNeg = "torch.sqrt"

## The reciprocal square root, 1 / sqrt(x). Defined for x > 0.
extern fn rsqrt(x: Real) -> Pos = "torch.rsqrt"

## The sine, in radians.
extern fn sin(x: Real) -> Signed = "torch.sin"

## The cosine, in radians.
extern fn cos(x: Real) -> Signed = "torch.cos"

## The hyperbolic tangent, in [-1, 1].
extern fn tanh(x: Real) -> Signed = "torch.tanh"

## The logistic sigmoid, 1 / (1 + e^-x), in [0, 1].
extern fn sigmoid(x: Real) -> Unit = "torch.sigmoid"

## The error function, in [-1, 1].
extern fn erf(x: Real) -> Signed = "torch.erf"

## The rectified linear unit, max(x, 0). Never negative.
extern fn relu(x: Real) -> NonNeg = "torch.relu"

## The Gaussian error linear unit, x * Φ(x).
extern fn gelu(x: Real) -> Real = "torch.nn.functional.gelu"

## The sigmoid linear unit, x * sigmoid(x).
extern fn silu(x: Real) -> Real = "torch.nn.functional.silu"

## log(1 + e^x), a smooth relu. Always positive.
extern fn softplus(x: Real) -> Pos = "torch.nn.functional.softplus"

## log(sigmoid(x)). Always negative.
extern fn log_sigmoid(x: Real) -> Neg = "torch.nn.functional.logsigmoid"
