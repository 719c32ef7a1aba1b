//! Integer and boolean tensors built for a goal: ids (`Index[N]`),
//! `argmax`, `arange`, integer arithmetic with PyTorch's promotions,
//! sums of integers and booleans, comparisons, `not`/`and`/`or` and
//! `any`/`all`. Every float compared here makes the function
//! discontinuous (its low-precision runs compare no values).

use super::float::{align_of, bin_parts};
use super::shape::{find, names_uniquely};
use super::{Fx, Gen, Goal, Strategy};
use crate::ast::{Bin, Expr, Op};
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

impl Gen {
    /// The domain and value bounds of a new integer parameter.
    pub(super) fn int_param_domain(&mut self, goal: &Goal) -> Option<(Dom, Iv)> {
        match &goal.dom {
            Dom::Index(n) if goal.dt == Dt::I64 => Some((
                goal.dom.clone(),
                Iv::new(0.0, self.dims.max(n) as f64 - 1.0),
            )),
            Dom::Real if goal.within.lo <= -4.0 && goal.within.hi >= 4.0 => {
                Some((Dom::Real, Iv::new(-4.0, 4.0)))
            }
            Dom::Real | Dom::NonNeg if goal.within.lo <= 0.0 && goal.within.hi >= 3.0 => {
                Some((Dom::NonNeg, Iv::new(0.0, 3.0)))
            }
            _ => None,
        }
    }

    /// An integer tensor for `goal`.
    pub fn integer(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Expr {
        const TABLE: &[(u32, Strategy)] = &[
            (2, Gen::argmax),
            (2, Gen::int_arith),
            (1, Gen::arange),
            (2, Gen::int_sum),
            (1, Gen::clamp_ids),
            (2, Gen::call),
        ];
        self.first_fit(fx, goal, depth, TABLE, 3)
            .unwrap_or_else(|| self.leaf(fx, goal))
    }

    /// `argmax(x, over=n)`: ids `Index[n]` of the goal's axes.
    fn argmax(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let f = *self.rng.pick(&["argmax", "argmin"]);
        if fx.hides(f) || goal.dt != Dt::I64 {
            return None;
        }
        let n = match &goal.dom {
            Dom::Index(n) => {
                let a = super::shape::named(Axis::anon(n.clone()));
                if a.name.is_none() || !find(&goal.axes, a.name.as_deref()?).is_empty() {
                    return None;
                }
                a
            }
            _ => self.extra_axis(fx, &goal.axes)?,
        };
        let at = self.rng.below(goal.axes.len() + 1);
        let mut axes = goal.axes.clone();
        axes.insert(at, n.clone());
        let over = n.name.clone()?;
        if !names_uniquely(&axes, &over, at) {
            return None;
        }
        let x = self.float(fx, &Goal::new(axes, fx.float), depth - 1);
        fx.discontinuous = true;
        let hi = self.dims.max(&n.size) as f64 - 1.0;
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::I64,
            dom: Dom::Index(n.size.clone()),
            iv: Iv::new(0.0, hi),
        };
        Some(Expr::new(
            Op::AxisWise { f, over, dim: at },
            vec![x],
            Ty::T(t),
        ))
    }

    /// `arange(n)` for a goal `[n]`.
    fn arange(&mut self, fx: &mut Fx, goal: &Goal, _: u32) -> Option<Expr> {
        let [a] = goal.axes.as_slice() else {
            return None;
        };
        if fx.hides("arange")
            || !fx.size_usable(&a.size)
            || a.size.as_sym()? != a.name.as_deref()?
        {
            return None;
        }
        let hi = self.dims.max(&a.size) as f64 - 1.0;
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::I64,
            dom: Dom::Index(a.size.clone()),
            iv: Iv::new(0.0, hi),
        };
        Some(Expr::leaf(Op::Arange(a.size.clone()), Ty::T(t)))
    }

    /// `a + b`, `a - b`, `a * b` of integer tensors (an `i32` with an
    /// `i64` is `i64`, as in PyTorch), or with a whole number.
    fn int_arith(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let op = *self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul]);
        let w = Iv::new(-4.0, 4.0);
        let a = self.integer(
            fx,
            &Goal::new(goal.axes.clone(), goal.dt).within(w),
            depth - 1,
        );
        let b = if self.rng.chance(0.5) {
            let v = *self.rng.pick(&[1, 2, 3, -1]);
            Expr::leaf(Op::Int(v), Ty::Int(Iv::point(v as f64)))
        } else {
            let dt = if goal.dt == Dt::I64 && self.rng.chance(0.3) {
                Dt::I32
            } else {
                goal.dt
            };
            let sub = self.some_named(&goal.axes);
            self.integer(fx, &Goal::new(sub, dt).within(w), depth - 1)
        };
        let (a, b) = self.either_order(a, b);
        let (align, iv) = bin_parts(&self.dims, op, &a, &b, &goal.axes)?;
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(Expr::new(Op::Bin(op, align), vec![a, b], Ty::T(t)))
    }

    /// `sum(x, over=n)` of integers or booleans: an `i64`.
    fn int_sum(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("sum") || goal.dt != Dt::I64 {
            return None;
        }
        let extra = self.extra_axis(fx, &goal.axes)?;
        let over = extra.name.clone()?;
        let at = self.rng.below(goal.axes.len() + 1);
        let mut axes = goal.axes.clone();
        axes.insert(at, extra.clone());
        let dt = *self.rng.pick(&[Dt::I64, Dt::I32, Dt::Bool]);
        let arg = self.value(
            fx,
            &Goal::new(axes, dt).within(Iv::new(-4.0, 4.0)),
            depth - 1,
        );
        let a = arg.tensor()?.clone();
        if !names_uniquely(&a.axes, &over, at) {
            return None;
        }
        let iv = a.iv.times(self.dims.max(&extra.size) as f64);
        let dom = if dt == Dt::Bool {
            Dom::NonNeg
        } else {
            Dom::Real
        };
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::I64,
            dom,
            iv,
        };
        let op = Op::Reduce {
            f: "sum",
            over: vec![over],
            dims: vec![at],
        };
        Some(Expr::new(op, vec![arg], Ty::T(t)))
    }

    /// A boolean tensor for `goal`.
    pub fn boolean(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Expr {
        const TABLE: &[(u32, Strategy)] = &[
            (5, Gen::compare),
            (1, Gen::logic),
            (1, Gen::any_all),
            (1, Gen::call),
        ];
        self.first_fit(fx, goal, depth, TABLE, 3)
            .unwrap_or_else(|| self.leaf(fx, goal))
    }

    /// `a < b` and the other comparisons, of floats or integers.
    fn compare(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let op = *self
            .rng
            .pick(&[Bin::Lt, Bin::Gt, Bin::Le, Bin::Ge, Bin::Eq, Bin::Ne]);
        let ints = self.rng.chance(0.25);
        let dt = if ints { Dt::I64 } else { fx.float };
        let a = self.value(fx, &Goal::new(goal.axes.clone(), dt), depth - 1);
        let b = if self.rng.chance(0.5) {
            if ints {
                Expr::leaf(Op::Int(1), Ty::Int(Iv::point(1.0)))
            } else {
                Expr::leaf(Op::Float(0.5), Ty::Float(Iv::point(0.5)))
            }
        } else {
            let sub = self.some_named(&goal.axes);
            self.value(fx, &Goal::new(sub, dt), depth - 1)
        };
        if !ints && matches!(op, Bin::Eq | Bin::Ne) {
            return None;
        }
        let (a, b) = self.either_order(a, b);
        let la = align_of(&self.dims, &a, &goal.axes)?;
        let lb = align_of(&self.dims, &b, &goal.axes)?;
        fx.discontinuous = true;
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::Bool,
            dom: Dom::Bool,
            iv: Iv::new(0.0, 1.0),
        };
        Some(Expr::new(Op::Bin(op, [la, lb]), vec![a, b], Ty::T(t)))
    }

    /// `not a`, `a and b`, `a or b` of boolean tensors.
    fn logic(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let a = self.boolean(fx, goal, depth - 1);
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::Bool,
            dom: Dom::Bool,
            iv: Iv::new(0.0, 1.0),
        };
        if self.rng.chance(0.3) {
            return Some(Expr::new(Op::Not, vec![a], Ty::T(t)));
        }
        let sub = self.some_named(&goal.axes);
        let b = self.boolean(fx, &Goal::new(sub, Dt::Bool), depth - 1);
        let (a, b) = self.either_order(a, b);
        let op = *self.rng.pick(&[Bin::And, Bin::Or]);
        let la = align_of(&self.dims, &a, &goal.axes)?;
        let lb = align_of(&self.dims, &b, &goal.axes)?;
        Some(Expr::new(Op::Bin(op, [la, lb]), vec![a, b], Ty::T(t)))
    }

    /// `any(x, over=n)` / `all(x, over=n)`.
    fn any_all(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let f = *self.rng.pick(&["any", "all"]);
        if fx.hides(f) {
            return None;
        }
        let extra = self.extra_axis(fx, &goal.axes)?;
        let over = extra.name.clone()?;
        let at = self.rng.below(goal.axes.len() + 1);
        let mut axes = goal.axes.clone();
        axes.insert(at, extra);
        let arg = self.boolean(fx, &Goal::new(axes, Dt::Bool), depth - 1);
        if !names_uniquely(&arg.tensor()?.axes, &over, at) {
            return None;
        }
        let t = TT {
            axes: goal.axes.clone(),
            dt: Dt::Bool,
            dom: Dom::Bool,
            iv: Iv::new(0.0, 1.0),
        };
        Some(Expr::new(
            Op::Reduce {
                f,
                over: vec![over],
                dims: vec![at],
            },
            vec![arg],
            Ty::T(t),
        ))
    }
}
