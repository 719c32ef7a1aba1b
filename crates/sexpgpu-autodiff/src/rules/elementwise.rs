//! Adjoints of the elementwise unaries and binaries. Inputs of elementwise
//! nodes already have the node's shape (broadcasts are their own nodes), so
//! every adjoint here has the node's shape too; tie and kink conventions
//! follow JAX and are listed in `docs/sexpgpu/autodiff.md`.

use sexpgpu_graph::{BinaryOp, CompareOp, Graph, NodeId, OpError, UnaryOp};

use BinaryOp::{Add, Div, Mul, Sub};

/// The adjoint of `x` for `y = op(x)`, given `adj` for `y`.
pub(super) fn unary(
    g: &mut Graph,
    op: UnaryOp,
    x: NodeId,
    y: NodeId,
    adj: NodeId,
) -> Result<NodeId, OpError> {
    Ok(match op {
        UnaryOp::Neg => g.unary(UnaryOp::Neg, adj)?,
        // JAX's choice at 0: the derivative of the `x >= 0` branch.
        UnaryOp::Abs => {
            let nonneg = g.compare(CompareOp::Ge, x, 0.0)?;
            let flipped = g.unary(UnaryOp::Neg, adj)?;
            g.where_(nonneg, adj, flipped)?
        }
        // d sqrt(x) = 1 / (2 sqrt(x)): reuse the forward result.
        UnaryOp::Sqrt => {
            let twice = g.binary(Mul, y, 2.0)?;
            g.binary(Div, adj, twice)?
        }
        // d x^(-1/2) = -1/2 x^(-3/2) = -1/2 y / x.
        UnaryOp::Rsqrt => {
            let ratio = g.binary(Div, y, x)?;
            let slope = g.binary(Mul, ratio, -0.5)?;
            g.binary(Mul, adj, slope)?
        }
        UnaryOp::Exp => g.binary(Mul, adj, y)?,
        UnaryOp::Log => g.binary(Div, adj, x)?,
        UnaryOp::Sin => {
            let cos = g.unary(UnaryOp::Cos, x)?;
            g.binary(Mul, adj, cos)?
        }
        UnaryOp::Cos => {
            let sin = g.unary(UnaryOp::Sin, x)?;
            let neg_sin = g.unary(UnaryOp::Neg, sin)?;
            g.binary(Mul, adj, neg_sin)?
        }
        // d tanh = 1 - tanh^2: reuse the forward result.
        UnaryOp::Tanh => {
            let square = g.binary(Mul, y, y)?;
            let slope = g.binary(Sub, 1.0, square)?;
            g.binary(Mul, adj, slope)?
        }
        // d asin = 1 / sqrt(1 - x^2); d acos is its negation.
        UnaryOp::Asin | UnaryOp::Acos => {
            let square = g.binary(Mul, x, x)?;
            let rest = g.binary(Sub, 1.0, square)?;
            let root = g.unary(UnaryOp::Sqrt, rest)?;
            let slope = g.binary(Div, adj, root)?;
            if op == UnaryOp::Acos {
                g.unary(UnaryOp::Neg, slope)?
            } else {
                slope
            }
        }
        // Piecewise constant: no gradient flows, whatever the adjoint holds.
        // (`stop-gradient` never gets here: its edge carries nothing.)
        UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::Sign
        | UnaryOp::StopGradient => g.zeros_like(adj),
        sexpgpu_graph::unaries_in_f64!() => {
            let slope = slope(g, op, x, y)?;
            g.binary(Mul, adj, slope)?
        }
    })
}

/// The derivative of the later unaries at `x` (with `y = op(x)`), as PyTorch
/// writes them.
fn slope(g: &mut Graph, op: UnaryOp, x: NodeId, y: NodeId) -> Result<NodeId, OpError> {
    use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2};
    Ok(match op {
        // sigmoid' = y (1 - y).
        UnaryOp::Sigmoid => {
            let rest = g.binary(Sub, 1.0, y)?;
            g.binary(Mul, y, rest)?
        }
        UnaryOp::Softplus => g.unary(UnaryOp::Sigmoid, x)?,
        UnaryOp::Log1p => {
            let one_plus = g.binary(Add, x, 1.0)?;
            g.binary(Div, 1.0, one_plus)?
        }
        UnaryOp::Expm1 => g.binary(Add, y, 1.0)?,
        // erf' = 2 / sqrt(pi) exp(-x^2).
        UnaryOp::Erf => {
            let square = g.binary(Mul, x, x)?;
            let neg = g.unary(UnaryOp::Neg, square)?;
            let bell = g.unary(UnaryOp::Exp, neg)?;
            g.binary(Mul, bell, FRAC_2_SQRT_PI)?
        }
        UnaryOp::Sinh => g.unary(UnaryOp::Cosh, x)?,
        UnaryOp::Cosh => g.unary(UnaryOp::Sinh, x)?,
        // tan' = 1 + tan^2.
        UnaryOp::Tan => {
            let square = g.binary(Mul, y, y)?;
            g.binary(Add, square, 1.0)?
        }
        UnaryOp::Atan | UnaryOp::Atanh => {
            let square = g.binary(Mul, x, x)?;
            let denom = if op == UnaryOp::Atan {
                g.binary(Add, square, 1.0)?
            } else {
                g.binary(Sub, 1.0, square)?
            };
            g.binary(Div, 1.0, denom)?
        }
        // asinh' = 1 / sqrt(x^2 + 1); acosh' = 1 / sqrt((x - 1)(x + 1)).
        UnaryOp::Asinh => {
            let square = g.binary(Mul, x, x)?;
            let sum = g.binary(Add, square, 1.0)?;
            g.unary(UnaryOp::Rsqrt, sum)?
        }
        UnaryOp::Acosh => {
            let below = g.binary(Sub, x, 1.0)?;
            let above = g.binary(Add, x, 1.0)?;
            let product = g.binary(Mul, below, above)?;
            g.unary(UnaryOp::Rsqrt, product)?
        }
        UnaryOp::Log2 | UnaryOp::Log10 => {
            let ln = if op == UnaryOp::Log2 { LN_2 } else { LN_10 };
            let scaled = g.binary(Mul, x, ln)?;
            g.binary(Div, 1.0, scaled)?
        }
        UnaryOp::Exp2 => g.binary(Mul, y, LN_2)?,
        // The others have rules of their own in `unary`.
        sexpgpu_graph::unaries_in_f32!() | sexpgpu_graph::unaries_exact!() => g.zeros_like(x),
    })
}

/// The adjoints of `a` and `b` for `y = op(a, b)`, given `adj` for `y`;
/// only those `wanted` are built.
pub(super) fn binary(
    g: &mut Graph,
    op: BinaryOp,
    [a, b]: [NodeId; 2],
    y: NodeId,
    adj: NodeId,
    wanted: &[bool],
) -> Result<(Option<NodeId>, Option<NodeId>), OpError> {
    let (want_a, want_b) = (wanted[0], wanted[1]);
    let mut ga = None;
    let mut gb = None;
    match op {
        Add => {
            ga = Some(adj);
            gb = Some(adj);
        }
        Sub => {
            ga = Some(adj);
            if want_b {
                gb = Some(g.unary(UnaryOp::Neg, adj)?);
            }
        }
        Mul => {
            if want_a {
                ga = Some(g.binary(Mul, adj, b)?);
            }
            if want_b {
                gb = Some(g.binary(Mul, adj, a)?);
            }
        }
        // y = a / b: da = adj / b, db = -adj a / b^2 = -(adj / b) y.
        Div => {
            let over_b = g.binary(Div, adj, b)?;
            ga = Some(over_b);
            if want_b {
                let scaled = g.binary(Mul, over_b, y)?;
                gb = Some(g.unary(UnaryOp::Neg, scaled)?);
            }
        }
        BinaryOp::Pow => {
            if want_a {
                ga = Some(pow_base(g, a, b, adj)?);
            }
            if want_b {
                gb = Some(pow_exponent(g, a, y, adj)?);
            }
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            if want_a {
                ga = Some(chooser(g, a, b, y, adj)?);
            }
            if want_b {
                gb = Some(chooser(g, b, a, y, adj)?);
            }
        }
        // y = atan2(a, b): da = b / (a^2 + b^2), db = -a / (a^2 + b^2).
        BinaryOp::Atan2 => {
            let aa = g.binary(Mul, a, a)?;
            let bb = g.binary(Mul, b, b)?;
            let norm = g.binary(Add, aa, bb)?;
            let scaled = g.binary(Div, adj, norm)?;
            if want_a {
                ga = Some(g.binary(Mul, scaled, b)?);
            }
            if want_b {
                let times_a = g.binary(Mul, scaled, a)?;
                gb = Some(g.unary(UnaryOp::Neg, times_a)?);
            }
        }
        // y = copysign(a, b) = ±a: da = adj y / a, taken as 0 where a = 0
        // (PyTorch's); db = 0.
        BinaryOp::CopySign => {
            if want_a {
                let ratio = g.binary(Div, y, a)?;
                let a_zero = g.compare(CompareOp::Eq, a, 0.0)?;
                let slope = g.where_(a_zero, 0.0, ratio)?;
                ga = Some(g.binary(Mul, adj, slope)?);
            }
            gb = Some(g.zeros_like(adj));
        }
        // a = q b + r: da = adj, db = -adj q (PyTorch's `fmod` and `remainder`).
        BinaryOp::Rem | BinaryOp::Mod => {
            ga = Some(adj);
            if want_b {
                let rounding = if op == BinaryOp::Rem {
                    BinaryOp::Quot
                } else {
                    BinaryOp::FloorDiv
                };
                let q = g.binary(rounding, a, b)?;
                let scaled = g.binary(Mul, adj, q)?;
                gb = Some(g.unary(UnaryOp::Neg, scaled)?);
            }
        }
        // Piecewise constant (and the integer-only ops, which never get here).
        BinaryOp::Quot | BinaryOp::FloorDiv | sexpgpu_graph::binaries_bitwise!() => {
            let zero = g.zeros_like(adj);
            ga = Some(zero);
            gb = Some(zero);
        }
    }
    Ok((ga.filter(|_| want_a), gb.filter(|_| want_b)))
}

/// d a^b / da = b a^(b-1), taken as 0 where b = 0 (as JAX does), so that
/// `x^0` has derivative 0 even at x = 0 instead of 0 * inf.
fn pow_base(g: &mut Graph, a: NodeId, b: NodeId, adj: NodeId) -> Result<NodeId, OpError> {
    let lower = g.binary(Sub, b, 1.0)?;
    let power = g.binary(BinaryOp::Pow, a, lower)?;
    let slope = g.binary(Mul, b, power)?;
    let b_zero = g.compare(CompareOp::Eq, b, 0.0)?;
    let slope = g.where_(b_zero, 0.0, slope)?;
    g.binary(Mul, adj, slope)
}

/// d a^b / db = a^b log(a), with log(a) taken as 0 where a = 0 (as JAX
/// does): there a^b is 0 or 1 and the limit from the right is finite.
fn pow_exponent(g: &mut Graph, a: NodeId, y: NodeId, adj: NodeId) -> Result<NodeId, OpError> {
    let a_zero = g.compare(CompareOp::Eq, a, 0.0)?;
    let safe = g.where_(a_zero, 1.0, a)?;
    let log = g.unary(UnaryOp::Log, safe)?;
    let slope = g.binary(Mul, y, log)?;
    g.binary(Mul, adj, slope)
}

/// The adjoint of `mine` in `y = maximum(mine, other)` (or `minimum`): all
/// of `adj` where `mine` alone is the result, half where both tie (JAX's and
/// PyTorch's convention), none elsewhere (also where `y` is NaN).
fn chooser(
    g: &mut Graph,
    mine: NodeId,
    other: NodeId,
    y: NodeId,
    adj: NodeId,
) -> Result<NodeId, OpError> {
    let chosen = g.compare(CompareOp::Eq, mine, y)?;
    let tied = g.compare(CompareOp::Eq, other, y)?;
    let half = g.binary(Mul, adj, 0.5)?;
    let share = g.where_(tied, half, adj)?;
    g.where_(chosen, share, 0.0)
}
