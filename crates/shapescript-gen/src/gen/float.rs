//! Float tensors built for a goal: leaves (a value in scope, a new
//! parameter, a filled tensor), the prelude's math, operators with
//! broadcasting by name, reductions and axis-wise operations, `@`,
//! `where`, clamps and conversions; patterns are in `layout`, calls in
//! `calls`. Each strategy gives an expression with its type, domain and
//! value bounds, or nothing when it does not apply; `value` keeps the
//! first that fits the goal and falls back to a leaf.

use super::shape::{find, pair};
use super::{dom_within, Fx, Gen, Goal, Strategy, MAG};
use crate::ast::{Bin, Expr, Op};
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

/// `(name, argument domain, argument bounds)` of the prelude functions.
const MATH: &[(&str, Dom, Iv)] = &[
    ("exp", Dom::Real, Iv::new(-8.0, 2.5)),
    ("log", Dom::Pos, Iv::new(1e-3, MAG)),
    ("sqrt", Dom::NonNeg, Iv::new(0.0, MAG)),
    ("rsqrt", Dom::Pos, Iv::new(0.01, MAG)),
    ("sin", Dom::Real, Iv::new(-MAG, MAG)),
    ("cos", Dom::Real, Iv::new(-MAG, MAG)),
    ("tanh", Dom::Real, Iv::new(-MAG, MAG)),
    ("sigmoid", Dom::Real, Iv::new(-MAG, MAG)),
    ("erf", Dom::Real, Iv::new(-MAG, MAG)),
    ("relu", Dom::Real, Iv::new(-MAG, MAG)),
    ("gelu", Dom::Real, Iv::new(-MAG, MAG)),
    ("silu", Dom::Real, Iv::new(-MAG, MAG)),
    ("softplus", Dom::Real, Iv::new(-8.0, 8.0)),
    ("log_sigmoid", Dom::Real, Iv::new(-8.0, 8.0)),
    ("expm1", Dom::Real, Iv::new(-8.0, 2.5)),
];

/// A function's result: its domain (what the checker proves from the
/// argument's domain, floats' rounding included: `exp` of `Real` reaches
/// 0, `docs/shapescript/ranges.md`) and its bounds from the argument's.
fn math_result(f: &str, a: Iv, d: &Dom) -> (Dom, Iv) {
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let sp = |x: f64| (1.0 + x.exp()).ln();
    let below = matches!(
        d,
        Dom::Unit | Dom::Signed | Dom::Pos | Dom::NonNeg | Dom::Bool
    );
    let above = matches!(
        d,
        Dom::Unit | Dom::Signed | Dom::Neg | Dom::NonPos | Dom::Bool
    );
    let pos_if = |bounded: bool| if bounded { Dom::Pos } else { Dom::NonNeg };
    match f {
        "exp" => (pos_if(below), Iv::new(a.lo.exp(), a.hi.exp())),
        "expm1" => (Dom::Real, Iv::new(a.lo.exp_m1(), a.hi.exp_m1())),
        "log" => (Dom::Real, Iv::new(a.lo.ln(), a.hi.ln())),
        "sqrt" => (Dom::NonNeg, Iv::new(a.lo.sqrt(), a.hi.sqrt())),
        "rsqrt" => (Dom::NonNeg, Iv::new(1.0 / a.hi.sqrt(), 1.0 / a.lo.sqrt())),
        "tanh" => (Dom::Signed, Iv::new(a.lo.tanh(), a.hi.tanh())),
        "sigmoid" => (Dom::Unit, Iv::new(sig(a.lo), sig(a.hi))),
        "relu" => (Dom::NonNeg, Iv::new(a.lo.max(0.0), a.hi.max(0.0))),
        "gelu" | "silu" => (Dom::Real, Iv::new(-0.3, a.hi.max(0.0))),
        "softplus" => (pos_if(below), Iv::new(sp(a.lo), sp(a.hi))),
        "log_sigmoid" => {
            let dom = if above { Dom::Neg } else { Dom::NonPos };
            (dom, Iv::new(-sp(-a.lo), -sp(-a.hi)))
        }
        _ => (Dom::Signed, Iv::new(-1.0, 1.0)),
    }
}

/// The domain of `a op b` of float tensors that the checker's interval
/// arithmetic proves (`docs/shapescript/ranges.md`), in the generator's
/// coarse terms: a sum of positive floats stays positive, but a product or
/// quotient of positive floats may underflow to 0 ("Rounding"), so it is
/// only `NonNeg`.
pub fn bin_dom(op: Bin, a: &Dom, b: &Dom) -> Dom {
    use Dom::*;
    let nonneg = |d: &Dom| matches!(d, NonNeg | Pos | Unit | Index(_) | Bool);
    match op {
        Bin::Add if matches!(a, Pos) && nonneg(b) || matches!(b, Pos) && nonneg(a) => Pos,
        Bin::Add if nonneg(a) && nonneg(b) => NonNeg,
        Bin::Mul if matches!((a, b), (Unit, Unit)) => Unit,
        Bin::Mul if matches!((a, b), (Signed | Unit, Signed | Unit)) => Signed,
        Bin::Mul | Bin::Div if nonneg(a) && nonneg(b) => NonNeg,
        _ => Real,
    }
}

/// The domain a Python number of value `v` is.
pub fn number_dom(v: f64) -> Dom {
    if v > 0.0 {
        Dom::Pos
    } else if v == 0.0 {
        Dom::NonNeg
    } else {
        Dom::Neg
    }
}

impl Gen {
    /// A value for `goal`, of any kind, at most `depth` operations deep.
    pub fn value(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Expr {
        match goal.dt {
            Dt::Bool => self.boolean(fx, goal, depth),
            Dt::I64 | Dt::I32 => self.integer(fx, goal, depth),
            _ => self.float(fx, goal, depth),
        }
    }

    /// A float tensor for `goal`.
    pub fn float(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Expr {
        const TABLE: &[(u32, Strategy)] = &[
            (3, Gen::leaf_strategy),
            (4, Gen::math),
            (6, Gen::binary),
            (3, Gen::reduction),
            (2, Gen::axis_wise),
            (3, Gen::matmul),
            (1, Gen::einsum),
            (1, Gen::rearrange),
            (1, Gen::repeat),
            (1, Gen::reduce_pattern),
            (1, Gen::ungroup),
            (2, Gen::nn_layer),
            (1, Gen::group),
            (1, Gen::concat),
            (1, Gen::select),
            (1, Gen::clamp),
            (1, Gen::convert),
            (2, Gen::any_call),
            (2, Gen::index),
            (1, Gen::take),
            (1, Gen::pick),
            (1, Gen::extreme),
            (1, Gen::stack_op),
            (1, Gen::triangle),
            (1, Gen::claim),
            (1, Gen::record_field),
        ];
        // Unknown sizes (`?k`): only what keeps the axes of a value in scope.
        const KEEPING: &[(u32, Strategy)] =
            &[(1, Gen::math), (1, Gen::clamp), (1, Gen::leaf_strategy)];
        let unknown = goal
            .axes
            .iter()
            .any(|a| a.size.symbols().iter().any(|s| s.starts_with('?')));
        let table = if unknown { KEEPING } else { TABLE };
        self.first_fit(fx, goal, depth, table, 4)
            .unwrap_or_else(|| self.leaf(fx, goal))
    }

    fn leaf_strategy(&mut self, fx: &mut Fx, goal: &Goal, _: u32) -> Option<Expr> {
        Some(self.leaf(fx, goal))
    }

    /// A call of a function or, in a method, now and then of a method.
    fn any_call(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.model.is_some() && self.rng.chance(0.5) {
            self.method_call(fx, goal, depth)
        } else {
            self.call(fx, goal, depth)
        }
    }

    /// A value in scope that fits, a new parameter, or a filled tensor.
    pub fn leaf(&mut self, fx: &mut Fx, goal: &Goal) -> Expr {
        let found: Vec<Expr> = fx
            .scope
            .iter()
            .filter(|l| fx.lookup(&l.name).is_some_and(|m| std::ptr::eq(m, *l)))
            .map(|l| Expr::leaf(Op::Var(l.name.clone()), l.ty.clone()))
            .chain(self.field_values(fx))
            .filter(|e| self.fits(e, goal))
            .collect();
        if !found.is_empty() && self.rng.chance(0.75) {
            return self.rng.pick(&found).clone();
        }
        let plain = goal
            .axes
            .iter()
            .all(|a| !a.size.symbols().iter().any(|s| s.starts_with('?')))
            && goal.axes.iter().all(|a| {
                a.name.is_none()
                    || a.name.as_deref() == a.size.as_sym()
                    || a.size.as_sym().is_none()
            });
        let params_ok = fx.can_add_param() && plain;
        if params_ok && (found.is_empty() || self.rng.chance(0.5)) && !self.rng.chance(0.15) {
            if let Some(e) = self.new_param(fx, goal) {
                return e;
            }
        }
        if let Some(e) = found.first() {
            return e.clone();
        }
        if let Some(e) = self
            .filled(fx, goal)
            .or_else(|| self.renamed_leaf(fx, goal))
        {
            return e;
        }
        // A goal of unknown sizes (`?k`): a value of them in scope.
        let unknown = goal
            .axes
            .iter()
            .any(|a| a.size.symbols().iter().any(|s| s.starts_with('?')));
        let same: Vec<Expr> = fx
            .scope
            .iter()
            .filter(|l| {
                l.ty.tensor()
                    .is_some_and(|t| t.dt == goal.dt && self.dims.same_sizes(&t.axes, &goal.axes))
            })
            .map(|l| Expr::leaf(Op::Var(l.name.clone()), l.ty.clone()))
            .collect();
        if let Some(e) = same.last().filter(|_| unknown) {
            return self.squashed(e.clone(), goal);
        }
        // Integers and booleans from a filled float tensor, converted.
        if let Some(e) = self.converted_fill(fx, goal) {
            return e;
        }
        // Past the soft limit on parameters: one more.
        if plain && !fx.fixed_params {
            let limit = fx.max_params;
            fx.max_params = usize::MAX;
            let e = self.new_param(fx, goal);
            fx.max_params = limit;
            if let Some(e) = e {
                return e;
            }
        }
        self.forced_fill(fx, goal)
    }

    /// Nothing else fits: `full(shape, c)` of a number `c` within the
    /// goal's domain and bounds (zeros, converted, for an integer or boolean
    /// goal), written even where a value hides a size it reads (`hygiene`
    /// renames the value). Where no number fits, or the goal names an axis
    /// apart from its size, the generator claims what is not so: counted
    /// in `Program::unfit`, so a rejection is the generator's mistake.
    fn forced_fill(&mut self, fx: &Fx, goal: &Goal) -> Expr {
        let plain = goal
            .axes
            .iter()
            .all(|a| a.name.as_deref().is_none_or(|n| Some(n) == a.size.as_sym()));
        // A short number inside the goal's bounds, after the usual ones.
        let mid = ((goal.within.lo + goal.within.hi) / 2.0 * 1000.0).round() / 1000.0;
        let options = [0.0, 0.5, 1.0, 0.25, 2.0, -1.5, -0.5, mid];
        let fitting = options.into_iter().find(|v| {
            let (int, float) = (!goal.dt.is_float(), goal.dt.is_float());
            (int && *v == 0.0 || float && fill_dom_fits(&self.dims, *v, &goal.dom))
                && *v >= goal.within.lo
                && *v <= goal.within.hi
        });
        if fitting.is_none() || !plain {
            self.prog.unfit += 1;
        }
        let value = fitting.unwrap_or(0.0);
        let dt = if goal.dt.is_float() {
            goal.dt
        } else {
            fx.float
        };
        let dom = if goal.dt.is_float() {
            goal.dom.clone()
        } else {
            Dom::NonNeg
        };
        let t = TT {
            axes: goal.axes.clone(),
            dt,
            dom,
            iv: Iv::point(value),
        };
        let fill = Expr::leaf(
            Op::Fill {
                value,
                axes: goal.axes.clone(),
                dt,
            },
            Ty::T(t),
        );
        if goal.dt.is_float() {
            return fill;
        }
        converted_zeros(fill, goal)
    }

    /// A new parameter of the goal's axes and dtype, with a domain inside
    /// the goal's and values inside its bounds.
    pub fn new_param(&mut self, fx: &mut Fx, goal: &Goal) -> Option<Expr> {
        if fx.fixed_params {
            return None;
        }
        let (dom, iv) = self.param_domain(goal)?;
        let axes: Vec<Axis> = goal
            .axes
            .iter()
            .map(|a| {
                let mut a = a.clone();
                if a.size.as_sym().is_none() {
                    a.name = None;
                }
                a
            })
            .collect();
        let axes = axes.into_iter().map(|a| self.grouped(fx, a)).collect();
        let t = TT {
            axes,
            dt: goal.dt,
            dom,
            iv,
        };
        let name = self.value_name(fx);
        fx.add_param(name.clone(), Ty::T(t.clone()));
        Some(Expr::leaf(Op::Var(name), Ty::T(t)))
    }

    /// A value of the goal's sizes brought into its domain and bounds when
    /// it is not: `exp(tanh(u))` is in [1/e, e] (`Pos`), `sigmoid(u)` in
    /// [0, 1] (`Unit`), their negation below 0.
    fn squashed(&mut self, e: Expr, goal: &Goal) -> Expr {
        if self.fits(&e, goal) || !goal.dt.is_float() {
            return e;
        }
        let Some(t) = e.tensor().cloned() else {
            return e;
        };
        let math = |f: &'static str, arg: Expr, dom: Dom, iv: Iv| {
            Expr::new(
                Op::Math(f),
                vec![arg],
                Ty::T(TT {
                    dom,
                    iv,
                    ..t.clone()
                }),
            )
        };
        match goal.dom {
            Dom::Unit | Dom::Signed => math("sigmoid", e, Dom::Unit, Iv::new(0.0, 1.0)),
            Dom::Neg | Dom::NonPos => {
                let th = math("tanh", e, Dom::Signed, Iv::new(-1.0, 1.0));
                let ex = math("exp", th, Dom::Pos, Iv::new(0.36, 2.72));
                Expr::new(
                    Op::Neg,
                    vec![ex],
                    Ty::T(TT {
                        dom: Dom::Neg,
                        iv: Iv::new(-2.72, -0.36),
                        ..t
                    }),
                )
            }
            _ => {
                let th = math("tanh", e, Dom::Signed, Iv::new(-1.0, 1.0));
                math("exp", th, Dom::Pos, Iv::new(0.36, 2.72))
            }
        }
    }

    /// `zeros(shape) to i64` (to `Index[N]`, to `i32`) or `zeros(shape) >
    /// 0.5` for an integer or boolean goal.
    fn converted_fill(&mut self, fx: &Fx, goal: &Goal) -> Option<Expr> {
        if goal.dt.is_float() {
            return None;
        }
        // Zeros: ids into any axis.
        let float = Goal::new(goal.axes.clone(), fx.float).within(Iv::point(0.0));
        let zeros = self.filled(fx, &float)?;
        Some(converted_zeros(zeros, goal))
    }

    /// A parameter's axis of size `2*g` written now and then as the grouped
    /// size `2g`, which introduces the generic axis `g`.
    fn grouped(&mut self, fx: &Fx, a: Axis) -> Axis {
        let symbols = a.size.symbols();
        let [g] = symbols.as_slice() else { return a };
        let g = g.clone();
        // Not the function's own name: E0303 in a grouped size (G26).
        let generic = fx.generics.contains(&g) && !g.starts_with('_') && g != fx.name;
        for c in [2, 3] {
            if generic && a.size == Size::sym(&g).scale(c) && self.rng.chance(0.5) {
                return Axis {
                    text: Some(format!("{c}{g}")),
                    ..a
                };
            }
        }
        a
    }

    /// A domain for a new parameter inside `goal`'s, and the bounds the
    /// harness draws its values from.
    fn param_domain(&mut self, goal: &Goal) -> Option<(Dom, Iv)> {
        let choices: Vec<(Dom, Iv)> = match goal.dt {
            Dt::Bool => vec![(Dom::Bool, Iv::new(0.0, 1.0))],
            Dt::I64 | Dt::I32 => return self.int_param_domain(goal),
            _ => vec![
                (Dom::Real, Iv::new(-3.0, 3.0)),
                (Dom::Real, Iv::new(-3.0, 3.0)),
                (Dom::Real, Iv::new(-3.0, 3.0)),
                (Dom::Unit, Iv::new(0.0, 1.0)),
                (Dom::Signed, Iv::new(-1.0, 1.0)),
                (Dom::Pos, Iv::new(1e-3, 3.0)),
                (Dom::NonNeg, Iv::new(0.0, 3.0)),
            ],
        };
        let fitting: Vec<(Dom, Iv)> = choices
            .into_iter()
            .filter(|(d, iv)| {
                dom_within(&self.dims, d, &goal.dom)
                    && iv.lo >= goal.within.lo
                    && iv.hi <= goal.within.hi
            })
            .collect();
        if fitting.is_empty() {
            // Values drawn within the goal's bounds, of its domain.
            let (lo, hi, _, _) = goal.dom.ends();
            let iv = Iv::new(
                goal.within.lo.max(lo.map_or(-3.0, |l| l + 1e-3)),
                goal.within.hi.min(hi.unwrap_or(3.0)),
            );
            return (iv.lo <= iv.hi && goal.dt.is_float()).then(|| (goal.dom.clone(), iv));
        }
        Some(self.rng.pick(&fitting).clone())
    }

    /// `full(shape, c)` (or `zeros`, `ones`) in the goal's dtype, when its
    /// sizes can be written here.
    fn filled(&mut self, fx: &Fx, goal: &Goal) -> Option<Expr> {
        let name = ["zeros", "ones", "full"];
        if name.iter().any(|n| fx.hides(n))
            || !goal.dt.is_float()
            || !goal.axes.iter().all(|a| {
                fx.size_usable(&a.size)
                    && a.name.as_deref().is_none_or(|n| Some(n) == a.size.as_sym())
                    && !a.size.symbols().iter().any(|s| s.starts_with('?'))
            })
        {
            return None;
        }
        let options = [0.0, 1.0, 0.5, 2.0, -1.5, 0.25];
        let fitting: Vec<f64> = options
            .into_iter()
            .filter(|v| {
                dom_within(&self.dims, &number_dom(*v), &goal.dom)
                    && *v >= goal.within.lo
                    && *v <= goal.within.hi
                    && !(matches!(goal.dom, Dom::Pos) && *v <= 0.0)
            })
            .collect();
        if fitting.is_empty() {
            return None;
        }
        let value = *self.rng.pick(&fitting);
        let dom = if value == 0.0 {
            Dom::NonNeg
        } else if [1.0, 0.5, 0.25].contains(&value) {
            Dom::Unit
        } else {
            number_dom(value)
        };
        let dom = if dom_within(&self.dims, &dom, &goal.dom) {
            dom
        } else {
            goal.dom.clone()
        };
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom,
            iv: Iv::point(value),
        };
        Some(Expr::leaf(
            Op::Fill {
                value,
                axes: goal.axes.clone(),
                dt: goal.dt,
            },
            Ty::T(t),
        ))
    }

    /// A prelude function of a value built for its argument's needs.
    fn math(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let (f, mut arg_dom, arg_iv) = self.rng.pick(MATH).clone();
        if fx.hides(f) {
            return None;
        }
        // A positive (negative) result needs an argument bounded below
        // (above): `exp(tanh(x))`.
        let strict = matches!(goal.dom, Dom::Pos | Dom::Neg);
        if strict && matches!(f, "exp" | "softplus" | "log_sigmoid") {
            arg_dom = Dom::Signed;
        }
        let arg_goal = Goal::new(goal.axes.clone(), goal.dt)
            .with_dom(arg_dom)
            .within(arg_iv);
        let arg = self.float(fx, &arg_goal, depth - 1);
        let a = arg.tensor()?.clone();
        let (dom, iv) = math_result(f, a.iv, &a.dom);
        Some(Expr::new(
            Op::Math(f),
            vec![arg],
            Ty::T(TT { dom, iv, ..a }),
        ))
    }

    /// An operand of a binary operation: the goal's axes, a sub-list of
    /// its named axes (broadcast by name), or a Python number.
    pub(super) fn operand(
        &mut self,
        fx: &mut Fx,
        goal: &Goal,
        within: Iv,
        dom: Dom,
        depth: u32,
    ) -> Expr {
        match self.rng.weighted(&[5, 3, 2]) {
            1 => {
                let named: Vec<Axis> = goal
                    .axes
                    .iter()
                    .filter(|a| {
                        a.name.is_some()
                            && find(&goal.axes, a.name.as_deref().unwrap_or("")).len() == 1
                    })
                    .filter(|_| self.rng.chance(0.6))
                    .cloned()
                    .collect();
                if named.len() < goal.axes.len() {
                    let g = Goal::new(named, goal.dt).with_dom(dom).within(within);
                    return self.float(fx, &g, depth - 1);
                }
            }
            2 => {
                if let Some(n) = self.number(fx, within, &dom) {
                    return n;
                }
            }
            _ => {}
        }
        let g = Goal::new(goal.axes.clone(), goal.dt)
            .with_dom(dom)
            .within(within);
        self.float(fx, &g, depth - 1)
    }

    /// A Python number within `within` and `dom`: a literal, a size's
    /// value, a `Float` parameter.
    pub fn number(&mut self, fx: &mut Fx, within: Iv, dom: &Dom) -> Option<Expr> {
        let mut options: Vec<Expr> = [0.5, 2.0, 1.5, -1.0, 3.0, 0.25]
            .iter()
            .map(|v| Expr::leaf(Op::Float(*v), Ty::Float(Iv::point(*v))))
            .collect();
        options.push(Expr::leaf(Op::Int(2), Ty::Int(Iv::point(2.0))));
        for a in self.pool(fx) {
            if fx.size_usable(&a.size) {
                let hi = self.dims.max(&a.size) as f64;
                options.push(Expr::leaf(
                    Op::SizeVal(a.size.clone()),
                    Ty::Int(Iv::new(1.0, hi)),
                ));
            }
        }
        if fx.can_add_param() && self.rng.chance(0.3) {
            let name = self.value_name(fx);
            let ty = Ty::Float(Iv::new(-2.0, 2.0));
            fx.add_param(name.clone(), ty.clone());
            options.push(Expr::leaf(Op::Var(name), ty));
        }
        let fitting: Vec<Expr> = options
            .into_iter()
            .filter(|e| {
                let iv = scalar_iv(&e.ty);
                iv.lo >= within.lo
                    && iv.hi <= within.hi
                    && dom_within(&self.dims, &scalar_dom(e), dom)
            })
            .collect();
        (!fitting.is_empty()).then(|| self.rng.pick(&fitting).clone())
    }
}

/// Zeros of a float dtype made an integer or boolean goal's: `zeros(shape)
/// to i64` (to `Index[N]`, to `i32`), or `zeros(shape) > 0.5`.
fn converted_zeros(zeros: Expr, goal: &Goal) -> Expr {
    let Some(t) = zeros.tensor().cloned() else {
        return zeros;
    };
    if goal.dt == Dt::Bool {
        let half = Expr::leaf(Op::Float(0.5), Ty::Float(Iv::point(0.5)));
        let b = TT {
            dt: Dt::Bool,
            dom: Dom::Bool,
            iv: Iv::new(0.0, 1.0),
            ..t
        };
        return Expr::new(
            Op::Bin(Bin::Gt, [Some((0..goal.axes.len()).collect()), None]),
            vec![zeros, half],
            Ty::T(b),
        );
    }
    let dom = match &goal.dom {
        Dom::Index(n) => Dom::Index(n.clone()),
        _ => Dom::Real,
    };
    let int = TT {
        dt: goal.dt,
        dom,
        iv: Iv::point(0.0),
        ..t
    };
    let written = if matches!(int.dom, Dom::Index(_)) {
        int.ss()
    } else {
        goal.dt.key().to_string()
    };
    let op = Op::To {
        ty: written,
        conv: crate::ast::Conv::Dtype(goal.dt),
    };
    Expr::new(op, vec![zeros], Ty::T(int))
}

/// Whether `full(.., v)` is provably in `dom`.
fn fill_dom_fits(dims: &super::shape::Dims, v: f64, dom: &Dom) -> bool {
    let own = if v == 0.0 || v == 1.0 || v == 0.5 || v == 0.25 {
        Dom::Unit
    } else {
        number_dom(v)
    };
    dom_within(dims, &own, dom)
        || dom_within(dims, &number_dom(v), dom)
        || v == 0.0 && matches!(dom, Dom::Signed | Dom::NonPos | Dom::NonNeg)
        || v == -0.5 && matches!(dom, Dom::Signed)
}

/// A Python number's bounds.
pub fn scalar_iv(ty: &Ty) -> Iv {
    match ty {
        Ty::Int(iv) | Ty::Float(iv) => *iv,
        Ty::T(t) => t.iv,
        _ => Iv::new(0.0, 1.0),
    }
}

/// The domain the checker proves for an operand.
pub fn scalar_dom(e: &Expr) -> Dom {
    match (&e.op, &e.ty) {
        (_, Ty::T(t)) => t.dom.clone(),
        (Op::Float(v), _) => number_dom(*v),
        (Op::Int(v), _) => number_dom(*v as f64),
        (Op::SizeVal(_), _) => Dom::Pos,
        _ => Dom::Real,
    }
}

/// Whether every axis of a list has a name that finds only it.
pub fn all_named(axes: &[Axis]) -> bool {
    axes.iter().enumerate().all(|(i, a)| {
        a.name
            .as_deref()
            .is_some_and(|n| super::shape::names_uniquely(axes, n, i))
    })
}

/// `a op b` for a result of `axes`: each operand's alignment with it, and
/// the interval of the result (of `x ** 2` for `**`, which squares only).
pub fn bin_parts(
    dims: &super::shape::Dims,
    op: Bin,
    a: &Expr,
    b: &Expr,
    axes: &[Axis],
) -> Option<([crate::ast::Align; 2], Iv)> {
    let la = align_of(dims, a, axes)?;
    let lb = align_of(dims, b, axes)?;
    let (ia, ib) = (scalar_iv(&a.ty), scalar_iv(&b.ty));
    let iv = match op {
        Bin::Add => ia.plus(ib),
        Bin::Sub => ia.minus(ib),
        Bin::Mul => ia.product(ib),
        Bin::Div => ia.product(Iv::new(1.0 / ib.hi, 1.0 / ib.lo)),
        _ => {
            let s = ia.mag() * ia.mag();
            Iv::new(0.0, s)
        }
    };
    Some(([la, lb], iv))
}

/// The alignment of an operand with a result of `axes`.
pub fn align_of(dims: &super::shape::Dims, e: &Expr, axes: &[Axis]) -> Option<Option<Vec<usize>>> {
    match &e.ty {
        Ty::T(t) => pair(dims, &t.axes, axes).map(Some),
        _ => Some(None),
    }
}
