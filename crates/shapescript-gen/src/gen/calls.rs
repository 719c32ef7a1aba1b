//! Calls of the program's earlier functions and of models' methods: the
//! callee's generic axes are bound to the caller's axes (from the goal's
//! axes where the result fixes them, at random otherwise), each argument
//! is built for its parameter's type in the caller's terms, and the result
//! has the callee's return type with the bindings put in: its axes named
//! by the caller's axes bound, its domain the declared one.

use std::collections::BTreeMap;

use super::shape::named;
use super::{Fx, Gen, Goal};
use crate::ast::{Expr, Func, Op};
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

/// The caller's axis each generic axis of the callee is bound to.
pub type Binding = BTreeMap<String, Axis>;

/// A call's arguments, its bindings as sizes, and its result's type.
pub type Instance = (Vec<Expr>, Vec<(String, Size)>, Ty);

impl Gen {
    /// A call of an earlier function whose result fits `goal`.
    pub(super) fn call(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        self.call_of(fx, Some(goal), depth)
    }

    /// A call of any earlier function, its generics bound at random.
    pub fn call_any(&mut self, fx: &mut Fx, depth: u32) -> Option<Expr> {
        self.call_of(fx, None, depth)
    }

    /// A call of an earlier function `fx` may call, of the goal's rank
    /// and its generics bound for it when there is one.
    fn call_of(&mut self, fx: &mut Fx, goal: Option<&Goal>, depth: u32) -> Option<Expr> {
        let rank = |f: &Func| match goal {
            Some(g) => f.ret.tensor().is_some_and(|t| t.rank() == g.axes.len()),
            None => true,
        };
        let callees: Vec<Func> = self
            .prog
            .funcs
            .iter()
            .filter(|f| !fx.hides(&f.name) && callable_from(f, fx) && rank(f))
            .cloned()
            .collect();
        if callees.is_empty() {
            return None;
        }
        let f = self.rng.pick(&callees).clone();
        let bind = match goal {
            Some(g) => self.unify(&f, g)?,
            None => Binding::new(),
        };
        let (args, bind, ret) = self.instantiate(fx, &f, bind, depth)?;
        let float = if f.float == Dt::F { fx.float } else { f.float };
        let op = Op::Call {
            name: f.name.clone(),
            bind,
            float,
        };
        Some(Expr::new(op, args, ret))
    }

    /// The bindings the goal fixes: each return axis that is a generic
    /// takes the goal's axis; the others must already equal it.
    pub fn unify(&mut self, f: &Func, goal: &Goal) -> Option<Binding> {
        let ret = f.ret.tensor()?;
        let mut bind = Binding::new();
        for (r, g) in ret.axes.iter().zip(&goal.axes) {
            match r.size.as_sym() {
                Some(s) if f.generics.iter().any(|x| x == s) => {
                    if let Some(prev) = bind.get(s) {
                        if !self.dims.eq(&prev.size, &g.size) {
                            return None;
                        }
                    } else {
                        bind.insert(s.to_string(), g.clone());
                    }
                }
                _ => {
                    if r.size.symbols().iter().any(|x| f.generics.contains(x)) {
                        return None;
                    }
                    if !self.dims.eq(&r.size, &g.size) || named(r.clone()).name != g.name {
                        return None;
                    }
                }
            }
        }
        Some(bind)
    }

    /// The arguments of a call of `f` with `bind` completed at random, the
    /// bindings as sizes, and the result's type.
    pub fn instantiate(
        &mut self,
        fx: &mut Fx,
        f: &Func,
        mut bind: Binding,
        depth: u32,
    ) -> Option<Instance> {
        let pool = self.pool(fx);
        for g in &f.generics {
            if !bind.contains_key(g) {
                bind.insert(g.clone(), self.rng.pick(&pool).clone());
            }
        }
        let mut args = Vec::new();
        for p in &f.params {
            let arg = match &p.ty {
                Ty::T(t) => {
                    let t = self.subst(t, &bind, fx.float);
                    let goal = Goal::of(&t);
                    self.value(fx, &goal, depth.saturating_sub(1))
                }
                Ty::Int(iv) => self.int_number(fx, *iv)?,
                Ty::Float(iv) => self.number(fx, *iv, &Dom::Real)?,
                Ty::Bool => self.bool_number(fx),
                _ => return None,
            };
            args.push(arg);
        }
        let ret = match &f.ret {
            Ty::T(t) => Ty::T(self.fresh_unknowns(fx, self.subst(t, &bind, fx.float))),
            other => other.clone(),
        };
        let sizes = bind.into_iter().map(|(k, v)| (k, v.size)).collect();
        Some((args, sizes, ret))
    }

    /// A callee's type in the caller's terms: generic axes replaced by the
    /// axes bound to them, `F` by the caller's float dtype.
    pub fn subst(&self, t: &TT, bind: &Binding, float: Dt) -> TT {
        let size = |s: &Size| s.subst(&|x| bind.get(x).map(|a| a.size.clone()));
        let axes = t
            .axes
            .iter()
            .map(|a| match a.size.as_sym().and_then(|s| bind.get(s)) {
                Some(b) if a.text.is_none() => b.clone(),
                _ => named(Axis::anon(size(&a.size))),
            })
            .collect();
        let dom = match &t.dom {
            Dom::Index(n) => Dom::Index(size(n)),
            d => d.clone(),
        };
        let dt = if t.dt == Dt::F { float } else { t.dt };
        TT {
            axes,
            dt,
            dom,
            iv: t.iv,
        }
    }

    /// The callee's unknown sizes (`?k`) as new ones of the caller.
    fn fresh_unknowns(&self, fx: &mut Fx, mut t: TT) -> TT {
        for a in &mut t.axes {
            if a.size.symbols().iter().any(|s| s.starts_with('?')) {
                *a = fx.unknown();
            }
        }
        t
    }

    /// An `Int` within `iv`: a literal, or a size's value.
    pub fn int_number(&mut self, fx: &mut Fx, iv: Iv) -> Option<Expr> {
        let mut options: Vec<Expr> = (iv.lo.ceil() as i64..=iv.hi.floor() as i64)
            .map(|v| Expr::leaf(Op::Int(v), Ty::Int(Iv::point(v as f64))))
            .collect();
        for a in self.pool(fx) {
            let hi = self.dims.max(&a.size) as f64;
            if fx.size_usable(&a.size) && iv.lo <= 1.0 && hi <= iv.hi {
                options.push(Expr::leaf(
                    Op::SizeVal(a.size.clone()),
                    Ty::Int(Iv::new(1.0, hi)),
                ));
            }
        }
        (!options.is_empty()).then(|| self.rng.pick(&options).clone())
    }

    /// A `Bool`: a literal or a new parameter.
    pub fn bool_number(&mut self, fx: &mut Fx) -> Expr {
        if fx.can_add_param() && self.rng.chance(0.5) {
            let name = self.value_name(fx);
            fx.add_param(name.clone(), Ty::Bool);
            return Expr::leaf(Op::Var(name), Ty::Bool);
        }
        let b = self.rng.chance(0.5);
        Expr::leaf(Op::Bool(b), Ty::Bool)
    }
}

/// Whether `fx` may call `f`: a dtype-less callee takes the caller's float
/// dtype; one with a concrete float dtype needs the same.
fn callable_from(f: &Func, fx: &Fx) -> bool {
    f.name != fx.name && (f.float == Dt::F || f.float == fx.float)
}
