//! Sizes that divide with rounding (extern return types only): a flat
//! formula of polynomials and operations, kept unevaluated until a call's
//! arguments give its symbols values.

use smallvec::SmallVec;

use super::{Poly, SizeError, Symbol, Term};

/// A size expression that can't be a polynomial yet because it divides with
/// rounding (extern return types only): kept unevaluated and worked out at
/// each call once the arguments give its symbols values. Flat, in postfix
/// order (`(H + 2*P - kh)/S + 1` is `[H+2P-kh, S, /, 1, +]`): one list,
/// not a box per operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formula(Vec<Step>);

/// One step of a `Formula`: push a polynomial, or apply an operation to the
/// two values on top (the left operand below the right).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Poly(Poly),
    Add,
    Sub,
    Mul,
    /// Rounds down; with symbols, only where that rounds alike for every
    /// value of them (`Poly::div_floor`).
    FloorDiv,
}

impl Formula {
    /// The formula that is just `poly`.
    pub fn poly(poly: Poly) -> Formula {
        // Room for the common `(a)/b + c`: one allocation.
        let mut steps = Vec::with_capacity(5);
        steps.push(Step::Poly(poly));
        Formula(steps)
    }

    /// `self op other`, with `op` one of the operation steps.
    pub fn apply(mut self, op: Step, other: Formula) -> Formula {
        debug_assert!(!matches!(op, Step::Poly(_)), "an operation");
        self.0.extend(other.0);
        self.0.push(op);
        self
    }

    /// `self op other` for a polynomial `other`.
    pub fn apply_poly(mut self, op: Step, other: Poly) -> Formula {
        debug_assert!(!matches!(op, Step::Poly(_)), "an operation");
        self.0.push(Step::Poly(other));
        self.0.push(op);
        self
    }

    /// The steps, in postfix order.
    pub fn steps(&self) -> &[Step] {
        &self.0
    }

    /// Evaluates after substituting symbols; see `Poly::substitute`. Errors
    /// as the nested evaluation gives them: the left operand's first.
    pub fn eval(&self, value: &dyn Fn(&Symbol) -> Option<Poly>) -> Result<Poly, SizeError> {
        self.run(value).map_err(|(e, _)| e)
    }

    /// The operands of the first division that `eval` finds inexact (the
    /// rounding would depend on a symbol's value), after substitution: what
    /// a diagnostic shows to say which sizes to change.
    pub fn inexact_division(
        &self,
        value: &dyn Fn(&Symbol) -> Option<Poly>,
    ) -> Option<(Poly, Poly)> {
        self.run(value).err().and_then(|(_, operands)| operands)
    }

    /// `eval`, with the operands of the division that failed, if one did.
    fn run(
        &self,
        value: &dyn Fn(&Symbol) -> Option<Poly>,
    ) -> Result<Poly, (SizeError, Option<(Poly, Poly)>)> {
        let mut stack: SmallVec<[Poly; 4]> = SmallVec::new();
        for step in &self.0 {
            let result = match step {
                Step::Poly(p) => p.substitute(value).map_err(|e| (e, None))?,
                op => {
                    let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                        unreachable!("a formula's operations have two operands")
                    };
                    match op {
                        Step::Add => a.add(&b),
                        Step::Sub => a.sub(&b),
                        Step::Mul => a.mul(&b),
                        _ => match a.div_floor(&b) {
                            Err(e @ (SizeError::Inexact | SizeError::DivisorNotATerm)) => {
                                return Err((e, Some((a, b))))
                            }
                            q => q,
                        },
                    }
                    .map_err(|e| (e, None))?
                }
            };
            stack.push(result);
        }
        Ok(stack.pop().expect("a formula has a value"))
    }
}

impl Poly {
    /// Division rounding down that rounds alike for every value of the
    /// symbols (`docs/shapescript/externs.md`, "Rounded division"): exact
    /// division when the divisor divides every term; otherwise, by a number
    /// `d` that divides the coefficient of every term with symbols, the
    /// quotient of those terms plus the rounded quotient of the constant,
    /// since `floor((d*q + c)/d) = q + floor(c/d)` for every whole `q`
    /// (`(2*t - 1)/2` is `t - 1`). Anything else is `Inexact`: `(t + 1)/2`
    /// rounds differently for odd and even `t`.
    pub fn div_floor(&self, divisor: &Poly) -> Result<Poly, SizeError> {
        let Some(d) = divisor.as_constant() else {
            return self.div_exact(divisor);
        };
        if d == 0 {
            return Err(SizeError::DivideByZero);
        }
        let c = self
            .terms()
            .iter()
            .find(|t| t.mono.degree() == 0)
            .map_or(0, |t| t.coef);
        if c == 0 {
            return self.div_exact(divisor);
        }
        // floor(c / d) for either sign of `d`; only `i128::MIN / -1` overflows.
        let rounded = c
            .checked_div_euclid(d)
            .ok_or(SizeError::Overflow)?
            .checked_sub(i128::from(c.rem_euclid(d) != 0 && d < 0))
            .ok_or(SizeError::Overflow)?;
        let with_symbols = self.sub(&Poly::constant(c))?;
        with_symbols
            .div_exact(divisor)?
            .add(&Poly::constant(rounded))
    }
}

/// The terms with symbols of `numerator` whose coefficient `divisor` does
/// not divide, each beside the smallest multiple of it that `divisor`
/// divides: the `t` and `2*t` that a diagnostic suggests for `(t - 1)/2`.
pub fn undivided_terms(numerator: &Poly, divisor: i128) -> Vec<(Poly, Poly)> {
    let gcd = |mut a: i128, mut b: i128| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    };
    let mut out = Vec::new();
    for t in numerator.terms() {
        if t.mono.degree() == 0 || divisor == 0 || t.coef % divisor == 0 {
            continue;
        }
        let Some(multiple) = (divisor / gcd(t.coef, divisor)).abs().checked_mul(t.coef) else {
            continue;
        };
        let term = |coef| {
            Poly::from_terms(SmallVec::from_buf([Term {
                coef,
                mono: t.mono.to_monomial(),
            }]))
        };
        if let (Ok(written), Ok(wanted)) = (term(t.coef), term(multiple)) {
            out.push((written, wanted));
        }
    }
    out
}
