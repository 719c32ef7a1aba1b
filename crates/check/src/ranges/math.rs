//! The math the checker knows (`docs/shapescript/ranges.md`): each Python
//! function the prelude's stubs name, with the range of its results over
//! an interval of arguments and the edge of its domain. An extern fn that
//! names one of them, in the prelude or not, gets this math, and so does
//! the `math` function a call on Python numbers becomes (`math.log`).

use super::interval::Interval;

/// A function whose math the checker knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Exp,
    Log,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Erf,
    Gelu,
    Silu,
    Softplus,
    LogSigmoid,
}

/// What a function's argument must be (its domain's edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Above 0 (`log`, `rsqrt`).
    Positive,
    /// 0 or above (`sqrt`).
    NonNegative,
    /// Above -1 (`log1p`).
    AboveMinusOne,
}

impl MathFn {
    /// The function a dotted Python name stands for.
    pub fn from_python(python: &str) -> Option<MathFn> {
        Some(match python {
            // On Python numbers the prelude's stubs call `math`'s, which
            // raise a ValueError outside the domain.
            "torch.exp" | "math.exp" => MathFn::Exp,
            "torch.log" | "math.log" => MathFn::Log,
            "torch.log1p" | "math.log1p" => MathFn::Log1p,
            "torch.expm1" | "math.expm1" => MathFn::Expm1,
            "torch.sqrt" | "math.sqrt" => MathFn::Sqrt,
            "torch.rsqrt" => MathFn::Rsqrt,
            "torch.sin" | "math.sin" => MathFn::Sin,
            "torch.cos" | "math.cos" => MathFn::Cos,
            "torch.tanh" | "math.tanh" => MathFn::Tanh,
            "torch.sigmoid" => MathFn::Sigmoid,
            "torch.erf" | "math.erf" => MathFn::Erf,
            "torch.nn.functional.gelu" => MathFn::Gelu,
            "torch.nn.functional.silu" => MathFn::Silu,
            "torch.nn.functional.softplus" => MathFn::Softplus,
            "torch.nn.functional.logsigmoid" => MathFn::LogSigmoid,
            _ => return None,
        })
    }

    /// Whether it is increasing and positive at 0 (`exp`, `sigmoid`,
    /// `softplus`): a row's largest value stays its largest, and a 0 there
    /// becomes positive (`Interval::row_zero_axis`).
    pub fn keeps_row_max(self) -> bool {
        matches!(self, MathFn::Exp | MathFn::Sigmoid | MathFn::Softplus)
    }

    /// The edge its argument must keep to, for the functions with one.
    pub fn edge(self) -> Option<Edge> {
        match self {
            MathFn::Log | MathFn::Rsqrt => Some(Edge::Positive),
            MathFn::Sqrt => Some(Edge::NonNegative),
            MathFn::Log1p => Some(Edge::AboveMinusOne),
            _ => None,
        }
    }

    /// The range of its results over `x` (the part of `x` inside its
    /// domain), as floats compute them (`rounded`).
    pub fn apply(self, x: &Interval) -> Interval {
        // Within what the function ever gives: `erf` is never past 1.
        let r = rounded(self.exact(x)).narrow_to(&rounded(self.exact(&Interval::REAL)));
        match self {
            MathFn::Gelu if x.lo < 0.0 => gelu_cancelled(r, x),
            // `1 / (1 + exp(-x))`: `exp(-x)` overflows to inf in f32 below
            // about -88.7, and the quotient is 0 (`sigmoid(-100)` is
            // 3.7e-44, PyTorch's f32 0).
            MathFn::Sigmoid | MathFn::Silu if x.lo < -87.0 => r.union(&Interval::point(0.0)),
            _ => r,
        }
    }

    /// The range of its results in exact arithmetic.
    fn exact(self, x: &Interval) -> Interval {
        match self {
            MathFn::Exp => x.monotone(f64::exp, true),
            MathFn::Log => positive_part(x).monotone(f64::ln, true),
            MathFn::Log1p => x
                .narrow_to(&Interval::new(-1.0, f64::INFINITY, true, true))
                .monotone(f64::ln_1p, true),
            MathFn::Expm1 => x.monotone(f64::exp_m1, true),
            MathFn::Sqrt => x.narrow_to(&Interval::NON_NEG).monotone(f64::sqrt, true),
            MathFn::Rsqrt => positive_part(x).monotone(|v| 1.0 / v.sqrt(), false),
            MathFn::Sin | MathFn::Cos => Interval::SIGNED,
            MathFn::Tanh => x.monotone(f64::tanh, true),
            MathFn::Sigmoid => x.monotone(sigmoid, true),
            MathFn::Erf => x.monotone(erf, true),
            MathFn::Softplus => x.monotone(softplus, true),
            MathFn::LogSigmoid => x.monotone(|v| -softplus(-v), true),
            // Both dip below 0 once, at `at`, to `min`; increasing after it.
            MathFn::Gelu => dip(
                x,
                |v| v * 0.5 * (1.0 + erf(v / std::f64::consts::SQRT_2)),
                -0.751_791_524_693_564,
                -0.169_971_085_172_652,
            ),
            MathFn::Silu => dip(
                x,
                |v| v * sigmoid(v),
                -1.278_464_542_761_074,
                -0.278_464_542_761_074,
            ),
        }
    }
}

/// The floats a function's results may be, given their exact range: a
/// float function rounds, so an end it only tends to is reached (`exp(-104)`
/// is 0 in f32, `sigmoid(17)` is 1, `tanh(10)` is 1), and an end it attains
/// may be off by a rounding. Finite ends are closed, and those other than
/// 0 and ±1 (which are floats, and the bounds of these functions) move out
/// by 2^-7 of their size: a bf16 rounding of a result computed in f32
/// (`docs/shapescript/ranges.md`, "Rounding").
fn rounded(iv: Interval) -> Interval {
    const SLACK: f64 = 1.0 / 128.0;
    let exact = |v: f64| v == 0.0 || v.abs() == 1.0 || v.is_infinite();
    let lo = if exact(iv.lo) {
        iv.lo
    } else {
        iv.lo - iv.lo.abs() * SLACK
    };
    let hi = if exact(iv.hi) {
        iv.hi
    } else {
        iv.hi + iv.hi.abs() * SLACK
    };
    Interval::new(lo, hi, false, false)
}

/// PyTorch's `gelu` is `x (1 + erf(x / sqrt 2)) / 2`; for negative `x`,
/// `1 + erf` cancels, in f32 (which bf16 and f16 compute in) to within an
/// f32 spacing of 1 (2^-24 below 1): an absolute error up to `|x| 2^-24`,
/// 4% at -5, and 0 below about -5.3 (`gelu(-6)` is -6e-9, PyTorch's f32
/// 0). Past -6 the sum is 0 and the result exact.
fn gelu_cancelled(r: Interval, x: &Interval) -> Interval {
    let slack = x.lo.abs().min(6.0) * 2f64.powi(-23);
    // `1 + erf` is never below 0: negative `x` gives 0 at the most.
    let hi = if x.hi <= 0.0 {
        (r.hi + slack).min(0.0)
    } else {
        r.hi + slack
    };
    Interval::new(r.lo - slack, hi, false, r.hi_open && hi < 0.0)
}

/// The values of `x` above 0 (where `log` and `rsqrt` are defined).
fn positive_part(x: &Interval) -> Interval {
    x.narrow_to(&Interval::POS)
}

/// A function decreasing down to `min` at `at` and increasing after it,
/// going to 0 at minus infinity and to infinity at infinity.
fn dip(x: &Interval, f: impl Fn(f64) -> f64, at: f64, min: f64) -> Interval {
    let end = |v: f64| match v {
        f64::NEG_INFINITY => 0.0,
        f64::INFINITY => f64::INFINITY,
        v => f(v),
    };
    if x.lo >= at {
        return x.monotone(end, true);
    }
    if x.hi <= at {
        return x.monotone(end, false);
    }
    // The minimum is a value; a little room for rounding below it.
    let hi = end(x.lo).max(end(x.hi));
    let hi_open = if end(x.lo) > end(x.hi) {
        x.lo_open
    } else {
        x.hi_open
    };
    Interval::new(min - 1e-9, hi, false, hi_open)
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// `log(1 + e^v)`, without overflow.
fn softplus(v: f64) -> f64 {
    if v > 30.0 {
        v
    } else {
        v.exp().ln_1p()
    }
}

/// The error function, within an ulp (musl's, through `libm`): an
/// approximation of absolute error 1e-7 is wrong by far more than its size
/// near 0, where `erf(x)` is about `1.128 x` (`erf(2^-24)`).
fn erf(v: f64) -> f64 {
    libm::erf(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(f: &str, x: Interval) -> String {
        MathFn::from_python(f).unwrap().apply(&x).to_string()
    }

    #[test]
    fn known_functions_map_ranges_exactly() {
        // The ends a function only tends to are reached in floats.
        assert_eq!(range("torch.exp", Interval::REAL), "[0, inf)");
        assert_eq!(range("torch.sqrt", Interval::REAL), "[0, inf)");
        assert_eq!(range("torch.sigmoid", Interval::REAL), "[0, 1]");
        assert_eq!(range("torch.tanh", Interval::REAL), "[-1, 1]");
        assert_eq!(range("torch.expm1", Interval::REAL), "[-1, inf)");
        assert_eq!(
            range("torch.nn.functional.softplus", Interval::REAL),
            "[0, inf)"
        );
        assert_eq!(
            range("torch.nn.functional.logsigmoid", Interval::REAL),
            "(-inf, 0]"
        );
        assert_eq!(
            range("torch.log", Interval::NON_NEG.add(&Interval::point(1.0))),
            "[0, inf)"
        );
        assert_eq!(
            range("torch.nn.functional.gelu", Interval::NON_NEG),
            "[0, inf)"
        );
        assert!(MathFn::from_python("torch.nn.functional.gelu")
            .unwrap()
            .apply(&Interval::REAL)
            .contains(-0.1699));
        assert_eq!(range("torch.erf", Interval::REAL), "[-1, 1]");
        // An end a function attains moves out by a rounding.
        let gelu = MathFn::Gelu.apply(&Interval::point(2.0));
        assert!(gelu.contains(1.954_499_736_103_641_6) && gelu.contains(1.954_499_874_225_487_3));
        assert_eq!(
            MathFn::from_python("torch.log").unwrap().edge(),
            Some(Edge::Positive)
        );
        assert_eq!(MathFn::from_python("torch.relu"), None);
    }
}
