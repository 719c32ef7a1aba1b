//! Elementwise arithmetic, comparisons, `where`, `cast` and reductions on
//! executor values. Inputs already have the node's shape (broadcasts are
//! their own nodes). Integer arithmetic wraps; float `maximum`/`minimum`/`max`
//! propagate NaN as NumPy does. Float functions run in f32, as the dtype
//! says, or in f64 under [`Precision::F64`].

use super::layout::strided_indices;
use std::ops::{Add, Div, Mul, Neg, Sub};

use super::values::{Precision, Values};
use crate::dtype::DType;
use crate::op::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::shape::Shape;

/// The float functions elementwise ops use, in f32 or f64, so that one
/// definition of each op serves both precisions.
trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const NAN: Self;
    const ONE: Self;
    const ZERO: Self;
    const HALF: Self;
    fn is_nan(self) -> bool;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn acos(self) -> Self;
    fn asin(self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn atan2(self, y: Self) -> Self;
    fn max(self, y: Self) -> Self;
    fn min(self, y: Self) -> Self;
    fn floor(self) -> Self;
    fn trunc(self) -> Self;
    fn copysign(self, y: Self) -> Self;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    fn is_zero(self) -> bool;
    fn fmod(self, y: Self) -> Self;
}

macro_rules! real {
    ($t:ident: $($f:ident),*; $($g:ident),*; exp = $exp:path, tanh = $tanh:path) => {
        impl Real for $t {
            const NAN: Self = $t::NAN;
            const ONE: Self = 1.0;
            const ZERO: Self = 0.0;
            const HALF: Self = 0.5;
            $(fn $f(self) -> Self { $t::$f(self) })*
            fn exp(self) -> Self { $exp(self) }
            fn tanh(self) -> Self { $tanh(self) }
            $(fn $g(self, y: Self) -> Self { $t::$g(self, y) })*
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn is_zero(self) -> bool {
                self == 0.0
            }
            fn fmod(self, y: Self) -> Self {
                self % y
            }
        }
    };
}

// f32 `exp` and `tanh` are this crate's own (`crate::math`), which the CPU
// backend's vectorised loops call too, so both executors agree bit for bit.
real!(f32: abs, sqrt, ln, sin, cos, acos, asin, floor, trunc; powf, atan2, max, min, copysign;
      exp = crate::math::exp_f32, tanh = crate::math::tanh_f32);
real!(f64: abs, sqrt, ln, sin, cos, acos, asin, floor, trunc; powf, atan2, max, min, copysign;
      exp = f64::exp, tanh = f64::tanh);

pub(crate) fn unary(op: UnaryOp, x: &Values, precision: Precision) -> Values {
    match x {
        Values::Float(v) => Values::Float(match precision {
            Precision::Dtype => v
                .iter()
                .map(|&x| f64::from(unary_float(op, x as f32)))
                .collect(),
            Precision::F64 => v.iter().map(|&x| unary_float(op, x)).collect(),
        }),
        Values::Int(v) => Values::Int(v.iter().map(|&x| unary_int(op, x)).collect()),
        Values::Bool(v) => Values::Bool(v.clone()),
    }
}

/// Only `neg`, `abs` and `sign` reach integers (builders check; the
/// rounding functions leave an integer tensor as it is, without a node);
/// the others keep `x`, which is inert.
fn unary_int(op: UnaryOp, x: i64) -> i64 {
    match op {
        UnaryOp::Neg => x.wrapping_neg(),
        UnaryOp::Sign => x.signum(),
        UnaryOp::Abs => x.wrapping_abs(),
        crate::unaries_float_only!() => x,
    }
}

fn unary_float<T: Real>(op: UnaryOp, x: T) -> T {
    // The later functions: in f64, rounded once (`UnaryOp::f64_value`).
    if let Some(y) = op.f64_value(x.to_f64()) {
        return T::from_f64(y);
    }
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => T::ONE / x.sqrt(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Acos => x.acos(),
        UnaryOp::Asin => x.asin(),
        // Computed above (`UnaryOp::f64_value`).
        crate::unaries_in_f64!() | crate::unaries_exact!() => T::NAN,
    }
}

pub(crate) fn binary(op: BinaryOp, a: &Values, b: &Values, precision: Precision) -> Values {
    match (a, b) {
        (Values::Float(a), Values::Float(b)) => {
            let pairs = a.iter().zip(b);
            Values::Float(match precision {
                Precision::Dtype => pairs
                    .map(|(&x, &y)| f64::from(binary_float(op, x as f32, y as f32)))
                    .collect(),
                Precision::F64 => pairs.map(|(&x, &y)| binary_float(op, x, y)).collect(),
            })
        }
        (Values::Int(a), Values::Int(b)) => Values::Int(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| binary_int(op, x, y))
                .collect(),
        ),
        (Values::Bool(a), Values::Bool(b)) => Values::Bool(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| binary_bool(op, x, y))
                .collect(),
        ),
        // Builders refuse other combinations; keep the left operand.
        (other, _) => other.clone(),
    }
}

fn binary_float<T: Real>(op: BinaryOp, x: T, y: T) -> T {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Pow => x.powf(y),
        BinaryOp::Maximum => nan_or(x, y, T::max),
        BinaryOp::Minimum => nan_or(x, y, T::min),
        BinaryOp::Atan2 => x.atan2(y),
        BinaryOp::CopySign => x.copysign(y),
        BinaryOp::Quot => (x / y).trunc(),
        BinaryOp::Rem => x.fmod(y),
        BinaryOp::FloorDiv => floor_div(x, y),
        BinaryOp::Mod => {
            let r = x.fmod(y);
            if !r.is_zero() && ((r < T::ZERO) != (y < T::ZERO)) {
                r + y
            } else {
                r
            }
        }
        // Integer-only ops never reach floats (builders check).
        crate::binaries_bitwise!() => T::NAN,
    }
}

/// Only the bitwise ops take bool (builders check); the others keep `x`.
fn binary_bool(op: BinaryOp, x: bool, y: bool) -> bool {
    use BinaryOp::*;
    match op {
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        ShiftLeft | ShiftRight | crate::binaries_arith!() => x,
        crate::binaries_float_only!() | crate::binaries_division!() => x,
    }
}

/// PyTorch's `floor_divide` of floats (`div_floor_floating`): the quotient
/// of the exact remainder, so that `a - b * q` is `mod`'s result.
fn floor_div<T: Real>(a: T, b: T) -> T {
    if b.is_zero() {
        return a / b;
    }
    let m = a.fmod(b);
    let mut div = (a - m) / b;
    if !m.is_zero() && ((b < T::ZERO) != (m < T::ZERO)) {
        div = div - T::ONE;
    }
    if div.is_zero() {
        return T::ZERO.copysign(a / b);
    }
    let floor = div.floor();
    if div - floor > T::HALF {
        floor + T::ONE
    } else {
        floor
    }
}

/// NaN if either is NaN, else `f(x, y)`.
fn nan_or<T: Real>(x: T, y: T, f: fn(T, T) -> T) -> T {
    if x.is_nan() || y.is_nan() {
        T::NAN
    } else {
        f(x, y)
    }
}

fn binary_int(op: BinaryOp, x: i64, y: i64) -> i64 {
    match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Maximum => x.max(y),
        BinaryOp::Minimum => x.min(y),
        // Division by zero is 0, as NumPy gives; `MIN / -1` wraps.
        BinaryOp::Quot => x.checked_div(y).unwrap_or(if y == 0 { 0 } else { x }),
        BinaryOp::Rem => x.checked_rem(y).unwrap_or(0),
        BinaryOp::FloorDiv => crate::math::floor_div_int(x, y),
        BinaryOp::Mod => crate::math::floor_mod_int(x, y),
        BinaryOp::BitAnd => x & y,
        BinaryOp::BitOr => x | y,
        BinaryOp::BitXor => x ^ y,
        BinaryOp::ShiftLeft => shift_left(x, y),
        BinaryOp::ShiftRight => shift_right(x, y),
        // Float-only ops never reach integers (builders check); 0 is inert.
        crate::binaries_float_only!() => 0,
    }
}

/// `x << y`; a shift outside `0..64` is 0. Computed in i64, an i32
/// result keeps the low 32 bits, so a shift of 32 or more is 0 there too.
fn shift_left(x: i64, y: i64) -> i64 {
    if (0..64).contains(&y) {
        x << y
    } else {
        0
    }
}

/// `x >> y`, filling with the sign; a shift outside `0..64` leaves only
/// the sign (0 or -1), which for an i32 value is what 32..64 gives too.
fn shift_right(x: i64, y: i64) -> i64 {
    if (0..64).contains(&y) {
        x >> y
    } else {
        x >> 63
    }
}

pub(crate) fn compare(op: CompareOp, a: &Values, b: &Values) -> Values {
    fn apply<T: PartialOrd>(op: CompareOp, a: &[T], b: &[T]) -> Vec<bool> {
        a.iter()
            .zip(b)
            .map(|(x, y)| match op {
                CompareOp::Eq => x == y,
                CompareOp::Ne => x != y,
                CompareOp::Lt => x < y,
                CompareOp::Le => x <= y,
                CompareOp::Gt => x > y,
                CompareOp::Ge => x >= y,
            })
            .collect()
    }
    Values::Bool(match (a, b) {
        (Values::Float(a), Values::Float(b)) => apply(op, a, b),
        (Values::Int(a), Values::Int(b)) => apply(op, a, b),
        (Values::Bool(a), Values::Bool(b)) => apply(op, a, b),
        _ => vec![false; a.len()],
    })
}

pub(crate) fn select(mask: &Values, a: &Values, b: &Values) -> Values {
    let Values::Bool(mask) = mask else {
        return a.clone();
    };
    match (a, b) {
        (Values::Float(a), Values::Float(b)) => Values::Float(
            mask.iter()
                .enumerate()
                .map(|(i, &m)| if m { a[i] } else { b[i] })
                .collect(),
        ),
        (Values::Int(a), Values::Int(b)) => Values::Int(
            mask.iter()
                .enumerate()
                .map(|(i, &m)| if m { a[i] } else { b[i] })
                .collect(),
        ),
        (Values::Bool(a), Values::Bool(b)) => Values::Bool(
            mask.iter()
                .enumerate()
                .map(|(i, &m)| if m { a[i] } else { b[i] })
                .collect(),
        ),
        (other, _) => other.clone(),
    }
}

/// Floats to integers truncate toward zero and saturate at the target's
/// range (NaN is 0); i64 to i32 wraps (in `finish`); anything to bool is
/// `!= 0`; bool to numbers is 0 or 1. Rounding to bf16 happens in `finish`.
pub(crate) fn cast(x: &Values, dtype: DType, precision: Precision) -> Values {
    match (x, dtype) {
        (Values::Float(v), DType::F32 | DType::BF16) => Values::Float(v.clone()),
        (Values::Float(v), DType::I32) => {
            Values::Int(v.iter().map(|&x| i64::from(x as i32)).collect())
        }
        (Values::Float(v), DType::I64) => Values::Int(v.iter().map(|&x| x as i64).collect()),
        (Values::Float(v), DType::Bool) => Values::Bool(v.iter().map(|&x| x != 0.0).collect()),
        // Rounded straight to f32 (not through f64, which could round twice).
        (Values::Int(v), DType::F32 | DType::BF16) => Values::Float(match precision {
            Precision::Dtype => v.iter().map(|&x| f64::from(x as f32)).collect(),
            Precision::F64 => v.iter().map(|&x| x as f64).collect(),
        }),
        (Values::Int(v), DType::I32 | DType::I64) => Values::Int(v.clone()),
        (Values::Int(v), DType::Bool) => Values::Bool(v.iter().map(|&x| x != 0).collect()),
        (Values::Bool(v), DType::F32 | DType::BF16) => {
            Values::Float(v.iter().map(|&x| f64::from(u8::from(x))).collect())
        }
        (Values::Bool(v), DType::I32 | DType::I64) => {
            Values::Int(v.iter().map(|&x| i64::from(x)).collect())
        }
        (Values::Bool(v), DType::Bool) => Values::Bool(v.clone()),
    }
}

/// Sums accumulate floats in f64 (rounded once, by `finish`) and integers
/// wrapping; `max` propagates NaN. Keepdims changes only the node's shape,
/// not the element order, so it needs nothing here.
pub(crate) fn reduce(op: ReduceOp, x: &Values, shape: &Shape, axes: &[usize]) -> Values {
    // Each input element's output position: its index with reduced axes removed.
    let mut out_dims = shape.dims().to_vec();
    for &a in axes {
        out_dims[a] = 1;
    }
    let out_shape = Shape::new(out_dims);
    let strides: Vec<usize> = out_shape
        .strides()
        .into_iter()
        .enumerate()
        .map(|(a, s)| if axes.contains(&a) { 0 } else { s })
        .collect();
    let targets = strided_indices(shape.dims(), &strides, 0);
    let n = out_shape.numel();
    match (op, x) {
        (ReduceOp::Sum, Values::Float(v)) => {
            let mut acc = vec![0f64; n];
            for (&t, &x) in targets.iter().zip(v) {
                acc[t] += x;
            }
            Values::Float(acc)
        }
        (ReduceOp::Sum, Values::Int(v)) => {
            let mut acc = vec![0i64; n];
            for (&t, &x) in targets.iter().zip(v) {
                acc[t] = acc[t].wrapping_add(x);
            }
            Values::Int(acc)
        }
        (ReduceOp::Max, Values::Float(v)) => {
            let mut acc = vec![f64::NEG_INFINITY; n];
            for (&t, &x) in targets.iter().zip(v) {
                acc[t] = nan_or(acc[t], x, f64::max);
            }
            Values::Float(acc)
        }
        (ReduceOp::Max, Values::Int(v)) => {
            let mut acc = vec![i64::MIN; n];
            for (&t, &x) in targets.iter().zip(v) {
                acc[t] = acc[t].max(x);
            }
            Values::Int(acc)
        }
        (_, other) => other.clone(),
    }
}
