//! Statements: `let` (annotated now and then), `let (values, ids) =
//! topk(...)`, a mask's rows (`x[m]`, an unknown size `?k`), a call's
//! result, an early `return` under `if`, a value rebound in both arms of
//! an `if` or on each pass of a `for` over `range`.

use super::shape::names_uniquely;
use super::{Fx, Gen, Goal};
use crate::ast::{Bin, Expr, Op, Stmt};
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

impl Gen {
    /// One statement of `fx`, whose return value is for `ret`.
    pub fn stmt(&mut self, fx: &mut Fx, ret: &Goal) {
        if fx.model.is_some() && self.rng.chance(0.2) {
            return self.stack_stmt(fx);
        }
        match self.rng.weighted(&[8, 1, 1, 1, 1, 2, 2]) {
            0 => self.let_stmt(fx, ret),
            1 => self.topk_stmt(fx),
            2 => self.mask_stmt(fx),
            3 => self.call_stmt(fx),
            4 => self.early_return(fx, ret),
            5 => self.branch_stmt(fx),
            _ => self.loop_stmt(fx),
        }
    }

    fn let_stmt(&mut self, fx: &mut Fx, ret: &Goal) {
        let goal = if self.rng.chance(0.4) {
            Goal::new(ret.axes.clone(), ret.dt)
        } else {
            self.random_goal(fx)
        };
        let value = self.value(fx, &goal, 2);
        let name = self.value_name(fx);
        let annot = self
            .rng
            .chance(0.2)
            .then(|| value.ty.clone())
            .filter(plain_ty);
        fx.stmts.push(Stmt::Let {
            name: name.clone(),
            annot,
            value: value.clone(),
        });
        fx.add_local(name, value.ty, false);
    }

    fn topk_stmt(&mut self, fx: &mut Fx) {
        if fx.hides("topk") {
            return;
        }
        let goal = self.random_goal(fx);
        let mut axes = goal.axes.clone();
        let Some(n) = self.extra_axis(fx, &axes) else {
            return;
        };
        let at = self.rng.below(axes.len() + 1);
        axes.insert(at, n.clone());
        let Some(over) = n.name.clone() else { return };
        let k = self.rng.range(1, self.dims.min(&n.size).min(3));
        let x = self.float(fx, &Goal::new(axes, fx.float), 2);
        let Some(t) = x.tensor().cloned() else { return };
        if !names_uniquely(&t.axes, &over, at) {
            return;
        }
        let mut kept = t.axes.clone();
        kept[at] = Axis::anon(Size::lit(k));
        let values = TT {
            axes: kept.clone(),
            ..t.clone()
        };
        let hi = self.dims.max(&n.size) as f64 - 1.0;
        let ids = TT {
            axes: kept,
            dt: Dt::I64,
            dom: Dom::Index(n.size.clone()),
            iv: Iv::new(0.0, hi),
        };
        let ty = Ty::Tuple(vec![Ty::T(values.clone()), Ty::T(ids.clone())]);
        let value = Expr::new(Op::Topk { k, over, dim: at }, vec![x], ty);
        let (a, b) = (self.value_name(fx), self.value_name(fx));
        if a == b {
            return;
        }
        fx.discontinuous = true;
        fx.stmts.push(Stmt::LetTuple {
            names: vec![a.clone(), b.clone()],
            value,
        });
        fx.add_local(a, Ty::T(values), false);
        fx.add_local(b, Ty::T(ids), false);
    }

    /// `let rows = x[m]` with `m` a mask over `x`'s first axis, then a
    /// value of the rows (`sum` over everything).
    fn mask_stmt(&mut self, fx: &mut Fx) {
        let goal = self.random_goal(fx);
        if goal.axes.is_empty() || goal.axes[0].name.is_none() {
            return;
        }
        let x = self.float(fx, &Goal::new(goal.axes.clone(), fx.float), 2);
        let m = self.boolean(fx, &Goal::new(vec![goal.axes[0].clone()], Dt::Bool), 2);
        let Some(t) = x.tensor().cloned() else { return };
        let mut axes = t.axes.clone();
        axes[0] = fx.unknown();
        let rows_ty = TT { axes, ..t };
        let rows = Expr::new(Op::Mask, vec![x, m], Ty::T(rows_ty.clone()));
        let name = self.value_name(fx);
        fx.discontinuous = true;
        fx.stmts.push(Stmt::Let {
            name: name.clone(),
            annot: None,
            value: rows,
        });
        fx.add_local(name, Ty::T(rows_ty.clone()), false);
        // A mask may keep no row: only `sum` has a value then (E0415).
        let f = "sum";
        if fx.hides(f) {
            return;
        }
        let inner = self.float(
            fx,
            &Goal::new(rows_ty.axes.clone(), fx.float).within(Iv::new(-3.0, 3.0)),
            1,
        );
        let Some(it) = inner.tensor().cloned() else {
            return;
        };
        let n = 10.0 * self.dims.max(&Size::lit(1)) as f64;
        let iv = if f == "sum" {
            it.iv.times(n * 6.0)
        } else {
            it.iv
        };
        let total = TT {
            axes: Vec::new(),
            dt: fx.float,
            dom: Dom::Real,
            iv,
        };
        let value = Expr::new(
            Op::Reduce {
                f,
                over: Vec::new(),
                dims: Vec::new(),
            },
            vec![inner],
            Ty::T(total.clone()),
        );
        let name = self.value_name(fx);
        fx.stmts.push(Stmt::Let {
            name: name.clone(),
            annot: None,
            value,
        });
        fx.add_local(name, Ty::T(total), false);
    }

    fn call_stmt(&mut self, fx: &mut Fx) {
        if let Some(value) = self.call_any(fx, 2) {
            let name = self.value_name(fx);
            fx.stmts.push(Stmt::Let {
                name: name.clone(),
                annot: None,
                value: value.clone(),
            });
            fx.add_local(name, value.ty, false);
        }
    }

    /// A `Bool` condition: a parameter, or a comparison of an `Int`.
    fn condition(&mut self, fx: &mut Fx) -> Expr {
        if self.rng.chance(0.5) {
            if let Some(k) = self.int_number(fx, Iv::new(0.0, 5.0)) {
                let two = Expr::leaf(Op::Int(2), Ty::Int(Iv::point(2.0)));
                return Expr::new(Op::Bin(Bin::Gt, [None, None]), vec![k, two], Ty::Bool);
            }
        }
        if fx.can_add_param() {
            let name = self.value_name(fx);
            fx.add_param(name.clone(), Ty::Bool);
            return Expr::leaf(Op::Var(name), Ty::Bool);
        }
        Expr::leaf(Op::Bool(true), Ty::Bool)
    }

    fn early_return(&mut self, fx: &mut Fx, ret: &Goal) {
        let cond = self.condition(fx);
        let mut inner = fx.clone();
        inner.stmts = Vec::new();
        let value = self.value(&mut inner, ret, 2);
        let body = std::mem::take(&mut inner.stmts);
        let mut then = body;
        then.push(Stmt::Return(value));
        fx.merge(inner);
        fx.stmts.push(Stmt::If {
            cond,
            then,
            els: None,
        });
    }

    /// `let h = ..` then `if c { h = .. } else { h = .. }`.
    fn branch_stmt(&mut self, fx: &mut Fx) {
        let Some((name, goal)) = self.rebindable(fx) else {
            return;
        };
        let cond = self.condition(fx);
        let a = self.value(fx, &goal, 2);
        let b = self.value(fx, &goal, 2);
        let then = vec![Stmt::Assign {
            name: name.clone(),
            value: a,
        }];
        let els = self.rng.chance(0.7).then(|| {
            vec![Stmt::Assign {
                name: name.clone(),
                value: b,
            }]
        });
        fx.stmts.push(Stmt::If { cond, then, els });
    }

    /// `let h = ..` then `for i in range(k) { h = f(h, i) }`.
    fn loop_stmt(&mut self, fx: &mut Fx) {
        if fx.hides("range") {
            return;
        }
        let Some((name, goal)) = self.rebindable(fx) else {
            return;
        };
        let count = if self.rng.chance(0.5) && fx.can_add_param() {
            let k = self.value_name(fx);
            fx.add_param(k.clone(), Ty::Int(Iv::new(0.0, 3.0)));
            Expr::leaf(Op::Var(k), Ty::Int(Iv::new(0.0, 3.0)))
        } else {
            self.int_number(fx, Iv::new(0.0, 3.0))
                .unwrap_or_else(|| Expr::leaf(Op::Int(2), Ty::Int(Iv::point(2.0))))
        };
        let var = self.value_name(fx);
        let mut inner = fx.clone();
        inner.stmts = Vec::new();
        inner.add_local(var.clone(), Ty::Int(Iv::new(0.0, 4.0)), false);
        let value = self.value(&mut inner, &goal, 2);
        let mut body = std::mem::take(&mut inner.stmts);
        body.push(Stmt::Assign { name, value });
        fx.merge(inner);
        fx.stmts.push(Stmt::For {
            var,
            iter: count,
            over_stack: false,
            body,
        });
    }

    /// `let h = ..` of a tensor that later statements assign: `Real`
    /// (its range is its declared domain's), values within fixed bounds.
    fn rebindable(&mut self, fx: &mut Fx) -> Option<(String, Goal)> {
        let goal = self.random_goal(fx);
        let goal = match goal.dt {
            Dt::Bool => goal,
            Dt::I64 | Dt::I32 => goal.within(Iv::new(-4.0, 4.0)),
            _ => goal.within(Iv::new(-3.0, 3.0)),
        };
        let value = self.value(fx, &goal, 2);
        let mut t = value.tensor()?.clone();
        t.dom = if t.dt == Dt::Bool {
            Dom::Bool
        } else {
            Dom::Real
        };
        t.iv = goal.within;
        let name = self.value_name(fx);
        fx.stmts.push(Stmt::Let {
            name: name.clone(),
            annot: None,
            value,
        });
        fx.add_local(name.clone(), Ty::T(t.clone()), true);
        Some((name, Goal::of(&t)))
    }
}

/// Whether a type can be written in a `let`: no unknown sizes, no axis a
/// pattern named apart from its size.
fn plain_ty(t: &Ty) -> bool {
    match t {
        Ty::T(t) => t.axes.iter().all(|a| {
            !a.size.symbols().iter().any(|s| s.starts_with('?'))
                && (a.name.is_none() || a.name.as_deref() == a.size.as_sym())
        }),
        _ => false,
    }
}
