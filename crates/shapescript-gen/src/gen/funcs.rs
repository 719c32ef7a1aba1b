//! Programs and functions: dims, then functions that may call the ones
//! before them, then models; each function's goal types, statements and
//! final value, and the parameters that introduce its generic axes; the
//! names of everything, in the chosen name mode.

use std::collections::BTreeSet;

use super::fx::Fx;
use super::{Gen, Goal, Names};
use crate::ast::{Expr, Func, Op, Stmt};
use crate::names;
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

impl Gen {
    /// The whole program: dims, functions, maybe a model.
    pub fn program(&mut self) {
        self.make_dims();
        let count = self.rng.range(2, 4);
        for _ in 0..count {
            let name = self.func_name();
            let f = self.func(&name, None);
            self.prog.entries.push((String::new(), f.name.clone()));
            self.prog.funcs.push(f);
        }
        for _ in 0..self.rng.weighted(&[6, 3, 1]) {
            self.model();
        }
    }

    fn make_dims(&mut self) {
        let count = self.rng.range(1, 2);
        for _ in 0..count {
            let pool: Vec<&str> = match self.names {
                Names::Clashing if self.rng.chance(0.4) => names::PYTHON_AXES.to_vec(),
                _ => names::DIMS.to_vec(),
            };
            let name = self.rng.pick(&pool).to_string();
            if self.prog.dims.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let value = self.rng.range(2, 5);
            self.prog.dims.push((name, value));
        }
        self.dims = super::shape::Dims(self.prog.dims.clone());
    }

    /// A name no declaration of the program has.
    fn func_name(&mut self) -> String {
        loop {
            let name = match self.names {
                Names::Clashing if self.rng.chance(0.5) => self.rng.pick(names::PYTHON).to_string(),
                _ => format!("f{}", self.rng.below(100)),
            };
            if self.top_level_free(&name) && !names::CALLABLES.contains(&name.as_str()) {
                return name;
            }
        }
    }

    /// Whether no dim, function, model or record is called `name`.
    pub fn top_level_free(&self, name: &str) -> bool {
        !names::SS_KEYWORDS.contains(&name)
            && name != "self"
            && self.prog.dims.iter().all(|(n, _)| n != name)
            && !self.declared(name)
            && !self.sizes_in_use().iter().any(|s| s == name)
    }

    /// Whether a function, model or record is called `name`.
    fn declared(&self, name: &str) -> bool {
        self.prog.funcs.iter().any(|f| f.name == name)
            || self.prog.models.iter().any(|m| m.name == name)
            || self.prog.records.iter().any(|r| r.name == name)
    }

    /// The generic axes and model sizes of everything made so far: a
    /// declaration of such a name would be found where a body reads the
    /// size as a value.
    fn sizes_in_use(&self) -> Vec<String> {
        let methods = self.prog.models.iter().flat_map(|m| m.methods.iter());
        let mut out: Vec<String> = self
            .prog
            .funcs
            .iter()
            .chain(methods)
            .flat_map(|f| f.generics.clone())
            .collect();
        out.extend(self.prog.models.iter().flat_map(|m| m.size_params.clone()));
        out
    }

    /// The generic axes of a new function: names that are no dim's.
    pub fn generic_names(&mut self) -> Vec<String> {
        let count = self.rng.range(1, 3);
        let mut out: Vec<String> = Vec::new();
        for _ in 0..count * 3 {
            if out.len() as i64 == count {
                break;
            }
            let pool = match self.names {
                Names::Clashing if self.rng.chance(0.3) => names::PYTHON_AXES,
                _ => names::AXES,
            };
            let name = self.rng.pick(pool).to_string();
            // Not a declaration's name: the body may read the size as a value.
            let declared = self.declared(&name);
            if !out.contains(&name) && self.dims.value(&name).is_none() && !declared {
                out.push(name);
            }
        }
        out
    }

    /// A fresh name for a value of `fx`: ordinary, or in the clashing mode
    /// often one that clashes (an axis, a dim, Python, a function).
    pub fn value_name(&mut self, fx: &Fx) -> String {
        for attempt in 0.. {
            let name = match self.names {
                Names::Clashing if self.rng.chance(0.6) => self.clashing_name(fx),
                _ => {
                    let base = self.rng.pick(names::VALUES).to_string();
                    if attempt < 3 {
                        base
                    } else {
                        format!("{base}{attempt}")
                    }
                }
            };
            let taken = fx.used.contains(&name)
                || names::SS_KEYWORDS.contains(&name.as_str())
                || (fx.model.is_some() && name == "self")
                || self.prog.funcs.iter().any(|f| f.name == name)
                || self.prog.models.iter().any(|m| m.name == name)
                || self.prog.records.iter().any(|r| r.name == name);
            if !taken {
                return name;
            }
        }
        unreachable!("the loop returns")
    }

    fn clashing_name(&mut self, fx: &Fx) -> String {
        match self.rng.below(4) {
            0 if !fx.generics.is_empty() => self.rng.pick(&fx.generics).clone(),
            1 if !self.prog.dims.is_empty() => self.rng.pick(&self.prog.dims).0.clone(),
            2 => {
                let base = self.rng.pick(names::VALUES);
                format!("{base}_")
            }
            _ => self.rng.pick(names::PYTHON).to_string(),
        }
    }

    /// The axes a goal may take in `fx`: its generics and the dims, by name.
    pub fn pool(&self, fx: &Fx) -> Vec<Axis> {
        let mut out: Vec<Axis> = fx.generics.iter().map(|g| Axis::sym(g)).collect();
        out.extend(self.prog.dims.iter().map(|(d, _)| Axis::sym(d)));
        if let Some((_, sizes)) = &fx.model {
            out.extend(sizes.iter().map(|s| Axis::sym(s)));
        }
        out
    }

    /// Random axes for a goal: `rank` distinct names of the pool, now and
    /// then a number or a sum (`n + 1`, `n + m`, `2*n`).
    pub fn random_axes(&mut self, fx: &Fx, rank: usize) -> Vec<Axis> {
        let pool = self.pool(fx);
        let mut out: Vec<Axis> = Vec::new();
        for _ in 0..rank * 4 {
            if out.len() == rank {
                break;
            }
            let axis = match self.rng.below(10) {
                0 => Axis::anon(Size::lit(self.rng.range(2, 3))),
                1 => {
                    let a = self.rng.pick(&pool).size.clone();
                    let b = match self.rng.below(3) {
                        0 => Size::lit(1),
                        1 => self.rng.pick(&pool).size.clone(),
                        _ => a.clone(),
                    };
                    Axis::anon(a.add(&b))
                }
                _ => self.rng.pick(&pool).clone(),
            };
            let clash = out.iter().any(|o| match (&o.name, &axis.name) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            });
            if !clash {
                out.push(axis);
            }
        }
        out
    }

    /// A goal of random axes and kind for `fx`: a float tensor of its
    /// float dtype mostly, else integers or booleans.
    pub fn random_goal(&mut self, fx: &Fx) -> Goal {
        let rank = self.rng.weighted(&[1, 3, 3, 2]);
        let axes = self.random_axes(fx, rank);
        let dt = match self.rng.weighted(&[16, 2, 1, 2]) {
            0 => fx.float,
            1 => Dt::I64,
            2 => Dt::I32,
            _ => Dt::Bool,
        };
        Goal::new(axes, dt)
    }

    /// The float dtype of a new function's dtype-less tensors.
    fn family(&mut self) -> Dt {
        *self.rng.pick(&[
            Dt::F,
            Dt::F,
            Dt::F,
            Dt::F,
            Dt::F32,
            Dt::F32,
            Dt::Bf16,
            Dt::F64,
        ])
    }

    /// A function (or, with `model`, a method) called `name`.
    pub fn func(&mut self, name: &str, model: Option<(String, Vec<String>)>) -> Func {
        let float = self.family();
        let generics = self.generic_names();
        let mut fx = Fx::new(name, float, generics);
        fx.model = model;
        fx.hidden = self
            .pool(&fx)
            .iter()
            .filter_map(|a| a.name.clone())
            .collect();
        if fx.model.is_some() {
            // A model's dtype-less fields give its methods their float dtype.
            fx.float = Dt::F;
            let owner = fx.model.as_ref().map(|m| m.0.clone()).unwrap_or_default();
            fx.add_local("self".into(), Ty::Model(owner.clone()), false);
            fx.scope.last_mut().expect("self").model = Some(owner);
        }
        let goal = self.random_goal(&fx);
        self.body(fx, goal)
    }

    /// A stack's block: `forward(self, x: T) -> T`, values within `x`'s
    /// bounds, so that blocks can follow each other.
    pub fn block_forward(&mut self, model: &str) -> Func {
        let generics = self.generic_names();
        let mut fx = Fx::new("forward", Dt::F, generics);
        fx.model = Some((model.to_string(), Vec::new()));
        fx.hidden = self
            .pool(&fx)
            .iter()
            .filter_map(|a| a.name.clone())
            .collect();
        fx.add_local("self".into(), Ty::Model(model.to_string()), false);
        let rank = self.rng.range(1, 2) as usize;
        let axes: Vec<Axis> = self
            .random_axes(&fx, rank)
            .into_iter()
            .filter(|a| a.size.as_sym().is_some())
            .collect();
        let t = TT {
            axes,
            dt: Dt::F,
            dom: Dom::Real,
            iv: Iv::new(-3.0, 3.0),
        };
        let name = self.value_name(&fx);
        fx.add_param(name, Ty::T(t.clone()));
        fx.fixed_params = true;
        let goal = Goal::of(&t);
        self.body(fx, goal)
    }

    /// A function's statements and value for `goal`.
    fn body(&mut self, mut fx: Fx, goal: Goal) -> Func {
        let count = self.rng.range(0, 4);
        for _ in 0..count {
            self.stmt(&mut fx, &goal);
        }
        let masked = returns(&fx.stmts).is_empty() && self.rng.chance(0.1);
        let tail = match masked.then(|| self.mask_tail(&mut fx, &goal)).flatten() {
            Some(t) => t,
            None => self.value(&mut fx, &goal, 3),
        };
        self.finish(fx, tail)
    }

    /// `x[m]`: the rows of a value for `goal` a mask over its first axis
    /// keeps; the function returns an unknown size `?k`.
    fn mask_tail(&mut self, fx: &mut Fx, goal: &Goal) -> Option<Expr> {
        let first = goal.axes.first()?.clone();
        if first.name.is_none() || !goal.dt.is_float() || fx.model.is_some() {
            return None;
        }
        let x = self.value(fx, goal, 2);
        let m = self.boolean(fx, &Goal::new(vec![first], Dt::Bool), 2);
        let mut t = x.tensor()?.clone();
        t.axes[0] = fx.unknown();
        fx.discontinuous = true;
        Some(Expr::new(Op::Mask, vec![x, m], Ty::T(t)))
    }

    /// The function: generic axes that types or values use but no
    /// parameter's axis introduces get a parameter of their own.
    pub fn finish(&mut self, mut fx: Fx, mut tail: Expr) -> Func {
        let mut used = BTreeSet::new();
        for p in &fx.params {
            symbols_of_ty(&p.ty, &mut used);
        }
        for s in &fx.stmts {
            symbols_of_stmt(s, &mut used);
        }
        symbols_of_expr(&tail, &mut used);
        let introduced = introduced(&fx);
        let mut generics = Vec::new();
        for g in fx.generics.clone() {
            if !used.contains(&g) {
                continue;
            }
            if !introduced.contains(&g) {
                let name = self.value_name(&fx);
                let ty = Ty::T(TT {
                    axes: vec![Axis::sym(&g)],
                    dt: fx.float,
                    dom: Dom::Real,
                    iv: Iv::new(-3.0, 3.0),
                });
                fx.add_param(name, ty);
            }
            generics.push(g);
        }
        // Tensors made in a body of one concrete float dtype have it only
        // when a tensor parameter (or field) has it
        // (`docs/shapescript/functions.md`): one more parameter, of a dim.
        let own_dtype = matches!(fx.float, Dt::F64 | Dt::Bf16);
        let has_own = fx
            .params
            .iter()
            .any(|p| p.ty.tensor().is_some_and(|t| t.dt == fx.float));
        if own_dtype && !has_own && fx.model.is_none() {
            let axes = self
                .prog
                .dims
                .first()
                .map(|(d, _)| vec![Axis::sym(d)])
                .unwrap_or_default();
            let t = TT {
                axes,
                dt: fx.float,
                dom: Dom::Real,
                iv: Iv::new(-3.0, 3.0),
            };
            let name = self.value_name(&fx);
            fx.add_param(name, Ty::T(t));
        }
        let reads = super::hygiene::reads(&fx.stmts, &tail);
        for name in super::hygiene::bound(&fx.params, &fx.stmts) {
            if reads.contains(&name) && name != "self" {
                let new = (2..)
                    .map(|i| format!("{name}{i}"))
                    .find(|n| !fx.used.contains(n) && !reads.contains(n))
                    .unwrap_or_default();
                fx.used.push(new.clone());
                super::hygiene::rename(&mut fx.params, &mut fx.stmts, &mut tail, &name, &new);
            }
        }
        // Without a dtype-less tensor parameter, the body's dtype-less
        // tensors are made in the default float dtype
        // (`docs/shapescript/functions.md`).
        let has_float_param = fx
            .params
            .iter()
            .any(|p| p.ty.tensor().is_some_and(|t| t.dt == Dt::F));
        let float = if fx.float == Dt::F && !has_float_param && fx.model.is_none() {
            Dt::F32
        } else {
            fx.float
        };
        let mut ret = tail.ty.clone();
        if let Ty::T(t) = &mut ret {
            for r in returns(&fx.stmts) {
                if let Some(o) = r.tensor() {
                    t.dom = join_dom(&t.dom, &o.dom);
                    t.iv = t.iv.union(o.iv);
                }
            }
        }
        if float != fx.float {
            // Its dtype-less values are f32 whatever the caller's: written so.
            concrete(&mut ret);
            concrete_annotations(&mut fx.stmts);
        }
        Func {
            name: fx.name,
            params: fx.params,
            ret,
            body: fx.stmts,
            tail,
            float,
            generics,
            discontinuous: fx.discontinuous,
        }
    }
}

/// `F` written as `f32` (the default float dtype).
fn concrete(ty: &mut Ty) {
    match ty {
        Ty::T(t) if t.dt == Dt::F => t.dt = Dt::F32,
        Ty::Tuple(items) => items.iter_mut().for_each(concrete),
        _ => {}
    }
}

fn concrete_annotations(stmts: &mut [Stmt]) {
    for s in stmts {
        match s {
            Stmt::Let { annot: Some(t), .. } => concrete(t),
            Stmt::If { then, els, .. } => {
                concrete_annotations(then);
                if let Some(e) = els {
                    concrete_annotations(e);
                }
            }
            Stmt::For { body, .. } => concrete_annotations(body),
            _ => {}
        }
    }
}

/// The values `return` statements give, nested ones too.
fn returns(stmts: &[Stmt]) -> Vec<&Expr> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Return(e) => out.push(e),
            Stmt::If { then, els, .. } => {
                out.extend(returns(then));
                out.extend(returns(els.as_deref().unwrap_or(&[])));
            }
            Stmt::For { body, .. } => out.extend(returns(body)),
            _ => {}
        }
    }
    out
}

/// The narrowest domain the generator names that holds both.
pub fn join_dom(a: &Dom, b: &Dom) -> Dom {
    use Dom::*;
    match (a, b) {
        _ if a == b => a.clone(),
        (Pos | NonNeg | Unit, Pos | NonNeg | Unit) => NonNeg,
        (Signed | Unit, Signed | Unit) => Signed,
        (Neg | NonPos, Neg | NonPos) => NonPos,
        _ => Real,
    }
}

/// The generic axes a parameter's axis introduces: a plain axis `n`, or a
/// grouped size `2gh`.
fn introduced(fx: &Fx) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in &fx.params {
        if let Ty::T(t) = &p.ty {
            for a in &t.axes {
                if let Some(s) = a.size.as_sym() {
                    out.insert(s.to_string());
                }
                if a.text.is_some() {
                    out.extend(a.size.symbols());
                }
            }
        }
    }
    out
}

pub fn symbols_of_ty(ty: &Ty, out: &mut BTreeSet<String>) {
    match ty {
        Ty::T(t) => {
            for a in &t.axes {
                out.extend(a.size.symbols());
            }
            if let Dom::Index(n) = &t.dom {
                out.extend(n.symbols());
            }
        }
        Ty::Tuple(items) => items.iter().for_each(|i| symbols_of_ty(i, out)),
        Ty::Rec(_, bind) => bind.iter().for_each(|(_, s)| out.extend(s.symbols())),
        _ => {}
    }
}

pub fn symbols_of_expr(e: &Expr, out: &mut BTreeSet<String>) {
    symbols_of_ty(&e.ty, out);
    match &e.op {
        Op::SizeVal(s) | Op::Arange(s) | Op::OneHot(s) => out.extend(s.symbols()),
        Op::Fill { axes, .. } => axes.iter().for_each(|a| out.extend(a.size.symbols())),
        Op::Call { bind, .. } | Op::Method { bind, .. } => {
            bind.iter().for_each(|(_, s)| out.extend(s.symbols()))
        }
        Op::Pattern { plan, .. } => {
            for s in plan.split.iter().chain(&plan.expand).chain(&plan.merge) {
                out.extend(s.symbols());
            }
        }
        Op::To {
            conv: crate::ast::Conv::Reshape(s),
            ..
        } => s.iter().for_each(|s| out.extend(s.symbols())),
        _ => {}
    }
    e.args.iter().for_each(|a| symbols_of_expr(a, out));
}

pub fn symbols_of_stmt(s: &Stmt, out: &mut BTreeSet<String>) {
    match s {
        Stmt::Let { value, annot, .. } => {
            symbols_of_expr(value, out);
            if let Some(t) = annot {
                symbols_of_ty(t, out);
            }
        }
        Stmt::LetTuple { value, .. } | Stmt::Assign { value, .. } | Stmt::Return(value) => {
            symbols_of_expr(value, out)
        }
        Stmt::If { cond, then, els } => {
            symbols_of_expr(cond, out);
            then.iter().for_each(|s| symbols_of_stmt(s, out));
            els.iter().flatten().for_each(|s| symbols_of_stmt(s, out));
        }
        Stmt::For { iter, body, .. } => {
            symbols_of_expr(iter, out);
            body.iter().for_each(|s| symbols_of_stmt(s, out));
        }
    }
}
