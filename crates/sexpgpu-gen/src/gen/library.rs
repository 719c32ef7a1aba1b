//! The library's larger operations: normalisations of `nn`, convolution
//! and pooling (compositions of windows and products), gathers and
//! scatters with ids from `iota` (repeated ids add up), `index-add`,
//! `linear-scan`, running maxima, triangles, tiling and windows.

use super::{around, form, t, unary, Gen, G};
use crate::ast::{shape_text, Node, Part};

/// `(mod (+ (iota shape :axis a) j) n)`: ids in `0..n`, repeating when
/// the axis is longer than `n`.
fn ids(gen: &mut Gen, shape: &[usize], axis: usize, n: usize) -> String {
    let j = gen.rng.int(0, 2);
    format!(
        "(mod (+ (iota {} :axis {axis}) {j}) {n})",
        shape_text(shape)
    )
}

impl Gen {
    pub(super) fn library(&mut self, s: &[usize], d: usize) -> Option<G> {
        match self.rng.int(0, 10) {
            0 => self.norm(s, d),
            1 => self.conv(s, d),
            2 => self.pool(s, d),
            3 => self.gather(s, d),
            4 => self.scatter(s, d),
            5 => self.index_add(s, d),
            6 => self.linear_scan(s, d),
            7 => {
                let axis = self.rng.int(0, s.len().checked_sub(1)?);
                let a = self.expr(s, d);
                let run = Node::call("cummax", s, vec![a.node], &format!(":axis {axis}"));
                Some(G::new(unary("first", run), a.bound))
            }
            8 => {
                if s.len() < 2 {
                    return None;
                }
                let f = *self.rng.choose(&["tril", "triu"]);
                let k = self.rng.int(0, 2) as i64 - 1;
                let a = self.expr(s, d);
                Some(G::new(
                    Node::call(f, s, vec![a.node], &format!(":diagonal {k}")),
                    a.bound,
                ))
            }
            9 => self.tile(s, d),
            _ => self.unfold(s, d),
        }
    }

    /// `nn/layer-norm` or `nn/rms-norm` over the last axis, with a weight
    /// or not.
    fn norm(&mut self, s: &[usize], d: usize) -> Option<G> {
        let last = *s.last()?;
        let a = self.expr(s, d);
        let f = *self.rng.choose(&["nn/layer-norm", "nn/rms-norm"]);
        let mut parts = vec![t(&format!("({f}")), Part::T(a.node)];
        let mut bound = (last as f64).sqrt();
        if self.rng.coin(0.5) {
            let w = self.expr(&[last], d);
            bound *= w.bound;
            parts.extend([t(":weight"), Part::T(w.node)]);
        }
        parts.push(t(")"));
        Some(G::new(form(s, parts), bound))
    }

    /// A 1-d `conv` of `[c, L]` or `[n, c, L]` by `[o, c, k]`, padded or not.
    fn conv(&mut self, s: &[usize], d: usize) -> Option<G> {
        if !(2..=3).contains(&s.len()) {
            return None;
        }
        let (o, len) = (s[s.len() - 2], s[s.len() - 1]);
        let (c, k) = (self.rng.int(1, 3), self.rng.int(1, 3));
        let pad = if k > 1 && self.rng.coin(0.4) { 1 } else { 0 };
        let mut xs = s.to_vec();
        xs[s.len() - 2] = c;
        xs[s.len() - 1] = (len + k - 1).checked_sub(2 * pad).filter(|&n| n >= 1)?;
        let x = self.expr(&xs, d);
        let w = self.expr(&[o, c, k], d);
        let bound = (c * k) as f64 * x.bound * w.bound;
        Some(G::new(
            Node::call("conv", s, vec![x.node, w.node], &format!(":padding {pad}")),
            bound,
        ))
    }

    /// `max-pool` or `avg-pool` of the last axis, windows tiling it or
    /// strided by 1.
    fn pool(&mut self, s: &[usize], d: usize) -> Option<G> {
        if s.len() < 2 {
            return None;
        }
        let last = s[s.len() - 1];
        let window = self.rng.int(1, 3);
        let stride = if self.rng.coin(0.5) { window } else { 1 };
        let mut child = s.to_vec();
        child[s.len() - 1] = (last - 1) * stride + window;
        let a = self.expr(&child, d);
        let f = *self.rng.choose(&["max-pool", "avg-pool"]);
        let rest = format!(":window [{window}] :stride {stride}");
        Some(G::new(Node::call(f, s, vec![a.node], &rest), a.bound))
    }

    /// `(gather x idx :axis a)`: the result has the ids' shape `s`.
    fn gather(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.rng.int(0, s.len().checked_sub(1)?);
        let n = self.rng.int(1, 5);
        let mut table = s.to_vec();
        table[axis] = n;
        let x = self.expr(&table, d);
        let idx = ids(self, s, axis, n);
        Some(G::new(
            Node::call("gather", s, vec![x.node], &format!("{idx} :axis {axis}")),
            x.bound,
        ))
    }

    /// `(scatter-add base idx values :axis a)`, ids repeating.
    fn scatter(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.rng.int(0, s.len().checked_sub(1)?);
        let mut vs = s.to_vec();
        vs[axis] = self.rng.int(1, 5);
        let base = self.expr(s, d);
        let values = self.expr(&vs, d);
        let idx = ids(self, &vs, axis, s[axis]);
        let bound = base.bound + values.bound * vs[axis] as f64;
        let tail = format!(":axis {axis})");
        let node = around(s, "(scatter-add", base.node, &idx, values.node, &tail);
        Some(G::new(node, bound))
    }

    /// `(index-add base ids values)` along the first axis.
    fn index_add(&mut self, s: &[usize], d: usize) -> Option<G> {
        let (&n, rest) = s.split_first()?;
        let k = self.rng.int(1, 5);
        let mut vs = vec![k];
        vs.extend_from_slice(rest);
        let base = self.expr(s, d);
        let values = self.expr(&vs, d);
        let idx = ids(self, &[k], 0, n);
        let bound = base.bound + values.bound * k as f64;
        let node = around(s, "(index-add", base.node, &idx, values.node, ")");
        Some(G::new(node, bound))
    }

    /// `(linear-scan a b)` with `|a| < 1`, either way along an axis.
    fn linear_scan(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.rng.int(0, s.len().checked_sub(1)?);
        let a = self.expr(s, d);
        let b = self.expr(s, d);
        let reverse = self.rng.coin(0.4);
        let rest = format!(":axis {axis} :reverse {reverse}");
        let bound = b.bound * s[axis] as f64;
        Some(G::new(
            Node::call("linear-scan", s, vec![unary("tanh", a.node), b.node], &rest),
            bound,
        ))
    }

    /// `(repeat x [counts])`: each axis a whole number of copies.
    fn tile(&mut self, s: &[usize], d: usize) -> Option<G> {
        if s.is_empty() {
            return None;
        }
        let counts: Vec<usize> = s
            .iter()
            .map(|&n| {
                let divisors: Vec<usize> = (1..=n).filter(|c| n.is_multiple_of(*c)).collect();
                *self.rng.choose(&divisors)
            })
            .collect();
        let child: Vec<usize> = s.iter().zip(&counts).map(|(n, c)| n / c).collect();
        let a = self.expr(&child, d);
        Some(G::new(
            Node::call("repeat", s, vec![a.node], &shape_text(&counts)),
            a.bound,
        ))
    }

    /// `(unfold x axis size step)`: windows along an axis, a last axis of
    /// `size` for each.
    fn unfold(&mut self, s: &[usize], d: usize) -> Option<G> {
        if s.len() < 2 {
            return None;
        }
        let size = s[s.len() - 1];
        let axis = self.rng.int(0, s.len() - 2);
        let step = self.rng.int(1, 2);
        let mut child = s[..s.len() - 1].to_vec();
        child[axis] = (s[axis] - 1) * step + size;
        if child.iter().product::<usize>() > super::MAX_ELEMENTS {
            return None;
        }
        let a = self.expr(&child, d);
        Some(G::new(
            Node::call("unfold", s, vec![a.node], &format!("{axis} {size} {step}")),
            a.bound,
        ))
    }
}
