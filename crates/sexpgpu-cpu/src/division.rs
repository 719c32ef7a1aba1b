//! The division-like and bitwise binaries of the fused loop (`quot rem
//! floor-div mod`, `bit-and bit-or bit-xor shift-left shift-right`), with
//! the reference executor's rules (`docs/sexpgpu/operations.md`): integer
//! division by zero is 0, `MIN / -1` wraps, a shift outside the dtype's
//! width leaves 0 (left) or the sign (right).

use sexpgpu_graph::{binaries_arith, binaries_bitwise, binaries_float_only, math, BinaryOp};

/// `out[i] = op(a[i], b[i])` on f32 registers.
#[inline(always)]
pub(super) fn float(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    let f: fn(f32, f32) -> f32 = match op {
        BinaryOp::Quot => |x, y| (x / y).trunc(),
        BinaryOp::Rem => |x, y| x % y,
        BinaryOp::FloorDiv => floor_div,
        BinaryOp::Mod => |x, y| {
            let r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                r + y
            } else {
                r
            }
        },
        // Integer-only ops never reach floats (builders check); the
        // others are the fused loop's own.
        binaries_arith!() | binaries_float_only!() | binaries_bitwise!() => |_, _| f32::NAN,
    };
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// PyTorch's `floor_divide` of floats, step for step as the reference.
fn floor_div(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0f32.copysign(a / b);
    }
    let floor = div.floor();
    if div - floor > 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

macro_rules! int_ops {
    ($name:ident, $t:ty) => {
        /// `out[i] = op(a[i], b[i])` on integer registers.
        #[inline(always)]
        pub(super) fn $name(op: BinaryOp, a: &[$t], b: &[$t], out: &mut [$t]) {
            const WIDTH: $t = <$t>::BITS as $t;
            let f: fn($t, $t) -> $t = match op {
                BinaryOp::Quot => |x, y| if y == 0 { 0 } else { x.wrapping_div(y) },
                BinaryOp::Rem => |x, y| if y == 0 { 0 } else { x.wrapping_rem(y) },
                // In i64 as the reference; `MIN / -1` wraps back.
                BinaryOp::FloorDiv => |x, y| math::floor_div_int(x.into(), y.into()) as $t,
                BinaryOp::Mod => |x, y| math::floor_mod_int(x.into(), y.into()) as $t,
                BinaryOp::BitAnd => |x, y| x & y,
                BinaryOp::BitOr => |x, y| x | y,
                BinaryOp::BitXor => |x, y| x ^ y,
                BinaryOp::ShiftLeft => |x, y| if (0..WIDTH).contains(&y) { x << y } else { 0 },
                BinaryOp::ShiftRight => |x, y| {
                    if (0..WIDTH).contains(&y) {
                        x >> y
                    } else {
                        x >> (WIDTH - 1)
                    }
                },
                // Float-only ops never reach integers; 0 as the reference
                // gives. The others are the fused loop's own.
                binaries_arith!() | binaries_float_only!() => |_, _| 0,
            };
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
    };
}

int_ops!(int32, i32);
int_ops!(int64, i64);
