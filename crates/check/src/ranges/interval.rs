//! Intervals with open or closed ends, and the arithmetic the range pass
//! does with them (`docs/shapescript/ranges.md`). A value's interval holds
//! every value it can take; an infinite end is always open. Plain `Copy`
//! data: the pass allocates nothing per expression.

use std::fmt;

use crate::dims::DimValues;
use crate::typed::Range;
use crate::types::Domain;

const INF: f64 = f64::INFINITY;

/// The values a tensor or number can take: `lo..hi`, each end open or
/// closed. Never empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    pub lo_open: bool,
    pub hi_open: bool,
    /// The axis (its position) along which these values hold each row's
    /// largest value of a `softmax` over that axis (`softmax`'s own values,
    /// `topk` of them over it): that value is at least 1/n, in floats too,
    /// so a sum, `max` or `mean` over the axis is positive
    /// (docs/shapescript/ranges.md). Kept only by a name and the operations
    /// that set it.
    pub row_max_axis: Option<u8>,
    /// The axis along which each row holds a 0 that is its largest value:
    /// `x - max(x, over=n)`, whose row maximum is `x`'s own minus itself.
    /// An increasing function positive at 0 (`exp`) turns it into a
    /// `row_max_axis` (the row's largest value, `exp(0) = 1`, is positive),
    /// so `log(sum(exp(x - max(x, over=n)), over=n))` checks.
    pub row_zero_axis: Option<u8>,
}

impl Interval {
    pub const REAL: Interval = Interval::new(-INF, INF, true, true);
    pub const NON_NEG: Interval = Interval::new(0.0, INF, false, true);
    pub const POS: Interval = Interval::new(0.0, INF, true, true);
    pub const NON_POS: Interval = Interval::new(-INF, 0.0, true, false);
    pub const NEG: Interval = Interval::new(-INF, 0.0, true, true);
    pub const UNIT: Interval = Interval::new(0.0, 1.0, false, false);
    pub const SIGNED: Interval = Interval::new(-1.0, 1.0, false, false);

    pub const fn new(lo: f64, hi: f64, lo_open: bool, hi_open: bool) -> Interval {
        Interval {
            lo,
            hi,
            lo_open: lo_open || lo == -INF,
            hi_open: hi_open || hi == INF,
            row_max_axis: None,
            row_zero_axis: None,
        }
    }

    /// The floats of a dtype whose significand has `bits` bits (8 for
    /// bf16, 11 for f16, 24 for f32) that hold these values: each end not
    /// on the dtype's grid moves out to the next value on it, so a value
    /// computed exactly within the ends and rounded to the dtype stays
    /// within them (rounding is monotone). 0, ±1 and whole numbers the grid
    /// holds stay as they are. The exponent range is f32's (bf16's).
    pub fn on_grid(&self, bits: u32) -> Interval {
        let lo = grid_below(self.lo, bits);
        let hi = -grid_below(-self.hi, bits);
        // Rounding reaches an open end (`x + 1` of `x > 1` may round to
        // exactly 2), but for 0: a sum of positive floats stays positive.
        // (A product of tiny ones may underflow to 0: docs/shapescript/ranges.md.)
        let open = |end: f64, moved: f64, open: bool| open && moved == end && end == 0.0;
        let (lo_open, hi_open) = (
            open(self.lo, lo, self.lo_open),
            open(self.hi, hi, self.hi_open),
        );
        if lo == self.lo && hi == self.hi && lo_open == self.lo_open && hi_open == self.hi_open {
            return *self;
        }
        let mut out = Interval::new(lo, hi, lo_open, hi_open);
        out.row_max_axis = self.row_max_axis;
        out.row_zero_axis = self.row_zero_axis;
        out
    }

    /// Its values as floats of largest finite value `max`: an end past it
    /// may be an infinity (a sum of 100000 ones is inf in f16).
    pub fn overflowing(&self, max: f64) -> Interval {
        let mut out = *self;
        if self.hi.is_finite() && self.hi > max {
            (out.hi, out.hi_open) = (INF, true);
        }
        if self.lo.is_finite() && self.lo < -max {
            (out.lo, out.lo_open) = (-INF, true);
        }
        out
    }

    /// A product's, quotient's or power's values as floats (any float
    /// dtype's, f64 and Python's `float` too): positive values tiny enough
    /// multiply to 0, so an open 0 end is reached (`0.5 ** 1000`, `1e-30 *
    /// 1e-30`, `1e-200 * 1e-200` in f64); `floats` is false for integers.
    pub fn underflowing(&self, floats: bool) -> Interval {
        if !floats {
            return *self;
        }
        let mut out = *self;
        out.lo_open &= self.lo != 0.0;
        out.hi_open &= self.hi != 0.0;
        out
    }

    /// A Python number as it meets an f16 tensor: magnitudes below half
    /// f16's least subnormal (2^-25) are 0 there (`1e-8` is 0 in f16, so
    /// `x * x + 1e-8` may be 0). A large one is not an infinity: PyTorch
    /// computes in f32 and rounds the result (`x * 70000.0 / 70000.0` of
    /// 0.5 is 0.5), whose own overflow `Interval::overflowing` takes.
    pub fn in_f16(&self) -> Interval {
        const TINY: f64 = 2.980_232_238_769_531_3e-8;
        let round = |v: f64| if v.abs() < TINY { 0.0 } else { v };
        let (lo, hi) = (round(self.lo), round(self.hi));
        if lo == self.lo && hi == self.hi {
            return *self;
        }
        Interval::new(lo.min(hi), lo.max(hi), false, false)
    }

    /// One number.
    pub fn point(v: f64) -> Interval {
        if v.is_nan() {
            return Interval::REAL;
        }
        Interval::new(v, v, false, false)
    }

    /// A closed interval, or `REAL` for bounds that make none.
    pub fn closed(lo: f64, hi: f64) -> Interval {
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return Interval::REAL;
        }
        Interval::new(lo, hi, false, false)
    }

    /// The interval a domain declares; `Index[N]` is `[0, N - 1]`, or
    /// `[0, inf)` when `N` isn't known before the program runs.
    pub fn of_domain(domain: &Domain, dims: &DimValues) -> Interval {
        match domain {
            Domain::Real => Interval::REAL,
            Domain::NonNeg => Interval::NON_NEG,
            Domain::Pos => Interval::POS,
            Domain::NonPos => Interval::NON_POS,
            Domain::Neg => Interval::NEG,
            Domain::Unit | Domain::Bool => Interval::UNIT,
            Domain::Signed => Interval::SIGNED,
            Domain::Index(n) => match dims.value(&n.poly).or(n.poly.as_constant()) {
                Some(n) if n >= 1 => Interval::closed(0.0, (n - 1) as f64),
                _ => Interval::NON_NEG,
            },
        }
    }

    /// The name of the domain this interval is exactly, if any.
    pub fn domain_name(&self) -> Option<&'static str> {
        let named = [
            (Interval::REAL, "Real"),
            (Interval::NON_NEG, "NonNeg"),
            (Interval::POS, "Pos"),
            (Interval::NON_POS, "NonPos"),
            (Interval::NEG, "Neg"),
            (Interval::UNIT, "Unit"),
            (Interval::SIGNED, "Signed"),
        ];
        named
            .iter()
            .find(|(i, _)| i.same_set(self))
            .map(|(_, name)| *name)
    }

    /// The same values (ignoring the flags).
    pub fn same_set(&self, other: &Interval) -> bool {
        self.lo == other.lo
            && self.hi == other.hi
            && self.lo_open == other.lo_open
            && self.hi_open == other.hi_open
    }

    /// Whether `v` may be a value.
    pub fn contains(&self, v: f64) -> bool {
        let above = self.lo < v || (self.lo == v && !self.lo_open);
        let below = v < self.hi || (self.hi == v && !self.hi_open);
        above && below
    }

    /// Whether some value may be `v` or less.
    pub fn reaches_down_to(&self, v: f64) -> bool {
        self.lo < v || (self.lo == v && !self.lo_open)
    }

    /// Whether some value may be less than `v`.
    pub fn goes_below(&self, v: f64) -> bool {
        self.lo < v
    }

    /// Whether every value of `self` is a value of `outer`.
    pub fn within(&self, outer: &Interval) -> bool {
        let lo_ok = outer.lo < self.lo || (outer.lo == self.lo && (!outer.lo_open || self.lo_open));
        let hi_ok = self.hi < outer.hi || (outer.hi == self.hi && (!outer.hi_open || self.hi_open));
        lo_ok && hi_ok
    }

    /// The values in both, `None` when there are none.
    pub fn intersect(&self, other: &Interval) -> Option<Interval> {
        let (lo, lo_open) = match self.lo.total_cmp(&other.lo) {
            std::cmp::Ordering::Less => (other.lo, other.lo_open),
            std::cmp::Ordering::Greater => (self.lo, self.lo_open),
            std::cmp::Ordering::Equal => (self.lo, self.lo_open || other.lo_open),
        };
        let (hi, hi_open) = match self.hi.total_cmp(&other.hi) {
            std::cmp::Ordering::Greater => (other.hi, other.hi_open),
            std::cmp::Ordering::Less => (self.hi, self.hi_open),
            std::cmp::Ordering::Equal => (self.hi, self.hi_open || other.hi_open),
        };
        let empty = lo > hi || (lo == hi && (lo_open || hi_open));
        (!empty).then_some(Interval {
            lo,
            hi,
            lo_open,
            hi_open,
            ..*self
        })
    }

    /// The smallest interval holding both.
    pub fn union(&self, other: &Interval) -> Interval {
        let (lo, lo_open) = lower_min(self.lo, self.lo_open, other.lo, other.lo_open);
        let (hi, hi_open) = upper_max(self.hi, self.hi_open, other.hi, other.hi_open);
        Interval::new(lo, hi, lo_open, hi_open)
    }

    /// The values of both; `outer` when they don't meet (a claim that
    /// overrides what the checker saw).
    pub fn narrow_to(&self, outer: &Interval) -> Interval {
        let (lo, lo_open) = if self.lo > outer.lo || (self.lo == outer.lo && self.lo_open) {
            (self.lo, self.lo_open)
        } else {
            (outer.lo, outer.lo_open)
        };
        let (hi, hi_open) = if self.hi < outer.hi || (self.hi == outer.hi && self.hi_open) {
            (self.hi, self.hi_open)
        } else {
            (outer.hi, outer.hi_open)
        };
        if lo > hi || (lo == hi && (lo_open || hi_open)) {
            return *outer;
        }
        let mut out = Interval::new(lo, hi, lo_open, hi_open);
        // A declared domain that holds every value changes none of them.
        if out.same_set(self) {
            out.row_max_axis = self.row_max_axis;
        }
        out
    }

    /// The values of a sum, `max` or `mean` over an axis holding each row's
    /// largest `softmax` value: never below it, so above 0 (the upper end
    /// is `self`'s).
    pub fn above_row_max(&self) -> Interval {
        let mut out = self.narrow_to(&Interval::POS);
        out.row_max_axis = None;
        out
    }

    pub fn neg(&self) -> Interval {
        Interval::new(-self.hi, -self.lo, self.hi_open, self.lo_open)
    }

    pub fn add(&self, other: &Interval) -> Interval {
        Interval::new(
            self.lo + other.lo,
            self.hi + other.hi,
            self.lo_open || other.lo_open,
            self.hi_open || other.hi_open,
        )
    }

    pub fn sub(&self, other: &Interval) -> Interval {
        self.add(&other.neg())
    }

    /// The products of values of both: the hull of the ends' products (a
    /// closed 0 times anything is a closed 0).
    pub fn mul(&self, other: &Interval) -> Interval {
        self.hull_of_ends(other, |a, ao, b, bo| {
            if (a == 0.0 && !ao) || (b == 0.0 && !bo) {
                (0.0, false)
            } else if a == 0.0 || b == 0.0 {
                (0.0, true)
            } else {
                (a * b, ao || bo)
            }
        })
    }

    /// The hull of `f` over each pair of ends (`f` gives a value and
    /// whether it is only approached), as products and quotients are.
    fn hull_of_ends(
        &self,
        other: &Interval,
        f: impl Fn(f64, bool, f64, bool) -> (f64, bool),
    ) -> Interval {
        let ends = |i: &Interval| [(i.lo, i.lo_open), (i.hi, i.hi_open)];
        let mut lo = (INF, true);
        let mut hi = (-INF, true);
        for (a, ao) in ends(self) {
            for (b, bo) in ends(other) {
                let (v, open) = f(a, ao, b, bo);
                lo = lower_min(lo.0, lo.1, v, open);
                hi = upper_max(hi.0, hi.1, v, open);
            }
        }
        Interval::new(lo.0, hi.0, lo.1, hi.1)
    }

    /// `x * x`: never negative.
    pub fn square(&self) -> Interval {
        let abs = self.abs();
        abs.mul(&abs)
    }

    /// The quotients of values of both; `REAL` when 0 is a value of
    /// `other`. Each end is the quotient of two ends rounded once, as
    /// PyTorch's and Python's division rounds (not `self * (1 / other)`,
    /// which rounds twice: `2.5 / 1.5` is 1.6666666666666667, `2.5 * (1 /
    /// 1.5)` 1.6666666666666665).
    pub fn div(&self, other: &Interval) -> Interval {
        if other.contains(0.0) || (other.lo < 0.0 && other.hi > 0.0) {
            return Interval::REAL;
        }
        // The sign of `other`'s values: an open 0 end is approached from it.
        let side = if other.hi <= 0.0 { -1.0 } else { 1.0 };
        self.hull_of_ends(other, |a, ao, b, bo| quotient(a, ao, b, bo, side))
    }

    /// Each finite end that `keep` does not hold moves out by `steps`
    /// spacings of the floats with `bits` significand bits there (not past
    /// 0): room for the roundings PyTorch does that this arithmetic does
    /// not (a tensor divided by a number is multiplied by its reciprocal
    /// on a GPU, `x ** 3` is `x * x * x`, a mean rounds in its sum).
    pub fn moved_out(&self, bits: u32, steps: f64, keep: impl Fn(f64) -> bool) -> Interval {
        let moves = |v: f64| v.is_finite() && !keep(v);
        let lo = if moves(self.lo) {
            let lo = self.lo - grid_step(self.lo, bits) * steps;
            if self.lo > 0.0 {
                lo.max(0.0)
            } else {
                lo
            }
        } else {
            self.lo
        };
        let hi = if moves(self.hi) {
            let hi = self.hi + grid_step(self.hi, bits) * steps;
            if self.hi < 0.0 {
                hi.min(0.0)
            } else {
                hi
            }
        } else {
            self.hi
        };
        if lo == self.lo && hi == self.hi {
            return *self;
        }
        let mut out = Interval::new(
            lo,
            hi,
            self.lo_open && lo == self.lo,
            self.hi_open && hi == self.hi,
        );
        out.row_max_axis = self.row_max_axis;
        out.row_zero_axis = self.row_zero_axis;
        out
    }

    /// `x ** p` for a constant `p`.
    pub fn powf(&self, p: f64) -> Interval {
        if p == 0.0 {
            return Interval::point(1.0);
        }
        if p == 1.0 {
            return *self;
        }
        let whole = p.fract() == 0.0 && p.abs() < 64.0;
        if whole && p > 0.0 {
            let base = if p as i64 % 2 == 0 { self.abs() } else { *self };
            return base.monotone(|v| v.powf(p), true);
        }
        if self.lo >= 0.0 {
            if p > 0.0 {
                return self.monotone(|v| v.powf(p), true);
            }
            if !self.contains(0.0) {
                return self.monotone(|v| v.powf(p), false);
            }
            return Interval::POS;
        }
        Interval::REAL
    }

    /// A monotone function of the values: increasing, or decreasing.
    pub fn monotone(&self, f: impl Fn(f64) -> f64, increasing: bool) -> Interval {
        let (a, b) = (f(self.lo), f(self.hi));
        if a.is_nan() || b.is_nan() {
            return Interval::REAL;
        }
        if increasing {
            Interval::new(a, b, self.lo_open, self.hi_open)
        } else {
            Interval::new(b, a, self.hi_open, self.lo_open)
        }
    }

    pub fn abs(&self) -> Interval {
        if !self.goes_below(0.0) {
            *self
        } else if self.hi <= 0.0 {
            self.neg()
        } else {
            let (hi, hi_open) = upper_max(-self.lo, self.lo_open, self.hi, self.hi_open);
            Interval::new(0.0, hi, false, hi_open)
        }
    }

    /// The larger of two values, elementwise.
    pub fn maximum(&self, other: &Interval) -> Interval {
        let (lo, lo_open) = upper_max(self.lo, self.lo_open, other.lo, other.lo_open);
        let (hi, hi_open) = upper_max(self.hi, self.hi_open, other.hi, other.hi_open);
        Interval::new(lo, hi, lo_open, hi_open)
    }

    /// The smaller of two values, elementwise.
    pub fn minimum(&self, other: &Interval) -> Interval {
        self.neg().maximum(&other.neg()).neg()
    }

    /// `-1`, `0` or `1` by the sign.
    pub fn sign(&self) -> Interval {
        let sign_of = |v: f64, open: bool, low: bool| {
            if v > 0.0 || (v == 0.0 && open && low) {
                1.0
            } else if v < 0.0 || (v == 0.0 && open) {
                -1.0
            } else {
                0.0
            }
        };
        Interval::closed(
            sign_of(self.lo, self.lo_open, true),
            sign_of(self.hi, self.hi_open, false),
        )
    }

    /// A sum of one or more such values (a reduction over an axis, `@`):
    /// the sign is kept; the size is unbounded.
    pub fn sum_of(&self) -> Interval {
        if !self.goes_below(0.0) {
            Interval::new(self.lo, INF, self.lo_open, true)
        } else if self.hi <= 0.0 {
            Interval::new(-INF, self.hi, true, self.hi_open)
        } else {
            Interval::REAL
        }
    }

    /// A product of one or more such values (`prod`).
    pub fn product_of(&self) -> Interval {
        if self.within(&Interval::UNIT) {
            Interval::new(0.0, self.hi, !self.contains(0.0), self.hi_open)
        } else if !self.goes_below(0.0) {
            Interval::new(0.0, INF, !self.contains(0.0), true)
        } else {
            Interval::REAL
        }
    }
}

/// The lower of two lower ends; closed wins a tie.
fn lower_min(a: f64, a_open: bool, b: f64, b_open: bool) -> (f64, bool) {
    if a < b {
        (a, a_open)
    } else if b < a {
        (b, b_open)
    } else {
        (a, a_open && b_open)
    }
}

/// The higher of two upper ends; closed wins a tie.
fn upper_max(a: f64, a_open: bool, b: f64, b_open: bool) -> (f64, bool) {
    if a > b {
        (a, a_open)
    } else if b > a {
        (b, b_open)
    } else {
        (a, a_open && b_open)
    }
}

impl Interval {
    /// A recorded range (a narrowing's plan) as an interval.
    pub fn of_range(r: Range) -> Interval {
        Interval::new(r.lo, r.hi, r.lo_open, r.hi_open)
    }

    /// As recorded for consumers (`TypedExpr::range`).
    pub fn to_range(self) -> Range {
        Range {
            lo: self.lo,
            hi: self.hi,
            lo_open: self.lo_open,
            hi_open: self.hi_open,
        }
    }
}

impl fmt::Display for Interval {
    /// `[0, 1]`, `(0, inf)`, `[1e-5, inf)`; one number for a point.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_range().fmt(f)
    }
}

/// `a / b` for ends `a` and `b` of two intervals, `b`'s values all of the
/// sign `side` (never 0): the quotient, and whether it is only approached.
fn quotient(a: f64, a_open: bool, b: f64, b_open: bool, side: f64) -> (f64, bool) {
    if a == 0.0 && !a_open {
        (0.0, false)
    } else if b.is_infinite() || (a == 0.0 && b == 0.0) {
        // Values of `b` grow without end (or both shrink to 0, where the
        // other ends bound the quotients): towards 0, never it.
        (0.0, true)
    } else if b == 0.0 || a.is_infinite() {
        (a.signum() * side * INF, true)
    } else {
        (a / b, a_open || b_open)
    }
}

/// The spacing of the floats of `bits` significand bits at `v` (the larger
/// one where `v` is a power of two's neighbour), f32's exponent range for
/// 24 bits and fewer, f64's above.
fn grid_step(v: f64, bits: u32) -> f64 {
    let least = if bits > 24 { -1022.0 } else { -126.0 };
    let exponent = v.abs().log2().floor().max(least);
    (exponent - f64::from(bits - 1)).exp2()
}

/// The largest float of `bits` significand bits (and f32's exponent range,
/// its subnormals included) that is at most `v`.
fn grid_below(v: f64, bits: u32) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    // f32's least subnormal: below it, in size, the grid holds only 0.
    const TINY: f64 = 1.401_298_464_324_817e-45;
    if v.abs() < TINY {
        return if v > 0.0 { 0.0 } else { -TINY };
    }
    let exponent = v.abs().log2().floor().max(-126.0);
    let step = (exponent - f64::from(bits - 1)).exp2();
    let below = (v / step).floor() * step;
    if below > v {
        below - step
    } else {
        below
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_keeps_open_and_closed_ends() {
        let one = Interval::point(1.0);
        assert_eq!(Interval::NON_NEG.add(&one).to_string(), "[1, inf)");
        assert_eq!(one.div(&Interval::POS.add(&one)).to_string(), "(0, 1)");
        assert_eq!(Interval::UNIT.mul(&Interval::POS).to_string(), "[0, inf)");
        assert_eq!(Interval::REAL.square().to_string(), "[0, inf)");
        assert_eq!(Interval::SIGNED.powf(2.0).to_string(), "[0, 1]");
        assert_eq!(Interval::NON_NEG.powf(0.5).to_string(), "[0, inf)");
        assert_eq!(one.div(&Interval::NON_NEG), Interval::REAL);
        assert_eq!(Interval::REAL.abs(), Interval::NON_NEG);
        assert_eq!(Interval::POS.neg(), Interval::NEG);
        assert_eq!(Interval::REAL.sign().to_string(), "[-1, 1]");
        assert_eq!(Interval::POS.sign().to_string(), "{1}");
        assert_eq!(Interval::UNIT.sum_of(), Interval::NON_NEG);
        assert_eq!(
            Interval::REAL.maximum(&Interval::point(0.0)),
            Interval::NON_NEG
        );
        assert_eq!(Interval::UNIT.product_of(), Interval::UNIT);
    }

    #[test]
    fn a_reduction_holding_a_softmax_rows_largest_value_is_positive() {
        let probs = Interval {
            row_max_axis: Some(1),
            ..Interval::UNIT
        };
        assert_eq!(probs.sum_of().above_row_max().to_string(), "(0, inf)");
        assert_eq!(probs.above_row_max().to_string(), "(0, 1]");
        assert!(!probs.above_row_max().contains(0.0));
        // A declared domain holding every value keeps the axis; one that
        // changes them doesn't.
        assert_eq!(probs.narrow_to(&Interval::NON_NEG).row_max_axis, Some(1));
        assert_eq!(probs.narrow_to(&Interval::NON_POS).row_max_axis, None);
    }

    #[test]
    fn containment_and_edges() {
        assert!(Interval::POS.within(&Interval::NON_NEG));
        assert!(!Interval::NON_NEG.within(&Interval::POS));
        assert!(Interval::NON_NEG.reaches_down_to(0.0));
        assert!(!Interval::POS.reaches_down_to(0.0));
        assert_eq!(Interval::POS.domain_name(), Some("Pos"));
        assert_eq!(
            Interval::REAL.narrow_to(&Interval::UNIT).domain_name(),
            Some("Unit")
        );
    }
}
