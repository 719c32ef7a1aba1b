//! Sizes that divide with rounding (extern return types only): a flat
//! formula of polynomials and operations, kept unevaluated until a call's
//! arguments give its symbols values.

use smallvec::SmallVec;

use super::{Poly, SizeError, Symbol};

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
    /// Rounds down when both sides are numbers, else must be exact.
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
        let mut stack: SmallVec<[Poly; 4]> = SmallVec::new();
        for step in &self.0 {
            let result = match step {
                Step::Poly(p) => p.substitute(value)?,
                op => {
                    let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                        unreachable!("a formula's operations have two operands")
                    };
                    match op {
                        Step::Add => a.add(&b)?,
                        Step::Sub => a.sub(&b)?,
                        Step::Mul => a.mul(&b)?,
                        _ => match (a.as_constant(), b.as_constant()) {
                            (_, Some(0)) => return Err(SizeError::DivideByZero),
                            (Some(x), Some(y)) => Poly::constant(
                                x.div_euclid(y) - i128::from(x.rem_euclid(y) != 0 && y < 0),
                            ),
                            _ => a.div_exact(&b)?,
                        },
                    }
                }
            };
            stack.push(result);
        }
        Ok(stack.pop().expect("a formula has a value"))
    }
}
