//! Models: size parameters, tensor fields, a sub-model of an earlier
//! model, a stack of an earlier model whose `forward` keeps its input's
//! type, and methods that read the fields (`self.w`), call the model's
//! earlier methods (`self.g(x)`) and the sub-model (`self.sub(x)`), and go
//! over the stack (`for blk in self.blocks { h = blk(h) }`).

use super::calls::Binding;
use super::fx::Fx;
use super::{Gen, Goal, Names};
use crate::ast::{Expr, Field, Func, Model, Op, Stmt};
use crate::names;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

impl Gen {
    /// A model with its fields and methods, added to the program; its
    /// methods are entry points.
    pub fn model(&mut self) {
        let name = self.model_name();
        let mut size_params = Vec::new();
        if self.rng.chance(0.5) {
            let p = *self.rng.pick(&["P", "Q", "R"]);
            if self.top_level_free(p) {
                size_params.push(p.to_string());
            }
        }
        let fields = self.model_fields(&size_params);
        self.prog.models.push(Model {
            name: name.clone(),
            size_params: size_params.clone(),
            fields,
            methods: Vec::new(),
        });
        let count = self.rng.range(1, 2);
        let block = size_params.is_empty() && self.rng.chance(0.5);
        for i in 0..count {
            let method = if i == 0 {
                "forward".to_string()
            } else {
                format!("g{i}")
            };
            let f = if i == 0 && block {
                self.block_forward(&name)
            } else {
                self.func(&method, Some((name.clone(), size_params.clone())))
            };
            self.prog.entries.push((name.clone(), method));
            if let Some(m) = self.prog.models.iter_mut().find(|m| m.name == name) {
                m.methods.push(f);
            }
        }
    }

    fn model_name(&mut self) -> String {
        loop {
            let name = match self.names {
                Names::Clashing if self.rng.chance(0.5) => self
                    .rng
                    .pick(&[
                        "Module",
                        "Tensor",
                        "ShapeError",
                        "Parameter",
                        "F",
                        "nn",
                        "list",
                    ])
                    .to_string(),
                _ => format!("M{}", self.rng.below(100)),
            };
            if self.top_level_free(&name) && !names::CALLABLES.contains(&name.as_str()) {
                return name;
            }
        }
    }

    fn model_fields(&mut self, size_params: &[String]) -> Vec<Field> {
        let mut pool: Vec<Axis> = self.prog.dims.iter().map(|(d, _)| Axis::sym(d)).collect();
        pool.extend(size_params.iter().map(|p| Axis::sym(p)));
        let mut fields = Vec::new();
        let mut used: Vec<String> = Vec::new();
        let mut member = |g: &mut Gen| loop {
            let n = match g.names {
                Names::Clashing if g.rng.chance(0.5) => g.rng.pick(names::PYTHON).to_string(),
                _ => g
                    .rng
                    .pick(&["w", "b", "v", "u", "scale", "bias", "weight"])
                    .to_string(),
            };
            if !used.contains(&n)
                && !names::SS_KEYWORDS.contains(&n.as_str())
                && n != "self"
                && n != "training"
                && n != "forward"
                && !n.starts_with('g')
            {
                used.push(n.clone());
                return n;
            }
        };
        for _ in 0..self.rng.range(1, 3) {
            let rank = self.rng.range(1, 2) as usize;
            let mut axes: Vec<Axis> = Vec::new();
            for _ in 0..rank {
                let a = self.rng.pick(&pool).clone();
                if !axes.contains(&a) {
                    axes.push(a);
                }
            }
            let t = TT {
                axes,
                dt: Dt::F,
                dom: Dom::Real,
                iv: Iv::new(-1.0, 1.0),
            };
            fields.push(Field::Tensor(member(self), t));
        }
        if self.rng.chance(0.4) {
            let name = member(self);
            if let Some(b) = self.buffer(name, &pool, size_params) {
                fields.push(b);
            }
        }
        let earlier: Vec<Model> = self.prog.models.clone();
        if let Some(sub) = earlier
            .iter()
            .find(|m| m.methods.iter().any(|f| f.name == "forward"))
        {
            if self.rng.chance(0.6) {
                let args = sub
                    .size_params
                    .iter()
                    .map(|_| self.rng.pick(&pool).size.clone())
                    .collect();
                fields.push(Field::Sub(member(self), sub.name.clone(), args));
            }
        }
        if let Some(block) = earlier
            .iter()
            .find(|m| m.size_params.is_empty() && keeps_type(m))
        {
            if self.rng.chance(0.6) {
                fields.push(Field::Stack(member(self), 2, block.name.clone()));
            }
        }
        fields
    }

    /// `buffer name: T = value`: a value of the dims and the model's sizes
    /// (no parameters, no `self`), of axes of the pool, a float (the type
    /// without a dtype: computed in f32, converted with the model) or a mask.
    fn buffer(&mut self, name: String, pool: &[Axis], size_params: &[String]) -> Option<Field> {
        let mut fx = Fx::new("buffer", Dt::F, size_params.to_vec());
        fx.hidden = pool.iter().filter_map(|a| a.name.clone()).collect();
        fx.fixed_params = true;
        let rank = self.rng.range(1, 2) as usize;
        let mut axes: Vec<Axis> = Vec::new();
        for _ in 0..rank {
            let a = self.rng.pick(pool).clone();
            if !axes.contains(&a) {
                axes.push(a);
            }
        }
        let dt = if self.rng.chance(0.25) {
            Dt::Bool
        } else {
            Dt::F
        };
        let goal = Goal::new(axes, dt).within(Iv::new(-3.0, 3.0));
        let value = self.value(&mut fx, &goal, 2);
        let t = value.tensor()?.clone();
        fx.params
            .is_empty()
            .then_some(Field::Buffer(name, t, Box::new(value)))
    }

    /// The fields of `fx`'s model as values in scope: `self.w`.
    pub fn field_values(&self, fx: &Fx) -> Vec<Expr> {
        let Some((model, _)) = &fx.model else {
            return Vec::new();
        };
        let Some(m) = self.prog.model(model) else {
            return Vec::new();
        };
        let me = Expr::leaf(Op::Var("self".into()), Ty::Model(model.clone()));
        m.fields
            .iter()
            .filter_map(|f| match f {
                Field::Tensor(n, t) | Field::Buffer(n, t, _) => Some(Expr::new(
                    Op::Field(n.clone()),
                    vec![me.clone()],
                    Ty::T(t.clone()),
                )),
                _ => None,
            })
            .collect()
    }

    /// A call of one of the model's earlier methods or of its sub-model.
    pub(super) fn method_call(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let (model, sizes) = fx.model.clone()?;
        let m = self.prog.model(&model)?.clone();
        let me = Expr::leaf(Op::Var("self".into()), Ty::Model(model.clone()));
        let mut options: Vec<(Expr, Model, Binding, bool)> = Vec::new();
        let own: Binding = sizes.iter().map(|s| (s.clone(), Axis::sym(s))).collect();
        options.push((me.clone(), m.clone(), own, false));
        for f in &m.fields {
            if let Field::Sub(n, sub, args) = f {
                let sub = self.prog.model(sub)?.clone();
                let recv = Expr::new(
                    Op::Field(n.clone()),
                    vec![me.clone()],
                    Ty::Model(sub.name.clone()),
                );
                let bind = sub
                    .size_params
                    .iter()
                    .cloned()
                    .zip(
                        args.iter()
                            .map(|a| super::shape::named(Axis::anon(a.clone()))),
                    )
                    .collect();
                options.push((recv, sub, bind, true));
            }
        }
        let (recv, target, fixed, sugar) = self.rng.pick(&options).clone();
        let methods: Vec<Func> = target
            .methods
            .iter()
            .filter(|f| !sugar || f.name == "forward")
            .filter(|f| f.ret.tensor().is_some_and(|t| t.rank() == goal.axes.len()))
            .cloned()
            .collect();
        if methods.is_empty() {
            return None;
        }
        let f = self.rng.pick(&methods).clone();
        let mut bind = self.unify(&f, goal)?;
        for (k, v) in fixed {
            bind.insert(k, v);
        }
        let (mut args, bind, ret) = self.instantiate(fx, &f, bind, depth)?;
        args.insert(0, recv);
        let op = Op::Method {
            model: target.name.clone(),
            method: f.name.clone(),
            bind,
            float: fx.float,
            sugar,
        };
        Some(Expr::new(op, args, ret))
    }

    /// `let h = ..` then `for blk in self.blocks { h = blk(h) }`.
    pub(super) fn stack_stmt(&mut self, fx: &mut Fx) {
        let Some((model, _)) = fx.model.clone() else {
            return;
        };
        let Some(m) = self.prog.model(&model).cloned() else {
            return;
        };
        let Some((field, block)) = m.fields.iter().find_map(|f| match f {
            Field::Stack(n, _, b) => Some((n.clone(), b.clone())),
            _ => None,
        }) else {
            return;
        };
        let Some(forward) = self
            .prog
            .model(&block)
            .and_then(|b| b.methods.iter().find(|f| f.name == "forward"))
            .cloned()
        else {
            return;
        };
        let Some(Ty::T(p)) = forward.params.first().map(|p| p.ty.clone()) else {
            return;
        };
        let pool = self.pool(fx);
        let bind: Binding = forward
            .generics
            .iter()
            .map(|g| (g.clone(), self.rng.pick(&pool).clone()))
            .collect();
        let t = self.subst(&p, &bind, fx.float);
        let value = self.value(fx, &Goal::of(&t), 2);
        let name = self.value_name(fx);
        let var = self.value_name(fx);
        if name == var {
            return;
        }
        let h = TT {
            dom: Dom::Real,
            ..t.clone()
        };
        fx.stmts.push(Stmt::Let {
            name: name.clone(),
            annot: None,
            value,
        });
        fx.add_local(name.clone(), Ty::T(h.clone()), true);
        let me = Expr::leaf(Op::Var("self".into()), Ty::Model(model.clone()));
        let stack = Expr::new(Op::Field(field), vec![me], Ty::Stack(2, block.clone()));
        let blk = Expr::leaf(Op::Var(var.clone()), Ty::Model(block.clone()));
        let sizes = bind.into_iter().map(|(k, v)| (k, v.size)).collect();
        let op = Op::Method {
            model: block,
            method: "forward".into(),
            bind: sizes,
            float: fx.float,
            sugar: true,
        };
        let call = Expr::new(
            op,
            vec![blk, Expr::leaf(Op::Var(name.clone()), Ty::T(h.clone()))],
            Ty::T(h),
        );
        fx.used.push(var.clone());
        fx.stmts.push(Stmt::For {
            var,
            iter: stack,
            over_stack: true,
            body: vec![Stmt::Assign { name, value: call }],
        });
    }
}

/// Whether a model's `forward` takes one tensor and gives back its type,
/// values within the bounds it takes: a block a stack can repeat.
fn keeps_type(m: &Model) -> bool {
    let Some(f) = m.methods.iter().find(|f| f.name == "forward") else {
        return false;
    };
    match (f.params.as_slice(), &f.ret) {
        ([p], Ty::T(r)) => match &p.ty {
            Ty::T(t) => {
                t.axes == r.axes && t.dt == r.dt && r.iv.lo >= t.iv.lo && r.iv.hi <= t.iv.hi
            }
            _ => false,
        },
        _ => false,
    }
}

impl Gen {
    /// `R(a=x, b=s).a`: a record built and read back, its axes bound at
    /// the construction (`docs/shapescript/models.md`); `b` is a `NonNeg`
    /// field of the first axis.
    pub(super) fn record_field(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let first = goal.axes.first()?.clone();
        // A field read back has the call's float dtype, whatever the
        // values' (imprecision reported as G19): dtype-less bodies only.
        if goal.dt != Dt::F || first.name.is_none() {
            return None;
        }
        let name = self.record_for(goal.axes.len())?;
        if fx.hides(&name) {
            return None;
        }
        let a = self.float(fx, &goal.same_values(goal.axes.clone()), depth - 1);
        let b_goal = Goal::new(vec![first], goal.dt).with_dom(Dom::NonNeg);
        let b = self.float(fx, &b_goal, depth - 1);
        let ta = a.tensor()?.clone();
        let bind = vec![("a".to_string(), crate::size::Size::lit(0))];
        let rec = Expr::new(
            Op::Record(name.clone(), vec!["a".into(), "b".into()]),
            vec![a, b],
            Ty::Rec(name, bind),
        );
        Some(Expr::new(
            Op::Field("a".into()),
            vec![rec],
            Ty::T(TT {
                dom: Dom::Real,
                ..ta
            }),
        ))
    }

    /// The record of `rank` axes (`record R2 { a: [p0 p1], b: [p0] NonNeg }`),
    /// declared the first time it is needed.
    fn record_for(&mut self, rank: usize) -> Option<String> {
        let name = format!("R{rank}");
        if self.prog.record(&name).is_some() {
            return Some(name);
        }
        if !self.top_level_free(&name) {
            return None;
        }
        let axes: Vec<Axis> = (0..rank).map(|i| Axis::sym(&format!("p{i}"))).collect();
        let a = TT {
            axes: axes.clone(),
            dt: Dt::F,
            dom: Dom::Real,
            iv: Iv::new(-3.0, 3.0),
        };
        let b = TT {
            axes: axes[..1].to_vec(),
            dt: Dt::F,
            dom: Dom::NonNeg,
            iv: Iv::new(0.0, 3.0),
        };
        self.prog.records.push(crate::ast::Record {
            name: name.clone(),
            fields: vec![("a".into(), a), ("b".into(), b)],
        });
        Some(name)
    }
}
