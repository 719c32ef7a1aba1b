//! Float strategies that move axes: `einsum`, the patterns `rearrange`,
//! `repeat` and `reduce` (planned here as reshapes and permutes for the
//! reference), `concat`, indexing and slicing, and `take`.

use super::float::all_named;
use super::shape::{find, names_uniquely};
use super::{Fx, Gen, Goal, MAG};
use crate::ast::{Expr, Ix, Layout, Op};
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

/// The written parts of a pattern call: the built-in, both sides, the
/// keyword sizes and `reduce`'s operation.
pub struct Call {
    pub f: &'static str,
    pub lhs: String,
    pub rhs: String,
    pub kw: Vec<(String, String)>,
    pub reduce: Option<&'static str>,
}

impl Call {
    pub fn new(f: &'static str, lhs: &[String], rhs: &[String]) -> Call {
        Call {
            f,
            lhs: lhs.join(" "),
            rhs: rhs.join(" "),
            kw: Vec::new(),
            reduce: None,
        }
    }
}

/// The pattern call `call` of `arg`, whose result has `axes`: the plan
/// the reference follows splits the argument into its axes, reduces,
/// orders (`None` a new axis) and expands to `axes`' sizes.
pub fn pattern_expr(
    call: Call,
    reduce: Option<(String, Vec<usize>)>,
    order: Vec<Option<usize>>,
    axes: &[Axis],
    arg: Expr,
) -> Option<Expr> {
    let a = arg.tensor()?.clone();
    let sizes: Vec<Size> = axes.iter().map(|x| x.size.clone()).collect();
    let plan = Layout {
        split: a.axes.iter().map(|x| x.size.clone()).collect(),
        reduce,
        order,
        expand: sizes.clone(),
        merge: sizes,
    };
    let op = Op::Pattern {
        f: call.f,
        lhs: call.lhs,
        rhs: call.rhs,
        kw: call.kw,
        reduce: call.reduce,
        plan,
    };
    let t = TT {
        axes: axes.to_vec(),
        ..a
    };
    Some(Expr::new(op, vec![arg], Ty::T(t)))
}

/// A list without its item `at`.
fn without<T: Clone>(items: &[T], at: usize) -> Vec<T> {
    let mut out = items.to_vec();
    out.remove(at);
    out
}

/// A pattern's word for an axis: its name, or its number.
pub(super) fn word(a: &Axis) -> Option<String> {
    a.name
        .clone()
        .or_else(|| a.size.as_lit().map(|c| c.to_string()))
}

impl Gen {
    /// `einsum(a, b, [..], [..] -> [goal])`, contracting an axis the goal
    /// lacks; every goal axis named.
    pub(super) fn einsum(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("einsum") || !all_named(&goal.axes) {
            return None;
        }
        let k = self.extra_axis(fx, &goal.axes)?;
        let n = self.dims.max(&k.size) as f64;
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let w = (m / n).sqrt().min(2.0);
        let (mut left, mut right): (Vec<Axis>, Vec<Axis>) = (vec![k.clone()], vec![k.clone()]);
        for a in &goal.axes {
            match self.rng.below(3) {
                0 => left.push(a.clone()),
                1 => right.push(a.clone()),
                _ => {
                    left.push(a.clone());
                    right.push(a.clone());
                }
            }
        }
        self.shuffle(&mut left);
        self.shuffle(&mut right);
        let words =
            |axes: &[Axis]| -> Vec<String> { axes.iter().filter_map(|a| a.name.clone()).collect() };
        let (wl, wr, wo) = (words(&left), words(&right), words(&goal.axes));
        let plain = |axes: Vec<Axis>| -> Vec<Axis> { axes.into_iter().map(plain_axis).collect() };
        let a = self.float(
            fx,
            &Goal::new(plain(left), goal.dt).within(Iv::new(-w, w)),
            depth - 1,
        );
        let b = self.float(
            fx,
            &Goal::new(plain(right), goal.dt).within(Iv::new(-w, w)),
            depth - 1,
        );
        let iv = a.tensor()?.iv.product(b.tensor()?.iv).times(n);
        let mut letters: Vec<String> = Vec::new();
        let mut letter = |w: &String| {
            let i = letters.iter().position(|l| l == w).unwrap_or_else(|| {
                letters.push(w.clone());
                letters.len() - 1
            });
            (b'a' + i as u8) as char
        };
        let el: String = wl.iter().map(&mut letter).collect();
        let er: String = wr.iter().map(&mut letter).collect();
        let eo: String = wo.iter().map(&mut letter).collect();
        let pattern = format!(
            "[{}], [{}] -> [{}]",
            wl.join(" "),
            wr.join(" "),
            wo.join(" ")
        );
        let op = Op::Einsum {
            pattern,
            equation: format!("{el},{er}->{eo}"),
        };
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(Expr::new(op, vec![a, b], Ty::T(t)))
    }

    /// Shuffles a list in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.rng.below(i + 1);
            items.swap(i, j);
        }
    }

    /// The goal's axes as a pattern's words (names, numbers), each once.
    fn pattern_words(&self, goal: &Goal) -> Option<Vec<String>> {
        let words: Vec<String> = goal.axes.iter().map(word).collect::<Option<_>>()?;
        let distinct = (1..words.len()).all(|i| !words[..i].contains(&words[i]));
        distinct.then_some(words)
    }

    /// `rearrange` by a pattern of the goal's axis words.
    pub(super) fn rearrange(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let words = &self.pattern_words(goal)?;
        if fx.hides("rearrange") {
            return None;
        }
        let mut order: Vec<usize> = (0..goal.axes.len()).collect();
        self.shuffle(&mut order);
        let input: Vec<Axis> = order
            .iter()
            .map(|&i| plain_axis(goal.axes[i].clone()))
            .collect();
        let arg = self.float(fx, &goal.same_values(input), depth - 1);
        let lhs: Vec<String> = order.iter().map(|&i| words[i].clone()).collect();
        let back = (0..goal.axes.len())
            .map(|i| order.iter().position(|&o| o == i))
            .collect();
        let call = Call::new("rearrange", &lhs, words);
        pattern_expr(call, None, back, &goal.axes, arg)
    }

    /// `repeat` by a pattern of the goal's axis words.
    pub(super) fn repeat(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let words = &self.pattern_words(goal)?;
        if fx.hides("repeat") || goal.axes.is_empty() {
            return None;
        }
        let at = self.rng.below(goal.axes.len());
        let new = &goal.axes[at];
        let mut call = Call::new("repeat", &without(words, at), words);
        if new.size.as_lit().is_none() {
            let size_name = new.size.as_sym()?;
            if self.dims.value(size_name).is_none() || new.name.as_deref() != Some(size_name) {
                if !fx.size_usable(&new.size) {
                    return None;
                }
                call.kw.push((words[at].clone(), new.size.ss()));
            }
        }
        let input: Vec<Axis> = without(&goal.axes, at)
            .into_iter()
            .map(plain_axis)
            .collect();
        let arg = self.float(fx, &goal.same_values(input), depth - 1);
        let order = (0..goal.axes.len())
            .map(|i| match i.cmp(&at) {
                std::cmp::Ordering::Less => Some(i),
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => Some(i - 1),
            })
            .collect();
        pattern_expr(call, None, order, &goal.axes, arg)
    }

    /// `reduce` by a pattern of the goal's axis words.
    pub(super) fn reduce_pattern(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let words = &self.pattern_words(goal)?;
        let f = *self.rng.pick(&["sum", "mean", "max", "min"]);
        if fx.hides("reduce") {
            return None;
        }
        let extra = self.extra_axis(fx, &goal.axes)?;
        let name = extra.name.clone()?;
        if words.contains(&name) {
            return None;
        }
        let at = self.rng.below(goal.axes.len() + 1);
        let mut input: Vec<Axis> = goal.axes.iter().cloned().map(plain_axis).collect();
        input.insert(at, extra.clone());
        let n = self.dims.max(&extra.size) as f64;
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let sum = f == "sum";
        let (within, dom) = if sum {
            (Iv::new(-m / n, m / n), Dom::Real)
        } else {
            (goal.within, goal.dom.clone())
        };
        let arg = self.float(
            fx,
            &Goal::new(input, goal.dt).with_dom(dom).within(within),
            depth - 1,
        );
        let mut lhs: Vec<String> = words.to_vec();
        lhs.insert(at, name);
        let order = (0..goal.axes.len())
            .map(|i| Some(if i < at { i } else { i + 1 }))
            .collect();
        let mut call = Call::new("reduce", &lhs, words);
        call.reduce = Some(f);
        let mut e = pattern_expr(
            call,
            Some((f.to_string(), vec![at])),
            order,
            &goal.axes,
            arg,
        )?;
        if let Ty::T(t) = &mut e.ty {
            if sum {
                t.iv = t.iv.times(n);
                t.dom = Dom::Real;
            }
        }
        Some(e)
    }

    /// A leaf whose axes a pattern named apart from their sizes (`i` of
    /// size `n`): `rearrange(x, [i j] -> [i j])` of a leaf of the sizes.
    pub fn renamed_leaf(&mut self, fx: &mut Fx, goal: &Goal) -> Option<Expr> {
        let words: Option<Vec<String>> = goal.axes.iter().map(word).collect();
        let words = words?;
        if (1..words.len()).any(|i| words[..i].contains(&words[i])) {
            return None;
        }
        let plain: Vec<Axis> = goal.axes.iter().cloned().map(plain_axis).collect();
        let arg = self.new_param(
            fx,
            &Goal {
                axes: plain,
                ..goal.clone()
            },
        )?;
        let order = (0..words.len()).map(Some).collect();
        pattern_expr(
            Call::new("rearrange", &words, &words),
            None,
            order,
            &goal.axes,
            arg,
        )
    }

    /// `concat(a, b, over=n)` for a goal axis whose size is a sum.
    pub(super) fn concat(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("concat") {
            return None;
        }
        let at = (0..goal.axes.len()).find(|&i| split_sum(&goal.axes[i].size).is_some())?;
        let (p, q) = split_sum(&goal.axes[at].size)?;
        let pa = super::shape::named(Axis::anon(p));
        let over = pa.name.clone()?;
        let mut left: Vec<Axis> = goal.axes.clone();
        left[at] = pa;
        if !names_uniquely(&left, &over, at) {
            return None;
        }
        let mut right = goal.axes.clone();
        right[at] = super::shape::named(Axis::anon(q));
        let g = |axes| goal.same_values(axes);
        let a = self.float(fx, &g(left), depth - 1);
        let b = self.float(fx, &g(right), depth - 1);
        let t = goal.union_of(&a, &b)?;
        Some(Expr::new(
            Op::Concat { over, dim: at },
            vec![a, b],
            Ty::T(t),
        ))
    }

    /// Indexing that drops or narrows an axis: `x[0]`, `x[:, -1]`,
    /// `x[..., 0]`, `x[1:]` of `[n + 1]`, `x[::2]` of `[2*n]`.
    pub(super) fn index(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let r = goal.axes.len();
        let mut axes = goal.axes.clone();
        let mut ixs: Vec<Ix> = Vec::new();
        match self.rng.below(3) {
            0 => {
                let extra = self.extra_axis(fx, &goal.axes)?;
                let at = self.rng.below(r + 1);
                axes.insert(at, extra);
                let i = *self.rng.pick(&[0, -1]);
                if at == r && r > 0 && self.rng.chance(0.5) {
                    ixs.push(Ix::Ellipsis);
                } else {
                    ixs.extend((0..at).map(|_| full()));
                }
                ixs.push(Ix::At(i));
            }
            1 if r > 0 => {
                let at = self.rng.below(r);
                let s = goal.axes[at].size.clone();
                // A slice's size is worked out with dims' values: not `D`.
                let dim = s.symbols().iter().any(|x| self.dims.value(x).is_some());
                if dim || s.as_lit().is_some() {
                    return None;
                }
                ixs.extend((0..at).map(|_| full()));
                if self.rng.chance(0.5) {
                    axes[at] = Axis::anon(s.add(&Size::lit(1)));
                    ixs.push(if self.rng.chance(0.5) {
                        slice(Some(1), None, None)
                    } else {
                        slice(None, Some(-1), None)
                    });
                } else {
                    axes[at] = Axis::anon(s.scale(2));
                    ixs.push(slice(None, None, Some(2)));
                }
            }
            _ => return None,
        }
        let arg = self.float(fx, &goal.same_values(axes), depth - 1);
        let a = arg.tensor()?.clone();
        Some(Expr::new(
            Op::Index(ixs),
            vec![arg],
            Ty::T(TT {
                axes: goal.axes.clone(),
                ..a
            }),
        ))
    }

    /// `take(x, ids, over=n)`: the goal's axis at some position from ids
    /// of that axis into an axis `n` the goal lacks.
    pub(super) fn take(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("take") || goal.axes.is_empty() {
            return None;
        }
        let at = self.rng.below(goal.axes.len());
        let n = self.extra_axis(fx, &goal.axes)?;
        let over = n.name.clone()?;
        let mut axes = goal.axes.clone();
        axes[at] = n.clone();
        let ids_axis = goal.axes[at].clone();
        if ids_axis.name.is_none() || !find(&axes, &over).len() == 1 {
            return None;
        }
        let x = self.float(fx, &goal.same_values(axes), depth - 1);
        let ids_goal = Goal::new(vec![ids_axis], Dt::I64).with_dom(Dom::Index(n.size.clone()));
        let ids = self.integer(fx, &ids_goal, depth - 1);
        let a = x.tensor()?.clone();
        if !names_uniquely(&a.axes, &over, at) {
            return None;
        }
        Some(Expr::new(
            Op::Take { over, dim: at },
            vec![x, ids],
            Ty::T(TT {
                axes: goal.axes.clone(),
                ..a
            }),
        ))
    }
}

impl Gen {
    /// `x[:, ids]`: the goal's axis at some position from ids of that
    /// axis into an axis of another size, as `take` without `over=`.
    pub(super) fn pick(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if goal.axes.is_empty() {
            return None;
        }
        let at = self.rng.below(goal.axes.len());
        let n = self.extra_axis(fx, &goal.axes)?;
        let mut axes = goal.axes.clone();
        axes[at] = n.clone();
        let x = self.float(fx, &goal.same_values(axes), depth - 1);
        let ids_goal =
            Goal::new(vec![goal.axes[at].clone()], Dt::I64).with_dom(Dom::Index(n.size.clone()));
        let ids = self.integer(fx, &ids_goal, depth - 1);
        let a = x.tensor()?.clone();
        Some(Expr::new(
            Op::Pick { dim: at },
            vec![x, ids],
            Ty::T(TT {
                axes: goal.axes.clone(),
                ..a
            }),
        ))
    }
}

impl Gen {
    /// `clamp(ids, lo=0, hi=h)` of `Index[n]` ids: still `Index[n]`, as
    /// a `hi` of 0 or more only lowers them, not below 0.
    pub(super) fn clamp_ids(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("clamp") || !matches!(goal.dom, Dom::Index(_)) {
            return None;
        }
        let lo = self.rng.chance(0.5).then_some(0);
        let hi = *self.rng.pick(&[0, 1, 3, 100]);
        let ids = self.integer(fx, goal, depth - 1);
        let a = ids.tensor()?.clone();
        let iv = Iv::new(a.iv.lo.max(0.0).min(hi as f64), a.iv.hi.min(hi as f64));
        Some(Expr::new(
            Op::ClampInt { lo, hi: Some(hi) },
            vec![ids],
            Ty::T(TT { iv, ..a }),
        ))
    }
}

fn full() -> Ix {
    slice(None, None, None)
}

fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Ix {
    Ix::Slice { start, stop, step }
}

/// The axis named by its size (`n`) or anonymous, as a parameter or a
/// built-in's result has it: a pattern's name dropped.
pub fn plain_axis(a: Axis) -> Axis {
    super::shape::named(Axis { name: None, ..a })
}

/// A sum size split into two positive parts: `n + m` into `n` and `m`,
/// `n + 1` into `n` and `1`, `2*n` into `n` and `n`.
fn split_sum(s: &Size) -> Option<(Size, Size)> {
    let syms = s.symbols();
    if s.as_lit().is_some() || !s.positive() {
        return None;
    }
    for sym in &syms {
        let one = Size::sym(sym);
        let rest = s.add(&one.scale(-1));
        if rest.positive() || rest.as_lit().is_some_and(|c| c > 0) {
            return Some((one, rest));
        }
    }
    None
}
