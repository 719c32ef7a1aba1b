//! Layers of the nn prelude and extern fns with `Size` and `Axis`
//! parameters (`docs/shapescript/prelude.md`, `externs.md`), built for a
//! goal: `conv1d`/`conv2d` and the pools with strides and padding (the
//! input sizes worked back from torch's formula), `interpolate` under a
//! pool, `index_add`/`scatter_add` with `Index` ids, `split(..)[i]` over
//! an axis by position, `dropout` that drops nothing, and the program's own
//! `roll`/`flip` externs. The reference calls torch's functions directly
//! (`harness.py`'s `_nn`), never the emitted code's.

use super::layout::plain_axis;
use super::shape::names_uniquely;
use super::{Fx, Gen, Goal, MAG};
use crate::ast::{Expr, Kw, Op};
use crate::size::Size;
use crate::ty::{Axis, Dom, Dt, Iv, Ty, TT};

/// The program's extern fns with `Size` and `Axis` parameters.
const EXTERNS: &[(&str, &str)] = &[
    (
        "gen_roll",
        "extern fn gen_roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = \"torch.roll\"",
    ),
    (
        "gen_flip",
        "extern fn gen_flip(input: [...], dims: Axes[n]) -> [...] = \"torch.flip\"",
    ),
];

/// An input size that a window of `k` with stride `s` and padding `p`
/// takes to `out`, by torch's formula `(in + 2p - k) / s + 1` rounding
/// down: `s*(out - 1) + k - 2p + rem` for a `rem` below `s`, with no
/// negative constant (so the size is written as a sum).
fn window_input(
    dims: &super::shape::Dims,
    out: &Size,
    s: i64,
    k: i64,
    p: i64,
    rem: i64,
) -> Option<Size> {
    // With a dim in it the formula is worked out to a number, an axis no
    // name finds (`docs/shapescript/externs.md`): not the goal's `D`.
    if out.symbols().iter().any(|x| dims.value(x).is_some()) {
        return None;
    }
    let c = k - 2 * p + rem - s;
    (c >= 0 && rem < s).then(|| out.scale(s).add(&Size::lit(c)))
}

/// The call of a layer with its arguments and keywords.
fn layer(f: &str, torch: &'static str, args: Vec<Expr>, kw: Vec<(String, Kw)>, t: TT) -> Expr {
    let op = Op::Nn {
        f: f.to_string(),
        torch,
        kw,
    };
    Expr::new(op, args, Ty::T(t))
}

impl Gen {
    /// One of the layers, for a float goal.
    pub(super) fn nn_layer(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        // A layer's result has no domain (its extern's return type).
        // Extern calls name their result's axes by the arguments': only
        // axes named by their sizes.
        let plain = goal
            .axes
            .iter()
            .all(|a| a.name.as_deref().is_none_or(|n| Some(n) == a.size.as_sym()));
        if !matches!(goal.dom, Dom::Real) || !plain {
            return None;
        }
        match self.rng.weighted(&[3, 3, 2, 2, 2, 2, 2]) {
            0 => self.conv(fx, goal, depth),
            1 => self.pooling(fx, goal, depth),
            2 => self.index_add(fx, goal, depth),
            3 => self.split_part(fx, goal, depth),
            4 => self.dropout(fx, goal, depth),
            5 => self.roll_flip(fx, goal, depth),
            _ => self.upsampled(fx, goal, depth),
        }
    }

    /// The stride's and padding's keywords, written now and then when at
    /// their defaults too.
    fn window_kw(&mut self, s: i64, s_default: i64, p: i64) -> Vec<(String, Kw)> {
        let mut kw = Vec::new();
        if s != s_default || self.rng.chance(0.3) {
            kw.push(("stride".to_string(), Kw::Size(Size::lit(s))));
        }
        if p != 0 || self.rng.chance(0.3) {
            kw.push(("padding".to_string(), Kw::Size(Size::lit(p))));
        }
        kw
    }

    /// `conv1d(x, w[, b], stride=s, padding=p)` for `[b Cout L]`, `conv2d`
    /// for `[b Cout H W]`: each spatial input size worked back.
    fn conv(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let r = goal.axes.len();
        let f = match r {
            3 => "conv1d",
            4 => "conv2d",
            _ => return None,
        };
        if fx.hides(f) {
            return None;
        }
        let s = *self.rng.pick(&[1, 1, 2, 3]);
        let p = *self.rng.pick(&[0, 0, 1]);
        let mut kernel = Vec::new();
        let mut spatial = Vec::new();
        for a in &goal.axes[2..] {
            let k = self.rng.range(1, 3);
            let rem = self.rng.below(s as usize) as i64;
            spatial.push(window_input(&self.dims, &a.size, s, k, p, rem)?);
            kernel.push(Axis::anon(Size::lit(k)));
        }
        let cin = match self.rng.below(3) {
            0 => Axis::anon(Size::lit(2)),
            _ => {
                let pool = self.pool(fx);
                self.rng.pick(&pool).clone()
            }
        };
        let fan = self.dims.max(&cin.size)
            * kernel
                .iter()
                .map(|k| self.dims.max(&k.size))
                .product::<i64>();
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let w = (m / 2.0 / fan as f64).sqrt().min(2.0);
        let mut input = vec![plain_axis(goal.axes[0].clone()), cin.clone()];
        input.extend(
            spatial
                .into_iter()
                .map(|s| super::shape::named(Axis::anon(s))),
        );
        let mut weight = vec![plain_axis(goal.axes[1].clone()), cin];
        weight.extend(kernel);
        let g = |axes: Vec<Axis>, b: f64| Goal::new(axes, goal.dt).within(Iv::new(-b, b));
        let x = self.float(fx, &g(input, w), depth - 1);
        let wt = self.float(fx, &g(weight, w), depth - 1);
        let mut iv = x.tensor()?.iv.product(wt.tensor()?.iv).times(fan as f64);
        let mut args = vec![x, wt];
        if self.rng.chance(0.5) {
            let bias = self.float(
                fx,
                &g(vec![plain_axis(goal.axes[1].clone())], m / 2.0),
                depth - 1,
            );
            iv = iv.plus(bias.tensor()?.iv);
            args.push(bias);
        }
        let kw = self.window_kw(s, 1, p);
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(layer(f, f, args, kw, t))
    }

    /// `max_pool2d(x, k, stride=s, padding=p)` (or `avg_pool2d`) for
    /// `[b C H W]`, padding at most half the window (E0406).
    fn pooling(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if goal.axes.len() != 4 {
            return None;
        }
        let f = *self.rng.pick(&["max_pool2d", "avg_pool2d"]);
        if fx.hides(f) {
            return None;
        }
        let k = self.rng.range(1, 3);
        let s = *self.rng.pick(&[k, k, 1, 2]);
        let p = self.rng.range(0, k / 2);
        let mut input = goal.axes[..2]
            .iter()
            .cloned()
            .map(plain_axis)
            .collect::<Vec<_>>();
        for a in &goal.axes[2..] {
            let rem = self.rng.below(s as usize) as i64;
            let size = window_input(&self.dims, &a.size, s, k, p, rem)?;
            input.push(super::shape::named(Axis::anon(size)));
        }
        let x = self.float(fx, &goal.same_values(input), depth - 1);
        let a = x.tensor()?.clone();
        let mut kw = vec![("kernel_size".to_string(), Kw::Size(Size::lit(k)))];
        kw.extend(self.window_kw(s, k, p));
        // Zero padding counts in an average.
        let iv = if f == "avg_pool2d" && p > 0 {
            a.iv.union(Iv::point(0.0))
        } else {
            a.iv
        };
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        let torch = if f == "max_pool2d" {
            "max_pool2d"
        } else {
            "avg_pool2d"
        };
        Some(layer(f, torch, vec![x], kw, t))
    }

    /// `avg_pool2d(interpolate(x, s), s)` (or `max_pool2d`, or a bilinear
    /// upsampling): `[b C H W]` up to `[b C s*H s*W]` and back.
    fn upsampled(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if goal.axes.len() != 4 || fx.hides("interpolate") {
            return None;
        }
        // The pool's formula over a dim is a number no name finds.
        if goal.axes[2..].iter().any(|a| {
            a.size
                .symbols()
                .iter()
                .any(|x| self.dims.value(x).is_some())
        }) {
            return None;
        }
        let pool = *self.rng.pick(&["max_pool2d", "avg_pool2d"]);
        if fx.hides(pool) {
            return None;
        }
        let s = self.rng.range(2, 3);
        let inner: Vec<Axis> = goal.axes.iter().cloned().map(plain_axis).collect();
        let x = self.float(fx, &goal.same_values(inner), depth - 1);
        let a = x.tensor()?.clone();
        let mut up_axes = a.axes.clone();
        for ax in &mut up_axes[2..] {
            *ax = super::shape::named(Axis::anon(ax.size.scale(s)));
        }
        let mut kw = vec![("scale_factor".to_string(), Kw::Size(Size::lit(s)))];
        if self.rng.chance(0.4) {
            kw.push(("bilinear".to_string(), Kw::Bool(self.rng.chance(0.7))));
        }
        let up_t = TT {
            axes: up_axes,
            dom: Dom::Real,
            ..a.clone()
        };
        let up = layer("interpolate", "interpolate", vec![x], kw, up_t);
        let kw = vec![("kernel_size".to_string(), Kw::Size(Size::lit(s)))];
        let t = TT {
            axes: goal.axes.clone(),
            dom: Dom::Real,
            ..a
        };
        Some(layer(pool, pool, vec![up], kw, t))
    }

    /// `index_add(x, rows, y)` (rows `[k] Index[n]`) or `scatter_add(x,
    /// ids, y)` (ids `[k ..] Index[n]`) for a goal `[n ..]`, `k` an axis
    /// the goal lacks.
    fn index_add(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let first = goal.axes.first()?.clone();
        if first.size.as_sym().is_none() && first.size.as_lit().is_none() {
            return None;
        }
        let scatter = self.rng.chance(0.5);
        let f = if scatter { "scatter_add" } else { "index_add" };
        if fx.hides(f) {
            return None;
        }
        let k = self.extra_axis(fx, &goal.axes)?;
        let count = self.dims.max(&k.size) as f64;
        let m = goal.within.lo.abs().min(goal.within.hi).min(MAG);
        let mut rows = goal.axes.clone();
        rows[0] = k.clone();
        let rows: Vec<Axis> = rows.into_iter().map(plain_axis).collect();
        let ids_axes = if scatter { rows.clone() } else { vec![k] };
        let ids_goal = Goal::new(ids_axes, Dt::I64).with_dom(Dom::Index(first.size.clone()));
        let x = self.float(
            fx,
            &goal
                .same_values(goal.axes.clone())
                .within(Iv::new(-m / 2.0, m / 2.0)),
            depth - 1,
        );
        let ids = self.integer(fx, &ids_goal, depth - 1);
        let b = m / 2.0 / count;
        let y = self.float(
            fx,
            &Goal::new(rows, goal.dt).within(Iv::new(-b, b)),
            depth - 1,
        );
        let iv = x.tensor()?.iv.plus(y.tensor()?.iv.times(count));
        let t = TT {
            axes: goal.axes.clone(),
            dt: goal.dt,
            dom: Dom::Real,
            iv,
        };
        Some(layer(
            f,
            if scatter { "scatter_add" } else { "index_add" },
            vec![x, ids, y],
            Vec::new(),
            t,
        ))
    }

    /// `split(x, k, over=p)[i]`: the goal's axis at `p` one of `k` equal
    /// parts of an axis of `k` times its size, found by position (an axis
    /// no name finds).
    fn split_part(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let r = goal.axes.len();
        if fx.hides("split") || r == 0 {
            return None;
        }
        let at = self.rng.below(r);
        let k = self.rng.range(2, 3);
        let mut input = goal.axes.clone();
        input[at] = Axis::anon(goal.axes[at].size.scale(k));
        if super::shape::named(input[at].clone()).name.is_some() {
            return None;
        }
        let x = self.float(fx, &goal.same_values(input), depth - 1);
        let a = x.tensor()?.clone();
        let written = if self.rng.chance(0.5) {
            at.to_string()
        } else {
            format!("-{}", r - at)
        };
        let part = self.rng.below(k as usize) as i64;
        let kw = vec![
            ("k".to_string(), Kw::Size(Size::lit(k))),
            ("over".to_string(), Kw::Axis(written, at)),
            ("part".to_string(), Kw::Size(Size::lit(part))),
        ];
        // A part of a split has no range of its own (G34).
        let t = TT {
            axes: goal.axes.clone(),
            dom: Dom::Real,
            ..a
        };
        Some(layer("split", "split", vec![x], kw, t))
    }

    /// `dropout` that drops nothing: `training=false`, or `p=0.0` (in a
    /// method, which follows `self.training`, without `training=`).
    fn dropout(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("dropout") {
            return None;
        }
        let x = self.float(fx, &goal.same_values(goal.axes.clone()), depth - 1);
        let a = x.tensor()?.clone();
        let kw = if fx.model.is_some() && self.rng.chance(0.5) {
            vec![("p".to_string(), Kw::Float(0.0))]
        } else if self.rng.chance(0.5) {
            vec![
                ("p".to_string(), Kw::Float(*self.rng.pick(&[0.1, 0.5, 0.9]))),
                ("training".to_string(), Kw::Bool(false)),
            ]
        } else {
            vec![
                ("p".to_string(), Kw::Float(0.0)),
                ("training".to_string(), Kw::Bool(self.rng.chance(0.5))),
            ]
        };
        let t = TT {
            dom: Dom::Real,
            ..a
        };
        Some(layer("dropout", "dropout", vec![x], kw, t))
    }

    /// The program's `gen_roll(x, s, dims=n)` or `gen_flip(x, dims=n)` over
    /// one of the goal's named axes; `s` a number, a dim or an axis name.
    fn roll_flip(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let at = self.rng.below(goal.axes.len().max(1));
        let name = goal.axes.get(at)?.name.clone()?;
        if !names_uniquely(&goal.axes, &name, at) {
            return None;
        }
        let (f, text) = *self.rng.pick(EXTERNS);
        if fx.hides(f) || !self.top_level_free_or_extern(f) {
            return None;
        }
        let x = self.float(fx, &goal.same_values(goal.axes.clone()), depth - 1);
        let a = x.tensor()?.clone();
        let mut kw = Vec::new();
        if f == "gen_roll" {
            let pool = self.pool(fx);
            let shift = match self.rng.below(3) {
                0 => Size::lit(self.rng.range(1, 3)),
                _ => self.rng.pick(&pool).size.clone(),
            };
            if !fx.size_usable(&shift) {
                return None;
            }
            kw.push(("shifts".to_string(), Kw::Size(shift)));
        }
        kw.push(("dims".to_string(), Kw::Axis(name, at)));
        if !self.prog.externs.iter().any(|(n, _)| n == f) {
            self.prog.externs.push((f.to_string(), text.to_string()));
        }
        let torch = if f == "gen_roll" { "roll" } else { "flip" };
        let t = TT {
            dom: Dom::Real,
            ..a
        };
        Some(layer(f, torch, vec![x], kw, t))
    }

    /// Whether `name` is free or already this program's extern.
    fn top_level_free_or_extern(&self, name: &str) -> bool {
        self.prog.externs.iter().any(|(n, _)| n == name) || self.top_level_free(name)
    }
}
