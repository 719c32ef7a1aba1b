//! The f32 `exp` and `tanh` of every executor: the reference executor and
//! the CPU backend call these same functions, so their results stay equal
//! bit for bit. They are branch-free (selects, not jumps), so a loop that
//! maps them over a slice compiles to SIMD code; the C library's `expf`
//! and `tanhf` are scalar calls, and were a sixth of a transformer's
//! training step. Both are within 3 ulp of the exact result (tested against
//! f64 over every exponent range), with the C library's special values:
//! NaN stays NaN, `exp` overflows to infinity and underflows to 0, and
//! `tanh` keeps the sign of zero and saturates at ±1. Also integer
//! `floor-div` and `mod`, shared the same way.

// The constants are public for the CPU backend's compiled kernels, which
// repeat these functions' arithmetic instruction for instruction.

/// 1 / ln 2.
pub const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in two, the high part with trailing zero bits so that
/// `n * LN2_HI` is exact for the `n` that occur (|n| < 2^8).
pub const LN2_HI: f32 = 0.693_145_75;
pub const LN2_LO: f32 = 1.428_606_8e-6;
/// 1.5 * 2^23: adding it rounds an f32 of magnitude below 2^22 to an
/// integer (ties to even) held in the low mantissa bits.
pub const ROUNDER: f32 = 12_582_912.0;

/// e^r's Taylor coefficients 1/k! for k = 7 down to 0, highest first.
pub const EXP_TAYLOR: [f32; 8] = inverse_factorials(0);
/// (e^r - 1)/r's Taylor coefficients 1/(k+1)! for k = 7 down to 0,
/// highest first.
pub const EXPM1_TAYLOR: [f32; 8] = inverse_factorials(1);

/// `1/(lowest + k)!` for k = N-1 down to 0, each one f32 division of 1 by
/// the factorial, which is exact in f32 up to 13!.
const fn inverse_factorials<const N: usize>(lowest: usize) -> [f32; N] {
    let mut out = [0.0; N];
    let mut k = 0;
    while k < N {
        let mut factorial = 1.0f32;
        let mut i = 2;
        while i <= lowest + k {
            factorial *= i as f32;
            i += 1;
        }
        out[N - 1 - k] = 1.0 / factorial;
        k += 1;
    }
    out
}

/// The polynomial with `coefficients` (highest power first) at `x`, by
/// Horner's rule: `c0*x + c1`, then times `x` plus the next, which is the
/// nested `c_n + x*(c_{n-1} + x*(...))` evaluated in the same order. (A
/// loop over a constant array unrolls; the written-out nesting made
/// rustfmt take minutes.)
#[inline(always)]
fn horner<const N: usize>(x: f32, coefficients: &[f32; N]) -> f32 {
    let mut acc = coefficients[0];
    for &c in &coefficients[1..] {
        acc = acc * x + c;
    }
    acc
}

/// `2^n` for an integer `n` in [-126, 127], built from its exponent bits.
#[inline(always)]
fn pow2(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// Where `exp_f32` clamps its argument: below, the result is 0 even as a
/// subnormal; above, it is infinite.
pub const EXP_CLAMP: (f32, f32) = (-104.0, 89.0);
/// Where `tanh_f32` clamps |x|: tanh 9 rounds to 1 in f32.
pub const TANH_CLAMP: f32 = 9.0;

/// e^x.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // Below -104 the result is 0 even as a subnormal; above 89 it is
    // infinite. Clamping keeps n inside what the two scale factors cover.
    // (`max` and `min` drop a NaN; the NaN is restored at the end.)
    //
    // Below the clamp (a causal mask's -inf among them) the result is the
    // clamp's, 0 (tested), so those lanes compute from 0 instead and are
    // zeroed at the end: from -104 the last products would be subnormal,
    // which x86 cores finish in microcode, a hundred cycles a vector, and
    // that made attention's softmax three times slower.
    let underflows = x < EXP_CLAMP.0;
    #[allow(clippy::manual_clamp)] // `clamp` keeps the NaN, which must not reach the bit arithmetic
    let clamped = if underflows {
        0.0
    } else {
        x.max(EXP_CLAMP.0).min(EXP_CLAMP.1)
    };
    let k = clamped * LOG2_E + ROUNDER;
    let n = k.to_bits() as i32 - ROUNDER.to_bits() as i32;
    let n_f = k - ROUNDER;
    // r in [-ln2/2, ln2/2], computed in two steps to keep its low bits.
    let r = (clamped - n_f * LN2_HI) - n_f * LN2_LO;
    // Taylor series of e^r to r^7: truncation below 1e-8 relative.
    let p = horner(r, &EXP_TAYLOR);
    // 2^n as two factors, so that n from -151 to 129 needs no special
    // case: the product rounds to a subnormal, zero or infinity as it must.
    let half = n >> 1;
    let result = p * pow2(half) * pow2(n - half);
    if x.is_nan() {
        x
    } else if underflows {
        0.0
    } else {
        result
    }
}

/// e^y - 1 for y in [0, 18], accurate near 0 where `exp_f32(y) - 1` is
/// not, in one path: y = n ln 2 + r with |r| <= ln 2 / 2, then
/// e^y - 1 = 2^n (e^r - 1) + (2^n - 1), with e^r - 1 from its Taylor
/// series to r^8 (truncation below 1e-9 relative). For n = 0 that is the
/// series alone; otherwise the final addition loses at most a bit. (Two
/// paths, the series below 1 and `exp` above, cost a vector loop both.)
#[inline(always)]
fn expm1_nonneg(y: f32) -> f32 {
    let k = y * LOG2_E + ROUNDER;
    let n = k.to_bits() as i32 - ROUNDER.to_bits() as i32;
    let n_f = k - ROUNDER;
    let r = (y - n_f * LN2_HI) - n_f * LN2_LO;
    let em1_r = r * horner(r, &EXPM1_TAYLOR);
    // n is in [0, 26] for y in [0, 18]: 2^n is exact.
    let scale = pow2(n);
    scale * em1_r + (scale - 1.0)
}

/// tanh x = (e^2|x| - 1) / (e^2|x| + 1), with the sign of x.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    // tanh 9 rounds to 1 in f32; clamping keeps e^2|x| finite.
    let a = x.abs().min(TANH_CLAMP);
    let em1 = expm1_nonneg(2.0 * a);
    let t = em1 / (em1 + 2.0);
    if x.is_nan() {
        x
    } else {
        t.copysign(x)
    }
}

// Integer division as the reference computes it (in i64; an i32 result
// wraps to its low bits), which the CPU backend calls too.

/// Division rounded down; by zero 0 (as NumPy), `MIN / -1` wraps.
pub fn floor_div_int(x: i64, y: i64) -> i64 {
    if y == 0 {
        return 0;
    }
    let q = x.wrapping_div(y);
    let r = x.wrapping_rem(y);
    if r != 0 && ((r < 0) != (y < 0)) {
        q.wrapping_sub(1)
    } else {
        q
    }
}

/// The remainder with the divisor's sign; by zero 0 (as NumPy).
pub fn floor_mod_int(x: i64, y: i64) -> i64 {
    if y == 0 {
        return 0;
    }
    let r = x.wrapping_rem(y);
    if r != 0 && ((r < 0) != (y < 0)) {
        r.wrapping_add(y)
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between an f32 and the exact
    /// value (an f64 rounded to f32 once).
    fn ulps(got: f32, exact: f64) -> u32 {
        let want = exact as f32;
        if got == want || (got.is_nan() && want.is_nan()) {
            return 0;
        }
        let key = |v: f32| {
            let b = v.to_bits() as i64;
            if b < 0x8000_0000 {
                b
            } else {
                0x8000_0000 - b
            }
        };
        (key(got) - key(want)).unsigned_abs() as u32
    }

    /// Every 97th f32 bit pattern in the range, both signs.
    fn samples(lo: f32, hi: f32) -> impl Iterator<Item = f32> {
        (lo.to_bits()..hi.to_bits())
            .step_by(97)
            .map(f32::from_bits)
            .flat_map(|x| [x, -x])
    }

    #[test]
    fn exp_is_within_three_ulp_everywhere_it_is_finite() {
        let mut worst = 0;
        for x in samples(1e-10, 104.0) {
            let exact = f64::from(x).exp();
            // Subnormal results have fewer bits; judge them absolutely.
            if exact < f64::from(f32::MIN_POSITIVE) {
                assert!((f64::from(exp_f32(x)) - exact).abs() <= 1.5e-45, "{x}");
                continue;
            }
            worst = worst.max(ulps(exp_f32(x), exact));
        }
        assert!(worst <= 3, "worst {worst} ulp");
    }

    #[test]
    fn tanh_is_within_three_ulp() {
        let mut worst = 0;
        for x in samples(1e-30, 20.0).step_by(3) {
            worst = worst.max(ulps(tanh_f32(x), f64::from(x).tanh()));
        }
        assert!(worst <= 3, "worst {worst} ulp");
    }

    #[test]
    fn special_values_are_the_c_librarys() {
        assert!(exp_f32(f32::NAN).is_nan() && tanh_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh_f32(0.0).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn below_the_clamp_exp_is_the_clamps_zero() {
        // The shortcut for arguments below the clamp changes no result:
        // the clamp itself computes to +0.
        assert_eq!(exp_f32(EXP_CLAMP.0).to_bits(), 0);
        for x in [-104.5, -1e30, f32::MIN, f32::NEG_INFINITY] {
            assert_eq!(exp_f32(x).to_bits(), 0, "{x}");
        }
        // Just above, results are subnormal and not yet 0.
        assert!(exp_f32(-103.0) > 0.0);
    }

    #[test]
    fn taylor_tables_are_the_inverse_factorials_as_written() {
        assert_eq!(EXP_TAYLOR[0], 1.0 / 5040.0);
        assert_eq!(EXP_TAYLOR[4..], [1.0 / 6.0, 0.5, 1.0, 1.0]);
        assert_eq!(EXPM1_TAYLOR[0], 1.0 / 40_320.0);
        assert_eq!(EXPM1_TAYLOR[5..], [1.0 / 6.0, 0.5, 1.0]);
    }
}
