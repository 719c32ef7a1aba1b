//! Float strategies over whole tensors: operators with broadcasting by
//! name, reductions and axis-wise operations found by `over=`, `@` with
//! batch axes paired by name, `where`, `clamp`, `maximum`/`minimum`, and
//! dtype conversions.

use super::float::{align_of, bin_dom, bin_parts, scalar_dom, scalar_iv};
use super::shape::{find, names_uniquely, pair};
use super::{Fx, Gen, Goal, MAG};
use crate::ast::{Bin, Conv, Expr, Op};
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

impl Gen {
    /// `a op b`, one side the goal's axes, the other too or fewer axes
    /// paired by name, or a Python number.
    pub(super) fn binary(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        // A positive value is only a sum: products may underflow to 0.
        let ops: &[Bin] = match goal.dom {
            Dom::Pos => &[Bin::Add],
            _ => &[
                Bin::Add,
                Bin::Add,
                Bin::Sub,
                Bin::Mul,
                Bin::Mul,
                Bin::Div,
                Bin::Pow,
            ],
        };
        let op = *self.rng.pick(ops);
        let m = goal.within.lo.abs().min(goal.within.hi.abs()).min(MAG);
        let (a, b) = match op {
            Bin::Add | Bin::Sub => {
                let w = Iv::new(-m / 2.0, m / 2.0);
                let a = self.operand(fx, goal, w, sub_dom(goal, op), depth);
                let b = self.operand(fx, goal, w, sub_dom(goal, op), depth);
                (a, b)
            }
            Bin::Mul => {
                let r = m.sqrt();
                let a = self.operand(fx, goal, Iv::new(-r, r), sub_dom(goal, op), depth);
                let b = self.operand(fx, goal, Iv::new(-r, r), sub_dom(goal, op), depth);
                (a, b)
            }
            Bin::Div => {
                let a = self.operand(
                    fx,
                    goal,
                    Iv::new(-m / 10.0, m / 10.0),
                    sub_dom(goal, op),
                    depth,
                );
                let b = self.operand(fx, goal, Iv::new(0.1, MAG), Dom::Pos, depth);
                (a, b)
            }
            _ => {
                let r = m.sqrt().min(5.0);
                let a = Goal::new(goal.axes.clone(), goal.dt).within(Iv::new(-r, r));
                let a = self.float(fx, &a, depth - 1);
                let two = Expr::leaf(Op::Int(2), Ty::Int(Iv::point(2.0)));
                (a, two)
            }
        };
        let swap = matches!(op, Bin::Add | Bin::Mul) && self.rng.chance(0.3);
        let (a, b) = if swap { (b, a) } else { (a, b) };
        self.combine(op, a, b)
    }

    /// `a op b` with its result type, when the operands pair by name.
    pub fn combine(&mut self, op: Bin, a: Expr, b: Expr) -> Option<Expr> {
        let big = match (&a.ty, &b.ty) {
            (Ty::T(x), Ty::T(y)) => {
                if x.rank() >= y.rank() {
                    x.clone()
                } else {
                    y.clone()
                }
            }
            (Ty::T(x), _) => x.clone(),
            (_, Ty::T(y)) => y.clone(),
            _ => return None,
        };
        let (align, iv) = bin_parts(&self.dims, op, &a, &b, &big.axes)?;
        let dom = match op {
            Bin::Pow => Dom::NonNeg,
            _ => bin_dom(op, &scalar_dom(&a), &scalar_dom(&b)),
        };
        let t = TT { iv, dom, ..big };
        Some(Expr::new(Op::Bin(op, align), vec![a, b], Ty::T(t)))
    }

    /// `sum(x, over=n)` and the other reductions, over axes the goal lacks.
    pub(super) fn reduction(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let f = *self.rng.pick(&[
            "sum",
            "sum",
            "mean",
            "max",
            "min",
            "logsumexp",
            "prod",
            "var",
            "std",
        ]);
        if fx.hides(f) {
            return None;
        }
        let (axes, over, at) = self.reduced_axes(fx, &goal.axes)?;
        let count = |size: &dyn Fn(&crate::size::Size) -> i64| -> i64 {
            at.iter().map(|&i| size(&axes[i].size)).product()
        };
        let n = count(&|s| self.dims.max(s)) as f64;
        let fewest = count(&|s| self.dims.min(s));
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let (within, dom) = match f {
            "sum" => (Iv::new(-m / n, m / n), sub_dom(goal, Bin::Add)),
            "prod" => (Iv::new(-1.0, 1.0), sub_dom(goal, Bin::Mul)),
            "var" => (Iv::new(-m.sqrt() / 2.0, m.sqrt() / 2.0), Dom::Real),
            "logsumexp" => (Iv::new(-m / 2.0, m / 2.0), Dom::Real),
            _ => (goal.within, goal.dom.clone()),
        };
        let arg = self.float(
            fx,
            &Goal::new(axes, goal.dt).with_dom(dom).within(within),
            depth - 1,
        );
        let a = arg.tensor()?.clone();
        if !over
            .iter()
            .zip(&at)
            .all(|(n, &i)| names_uniquely(&a.axes, n, i))
        {
            return None;
        }
        let iv = match f {
            "sum" => a.iv.times(n),
            "logsumexp" => Iv::new(a.iv.lo, a.iv.hi + n.ln()),
            "var" => Iv::new(0.0, (a.iv.hi - a.iv.lo).powi(2)),
            "std" => Iv::new(0.0, a.iv.hi - a.iv.lo),
            _ => a.iv,
        };
        let dom = match f {
            "var" | "std" => Dom::NonNeg,
            "logsumexp" => Dom::Real,
            "prod" if matches!(a.dom, Dom::Unit) => a.dom.clone(),
            "prod" => Dom::Real,
            "sum" if matches!(a.dom, Dom::Pos | Dom::NonNeg) => a.dom.clone(),
            "sum" if matches!(a.dom, Dom::Unit) => Dom::NonNeg,
            "sum" => Dom::Real,
            _ => a.dom.clone(),
        };
        // The unbiased statistic needs two values: over an axis that may
        // hold one, the population's (`correction=0`, E0415).
        let f = match f {
            "var" if fewest < 2 => "var0",
            "std" if fewest < 2 => "std0",
            f => f,
        };
        let op = Op::Reduce { f, over, dims: at };
        Some(Expr::new(
            op,
            vec![arg],
            Ty::T(TT {
                axes: goal.axes.clone(),
                dt: goal.dt,
                dom,
                iv,
            }),
        ))
    }

    /// `axes` with one or two named axes of the pool inserted, to reduce
    /// over: the new list, their names and their positions in it.
    fn reduced_axes(
        &mut self,
        fx: &Fx,
        axes: &[Axis],
    ) -> Option<(Vec<Axis>, Vec<String>, Vec<usize>)> {
        let mut extras = vec![self.extra_axis(fx, axes)?];
        if self.rng.chance(0.25) {
            let with: Vec<Axis> = axes.iter().chain(&extras).cloned().collect();
            extras.extend(self.extra_axis(fx, &with));
        }
        let mut out = axes.to_vec();
        for e in &extras {
            let at = self.rng.below(out.len() + 1);
            out.insert(at, e.clone());
        }
        let names: Option<Vec<String>> = extras.iter().map(|e| e.name.clone()).collect();
        let mut at: Vec<usize> = extras
            .iter()
            .filter_map(|e| out.iter().position(|a| a == e))
            .collect();
        at.sort();
        let names = at
            .iter()
            .map(|&i| out[i].name.clone())
            .collect::<Option<Vec<_>>>()
            .filter(|_| names.is_some())?;
        Some((out, names, at))
    }

    /// A named axis of the pool that no axis of `axes` could be taken for.
    pub fn extra_axis(&mut self, fx: &Fx, axes: &[Axis]) -> Option<Axis> {
        let free: Vec<Axis> = self
            .pool(fx)
            .into_iter()
            .filter(|a| {
                let n = a.name.as_deref().unwrap_or("");
                find(axes, n).is_empty() && axes.iter().all(|b| b.size.as_sym() != Some(n))
            })
            .collect();
        (!free.is_empty()).then(|| self.rng.pick(&free).clone())
    }

    /// `softmax log_softmax cumsum sort` over one of the goal's axes.
    pub(super) fn axis_wise(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let f = *self.rng.pick(&["softmax", "log_softmax", "cumsum", "sort"]);
        let at = self.rng.below(goal.axes.len().max(1));
        let name = goal.axes.get(at)?.name.clone()?;
        if fx.hides(f) || !names_uniquely(&goal.axes, &name, at) {
            return None;
        }
        let n = self.dims.max(&goal.axes[at].size) as f64;
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let within = match f {
            "cumsum" => Iv::new(-m / n, m / n),
            "log_softmax" => Iv::new(-4.0, 4.0),
            "sort" => goal.within,
            _ => Iv::new(-MAG, MAG),
        };
        let dom = match f {
            "sort" => goal.dom.clone(),
            "cumsum" => sub_dom(goal, Bin::Add),
            _ => Dom::Real,
        };
        let arg = self.float(
            fx,
            &Goal::new(goal.axes.clone(), goal.dt)
                .with_dom(dom)
                .within(within),
            depth - 1,
        );
        let a = arg.tensor()?.clone();
        let (dom, iv) = match f {
            "softmax" => (Dom::Unit, Iv::new(0.0, 1.0)),
            "log_softmax" => (Dom::NonPos, Iv::new(a.iv.lo - a.iv.hi - n.ln() - 1.0, 0.0)),
            "cumsum" => (
                if matches!(a.dom, Dom::Pos | Dom::NonNeg) {
                    a.dom.clone()
                } else {
                    Dom::Real
                },
                a.iv.times(n),
            ),
            _ => (a.dom.clone(), a.iv),
        };
        let op = Op::AxisWise {
            f,
            over: name,
            dim: at,
        };
        Some(Expr::new(op, vec![arg], Ty::T(TT { dom, iv, ..a })))
    }

    /// `a @ b`: `[..B i k] @ [..B' k j]` with `B'` some of `B`'s named axes
    /// (paired by name), or `[.. k] @ [k]`.
    pub(super) fn matmul(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let r = goal.axes.len();
        if r == 0 {
            return None;
        }
        let k = self.extra_axis(fx, &goal.axes)?;
        let n = self.dims.max(&k.size) as f64;
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let w = (m / n).sqrt().min(2.0);
        let vector = r == 1 || self.rng.chance(0.25);
        let mut lhs: Vec<Axis> = goal.axes[..if vector { r } else { r - 1 }].to_vec();
        lhs.push(k.clone());
        let rhs: Vec<Axis> = if vector {
            vec![k.clone()]
        } else {
            let batch: Vec<Axis> = goal.axes[..r - 2]
                .iter()
                .filter(|a| a.name.is_some() && self.rng.chance(0.6))
                .cloned()
                .collect();
            let mut rhs = batch;
            rhs.push(k.clone());
            rhs.push(goal.axes[r - 1].clone());
            rhs
        };
        let g = |axes: Vec<Axis>| Goal::new(axes, goal.dt).within(Iv::new(-w, w));
        let a = self.float(fx, &g(lhs), depth - 1);
        let b = self.float(fx, &g(rhs), depth - 1);
        let (ta, tb) = (a.tensor()?.clone(), b.tensor()?.clone());
        let eq = matmul_equation(&self.dims, &ta.axes, &tb.axes, vector)?;
        let iv = ta.iv.product(tb.iv).times(n);
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(Expr::new(Op::MatMul(eq), vec![a, b], Ty::T(t)))
    }

    /// `where(c, a, b)`: a condition of some of the goal's named axes.
    pub(super) fn select(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("where") {
            return None;
        }
        let cond_axes = self.some_named(&goal.axes);
        let c = self.boolean(fx, &Goal::new(cond_axes, Dt::Bool), depth - 1);
        let a = self.float(fx, goal, depth - 1);
        let b = match self.number(fx, goal.within, &goal.dom) {
            Some(n) if self.rng.chance(0.4) => n,
            _ => self.float(fx, goal, depth - 1),
        };
        let (a, b) = self.either_order(a, b);
        let al = [
            align_of(&self.dims, &c, &goal.axes)?,
            align_of(&self.dims, &a, &goal.axes)?,
            align_of(&self.dims, &b, &goal.axes)?,
        ];
        let iv = scalar_iv(&a.ty).union(scalar_iv(&b.ty));
        let (da, db) = (scalar_dom(&a), scalar_dom(&b));
        let dom = if da == db { da } else { Dom::Real };
        fx.discontinuous = true;
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom,
            iv,
        };
        Some(Expr::new(Op::Where(al), vec![c, a, b], Ty::T(t)))
    }

    /// `clamp(x, lo=.., hi=..)`, `abs(x)`, `-x`.
    pub(super) fn clamp(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let (lo, hi) = *self.rng.pick(&[
            (Some(0.0), None),
            (Some(-1.0), Some(1.0)),
            (None, Some(0.5)),
            (Some(0.0), Some(1.0)),
            (Some(0.1), None),
        ]);
        let which = self.rng.below(3);
        let name = ["clamp", "abs", "-"][which];
        if fx.hides(name) {
            return None;
        }
        let within = Iv::new(
            -goal.within.hi.min(goal.within.lo.abs()),
            goal.within.hi.min(goal.within.lo.abs()),
        );
        let arg = self.float(
            fx,
            &Goal::new(goal.axes.clone(), goal.dt).within(within),
            depth - 1,
        );
        let a = arg.tensor()?.clone();
        let (op, dom, iv) = match which {
            0 => {
                let iv = Iv::new(
                    lo.map_or(a.iv.lo, |l| a.iv.lo.max(l)),
                    hi.map_or(a.iv.hi, |h| a.iv.hi.min(h)),
                );
                let dom = match (lo, hi) {
                    (Some(l), Some(h)) if l >= 0.0 && h <= 1.0 => Dom::Unit,
                    (Some(l), Some(h)) if l >= -1.0 && h <= 1.0 => Dom::Signed,
                    (Some(l), _) if l > 0.0 => Dom::Pos,
                    (Some(0.0), _) => Dom::NonNeg,
                    _ => Dom::Real,
                };
                (
                    Op::Clamp { lo, hi },
                    dom,
                    Iv::new(iv.lo.min(iv.hi), iv.hi.max(iv.lo)),
                )
            }
            1 => (Op::Abs, Dom::NonNeg, Iv::new(0.0, a.iv.mag())),
            _ => (Op::Neg, neg_dom(&a.dom), a.iv.negated()),
        };
        Some(Expr::new(op, vec![arg], Ty::T(TT { dom, iv, ..a })))
    }

    /// `maximum(a, b)` / `minimum(a, b)` of two tensors.
    pub(super) fn extreme(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let f = *self.rng.pick(&["maximum", "minimum"]);
        if fx.hides(f) {
            return None;
        }
        let a = self.float(
            fx,
            &Goal::new(goal.axes.clone(), goal.dt).within(goal.within),
            depth - 1,
        );
        let sub = self.some_named(&goal.axes);
        let b = self.float(fx, &Goal::new(sub, goal.dt).within(goal.within), depth - 1);
        let (a, b) = self.either_order(a, b);
        let al = [
            align_of(&self.dims, &a, &goal.axes)?,
            align_of(&self.dims, &b, &goal.axes)?,
        ];
        let (ia, ib) = (scalar_iv(&a.ty), scalar_iv(&b.ty));
        let iv = if f == "maximum" {
            Iv::new(ia.lo.max(ib.lo), ia.hi.max(ib.hi))
        } else {
            Iv::new(ia.lo.min(ib.lo), ia.hi.min(ib.hi))
        };
        fx.discontinuous = true;
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(Expr::new(
            Op::Extreme(f, [al[0].clone(), al[1].clone()]),
            vec![a, b],
            Ty::T(t),
        ))
    }

    /// A conversion: through another float dtype and back (`(x to bf16) to
    /// f32`), or an integer or boolean tensor `to Real`.
    pub(super) fn convert(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if self.rng.chance(0.3) {
            return self.clamp_to(fx, goal, depth);
        }
        if self.rng.chance(0.5) && goal.dt != Dt::F {
            let via = *self.rng.pick(&[Dt::Bf16, Dt::F64, Dt::F32]);
            let arg = self.float(
                fx,
                &Goal::new(goal.axes.clone(), goal.dt).within(goal.within),
                depth - 1,
            );
            let a = arg.tensor()?.clone();
            let ty = |dt: Dt| Ty::T(TT { dt, ..a.clone() });
            let mid = Expr::new(
                Op::To {
                    ty: via.key().into(),
                    conv: Conv::Dtype(via),
                },
                vec![arg],
                ty(via),
            );
            let back = goal.dt;
            return Some(Expr::new(
                Op::To {
                    ty: back.key().into(),
                    conv: Conv::Dtype(back),
                },
                vec![mid],
                ty(back),
            ));
        }
        let dt = *self.rng.pick(&[Dt::I64, Dt::I32, Dt::Bool]);
        let g = Goal::new(goal.axes.clone(), dt)
            .within(Iv::new(goal.within.lo.max(-8.0), goal.within.hi.min(8.0)));
        let arg = self.value(fx, &g, depth - 1);
        let a = arg.tensor()?.clone();
        let dom = match a.dom {
            Dom::Index(_) => Dom::NonNeg,
            Dom::Bool => Dom::Unit,
            _ => Dom::Real,
        };
        let t = TT {
            dt: fx.float,
            dom,
            ..a
        };
        if t.dt != goal.dt {
            return None;
        }
        Some(Expr::new(
            Op::To {
                ty: "Real".into(),
                conv: Conv::Dtype(fx.float),
            },
            vec![arg],
            Ty::T(t),
        ))
    }
}

impl Gen {
    /// `x to Unit` (and `Pos`, `NonNeg`, `Signed`): a clamp into the domain.
    fn clamp_to(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let (dom, lo, hi) = self
            .rng
            .pick(&[
                (Dom::Unit, Some(0.0), Some(1.0)),
                (Dom::Pos, Some(0.0), None),
                (Dom::NonNeg, Some(0.0), None),
                (Dom::Signed, Some(-1.0), Some(1.0)),
            ])
            .clone();
        let arg = self.float(
            fx,
            &Goal::new(goal.axes.clone(), goal.dt).within(goal.within),
            depth - 1,
        );
        let a = arg.tensor()?.clone();
        let iv = Iv::new(
            lo.map_or(a.iv.lo, |l| a.iv.lo.max(l)),
            hi.map_or(a.iv.hi, |h| a.iv.hi.min(h)),
        );
        let iv = Iv::new(iv.lo.min(iv.hi), iv.hi.max(iv.lo));
        let op = Op::To {
            ty: dom.ss()?,
            conv: Conv::Clamp(lo, hi),
        };
        Some(Expr::new(op, vec![arg], Ty::T(TT { dom, iv, ..a })))
    }

    /// `stack(a, b)` for a goal whose first axis is 2.
    pub(super) fn stack_op(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("stack")
            || goal.axes.first()?.size.as_lit() != Some(2)
            || goal.axes[0].name.is_some()
        {
            return None;
        }
        let inner = goal.same_values(goal.axes[1..].to_vec());
        let a = self.float(fx, &inner, depth - 1);
        let b = self.float(fx, &inner, depth - 1);
        let t = goal.union_of(&a, &b)?;
        Some(Expr::new(Op::Stack, vec![a, b], Ty::T(t)))
    }

    /// `tril(x)` / `triu(x)` over the last two axes: zeros added.
    pub(super) fn triangle(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let (f, op) = if self.rng.chance(0.5) {
            ("tril", Op::Tril)
        } else {
            ("triu", Op::Triu)
        };
        if fx.hides(f) || goal.axes.len() < 2 {
            return None;
        }
        let arg = self.float(fx, &goal.same_values(goal.axes.clone()), depth - 1);
        let a = arg.tensor()?.clone();
        let dom = match a.dom {
            Dom::Pos | Dom::NonNeg => Dom::NonNeg,
            Dom::Unit => Dom::Unit,
            Dom::Signed => Dom::Signed,
            Dom::Neg | Dom::NonPos => Dom::NonPos,
            _ => Dom::Real,
        };
        let iv = a.iv.union(Iv::point(0.0));
        Some(Expr::new(op, vec![arg], Ty::T(TT { dom, iv, ..a })))
    }

    /// `x as T`: a claim of the value's own shape and dtype, which the
    /// emitted code verifies when it runs.
    pub(super) fn claim(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let plain = goal.axes.iter().all(|a| {
            a.name.as_deref().is_none_or(|n| Some(n) == a.size.as_sym())
                && a.size.symbols().iter().all(|s| !s.starts_with('?'))
        });
        if !plain {
            return None;
        }
        let arg = self.float(fx, &goal.same_values(goal.axes.clone()), depth - 1);
        let a = arg.tensor()?.clone();
        let written = TT {
            dom: Dom::Real,
            ..a.clone()
        };
        Some(Expr::new(Op::As(written.ss()), vec![arg], Ty::T(a)))
    }
}

/// The domain an operand of `op` must have for the result to reach the
/// goal's (`Pos` from `Pos + NonNeg`, ...); `Real` when any will do.
pub fn sub_dom(goal: &Goal, op: Bin) -> Dom {
    match (&goal.dom, op) {
        (Dom::Real, _) => Dom::Real,
        (Dom::Pos, Bin::Add) => Dom::Pos,
        (Dom::NonNeg, Bin::Add | Bin::Mul | Bin::Div) => Dom::NonNeg,
        (Dom::Unit, Bin::Mul) => Dom::Unit,
        (Dom::Signed, Bin::Mul) => Dom::Signed,
        (d, _) => d.clone(),
    }
}

fn neg_dom(d: &Dom) -> Dom {
    match d {
        Dom::Pos => Dom::Neg,
        Dom::NonNeg | Dom::Unit => Dom::NonPos,
        Dom::Neg => Dom::Pos,
        Dom::NonPos => Dom::NonNeg,
        Dom::Signed => Dom::Signed,
        _ => Dom::Real,
    }
}

/// The reference's einsum equation of `a @ b` as ShapeScript means it:
/// the last axis of `a` with `b`'s second to last (its only one for a
/// vector), `b`'s batch axes paired with `a`'s by name.
fn matmul_equation(
    dims: &super::shape::Dims,
    a: &[Axis],
    b: &[Axis],
    vector: bool,
) -> Option<String> {
    let letters: Vec<char> = ('a'..='z').collect();
    let ra = a.len();
    let la: Vec<char> = letters[..ra].to_vec();
    let k = la[ra - 1];
    if vector {
        let out: String = la[..ra - 1].iter().collect();
        return Some(format!("{},{k}->{out}", la.iter().collect::<String>()));
    }
    let j = letters[ra];
    let batch = &b[..b.len() - 2];
    let pos = pair(dims, batch, &a[..ra - 2])?;
    let mut lb: String = pos.iter().map(|&p| la[p]).collect();
    lb.push(k);
    lb.push(j);
    let mut out: String = la[..ra - 1].iter().collect();
    out.push(j);
    Some(format!("{},{lb}->{out}", la.iter().collect::<String>()))
}
