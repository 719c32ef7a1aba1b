//! Operations that change or read across the shape: reductions (axes,
//! keepdims), products, layouts (transpose, reshape, slices, concat,
//! broadcast, pad, flip, roll), softmax and scans, sorting, indexing,
//! fused attention and a round trip through bf16.

use super::{form, t, to_shape, unary, Gen, G};
use crate::ast::{Node, Part, Shape};

use super::MAX_ELEMENTS;

fn numel(s: &[usize]) -> usize {
    s.iter().product()
}

/// How an axis is written: from the front, or sometimes from the end.
fn axis_text(gen: &mut Gen, axis: usize, rank: usize) -> String {
    if gen.rng.coin(0.3) {
        format!("{}", axis as i64 - rank as i64)
    } else {
        axis.to_string()
    }
}

impl Gen {
    /// A random axis of shape `s`; none for a scalar.
    fn some_axis(&mut self, s: &[usize]) -> Option<usize> {
        (!s.is_empty()).then(|| self.rng.int(0, s.len() - 1))
    }

    pub(super) fn structure(&mut self, s: &[usize], d: usize) -> Option<G> {
        match self
            .rng
            .weighted(&[26, 16, 8, 8, 8, 7, 4, 7, 7, 4, 4, 4, 3, 2, 14])
        {
            0 => self.reduce(s, d),
            1 => self.matmul(s, d),
            2 => self.transpose(s, d),
            3 => self.reshape(s, d),
            4 => self.slice(s, d),
            5 => self.concat(s, d),
            6 => self.broadcast_to(s, d),
            7 => self.softmax(s, d),
            8 => self.scan(s, d),
            9 => self.pad(s, d),
            10 => self.index(s, d),
            11 => self.sort(s, d),
            12 => self.attention(s, d),
            14 => self.library(s, d),
            _ => {
                let a = self.expr(s, d);
                let (there, back) = if self.bf16 {
                    (":f32", ":bf16")
                } else {
                    (":bf16", ":f32")
                };
                let inner = Node::call("cast", s, vec![a.node], there);
                Some(G::new(Node::call("cast", s, vec![inner], back), a.bound))
            }
        }
    }

    /// `sum max min prod nn/mean nn/var nn/logsumexp` over new axes, or
    /// over axes `s` keeps as 1s (`:keepdims true`).
    fn reduce(&mut self, s: &[usize], d: usize) -> Option<G> {
        let op = *self.rng.choose(&[
            "sum",
            "max",
            "min",
            "prod",
            "nn/mean",
            "nn/var",
            "nn/logsumexp",
        ]);
        let one_axis = op == "nn/logsumexp";
        let ones: Vec<usize> = (0..s.len()).filter(|&i| s[i] == 1).collect();
        let keep = !ones.is_empty() && self.rng.coin(0.3);
        let (child, axes): (Shape, Vec<usize>) = if keep {
            let mut axes: Vec<usize> = ones.into_iter().filter(|_| self.rng.coin(0.6)).collect();
            if axes.is_empty() || one_axis {
                axes = vec![*self
                    .rng
                    .choose(&(0..s.len()).filter(|&i| s[i] == 1).collect::<Vec<_>>())];
            }
            let mut c = s.to_vec();
            for &a in &axes {
                c[a] = self.rng.int(2, 4);
            }
            (c, axes)
        } else {
            let n_new = if one_axis { 1 } else { self.rng.int(1, 2) };
            if s.len() + n_new > 4 {
                return None;
            }
            let mut c = s.to_vec();
            let mut axes = Vec::new();
            for _ in 0..n_new {
                let at = self.rng.int(0, c.len());
                let n = self.dim();
                c.insert(at, n);
                for a in axes.iter_mut() {
                    if *a >= at {
                        *a += 1;
                    }
                }
                axes.push(at);
            }
            axes.sort_unstable();
            (c, axes)
        };
        if numel(&child) > MAX_ELEMENTS {
            return None;
        }
        let mut a = self.expr(&child, d);
        let n: usize = axes.iter().map(|&i| child[i]).product();
        if op == "prod" && a.bound > 1.2 {
            a = G::new(unary("tanh", a.node), 1.0);
        }
        let bound = match op {
            "sum" => a.bound * n as f64,
            "prod" => 1.0,
            "nn/var" => a.bound * a.bound,
            "nn/logsumexp" => a.bound + (n as f64).ln(),
            _ => a.bound,
        };
        let rank = child.len();
        let written: Vec<String> = axes.iter().map(|&x| axis_text(self, x, rank)).collect();
        let mut rest = if one_axis {
            format!(":axis {}", written[0])
        } else if !keep && axes.len() == rank && self.rng.coin(0.5) {
            String::new()
        } else {
            format!(":axes [{}]", written.join(" "))
        };
        if keep {
            rest.push_str(" :keepdims true");
        }
        Some(G::new(Node::call(op, s, vec![a.node], rest.trim()), bound))
    }

    /// `matmul` of every rank NumPy's rules allow for `s` (vectors,
    /// matrices, batches broadcast from one side), or `einsum`.
    fn matmul(&mut self, s: &[usize], d: usize) -> Option<G> {
        let k = self.dim();
        let (sa, sb): (Shape, Shape) = match s {
            [] => (vec![k], vec![k]),
            [n] if self.rng.coin(0.5) => (vec![k], vec![k, *n]),
            [m] => (vec![*m, k], vec![k]),
            [m, n] => (vec![*m, k], vec![k, *n]),
            [b, m, n] => match self.rng.int(0, 3) {
                0 => (vec![*b, *m, k], vec![k, *n]),
                1 => (vec![*m, k], vec![*b, k, *n]),
                2 => (vec![*b, *m, k], vec![1, k, *n]),
                _ => (vec![*b, *m, k], vec![*b, k, *n]),
            },
            _ => return None,
        };
        if numel(&sa) > MAX_ELEMENTS || numel(&sb) > MAX_ELEMENTS {
            return None;
        }
        let a = self.expr(&sa, d);
        let b = self.expr(&sb, d);
        let bound = k as f64 * a.bound * b.bound;
        let node = if s.len() == 2 && self.rng.coin(0.3) {
            form(
                s,
                vec![
                    t("(einsum \"ik,kj->ij\""),
                    Part::T(a.node),
                    Part::T(b.node),
                    t(")"),
                ],
            )
        } else {
            Node::call("matmul", s, vec![a.node, b.node], "")
        };
        Some(G::new(node, bound))
    }

    fn transpose(&mut self, s: &[usize], d: usize) -> Option<G> {
        if s.len() < 2 {
            return None;
        }
        let mut perm: Vec<usize> = (0..s.len()).collect();
        for i in (1..perm.len()).rev() {
            let j = self.rng.int(0, i);
            perm.swap(i, j);
        }
        // The result's axis i is the operand's axis perm[i].
        let mut child = vec![0; s.len()];
        for (i, &p) in perm.iter().enumerate() {
            child[p] = s[i];
        }
        let a = self.expr(&child, d);
        let p: Vec<String> = perm.iter().map(usize::to_string).collect();
        Some(G::new(
            Node::call("transpose", s, vec![a.node], &format!("[{}]", p.join(" "))),
            a.bound,
        ))
    }

    fn reshape(&mut self, s: &[usize], d: usize) -> Option<G> {
        let mut left = numel(s);
        let rank = self.rng.int(1, 3);
        let mut child = Vec::new();
        for _ in 1..rank {
            let divisors: Vec<usize> = (1..=left).filter(|k| left.is_multiple_of(*k)).collect();
            let k = *self.rng.choose(&divisors);
            child.push(k);
            left /= k;
        }
        child.push(left);
        let a = self.expr(&child, d);
        Some(to_shape("reshape", s, a))
    }

    /// `(slice x axis start stop)`, or with a step of 2.
    fn slice(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.some_axis(s)?;
        let step = if self.rng.coin(0.3) { 2 } else { 1 };
        let start = self.rng.int(0, 2);
        let stop = start + step * (s[axis] - 1) + 1;
        let mut child = s.to_vec();
        child[axis] = stop + self.rng.int(0, 2);
        if numel(&child) > MAX_ELEMENTS {
            return None;
        }
        let a = self.expr(&child, d);
        let ax = axis_text(self, axis, s.len());
        let rest = if step == 1 {
            format!("{ax} {start} {stop}")
        } else {
            format!("{ax} {start} {stop} {step}")
        };
        Some(G::new(Node::call("slice", s, vec![a.node], &rest), a.bound))
    }

    fn concat(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axes: Vec<usize> = (0..s.len()).filter(|&i| s[i] >= 2).collect();
        if axes.is_empty() {
            return None;
        }
        let axis = *self.rng.choose(&axes);
        let mut left = s[axis];
        let mut parts = Vec::new();
        let mut bound: f64 = 0.0;
        while left > 0 {
            let n = if parts.len() == 2 {
                left
            } else {
                self.rng.int(1, left)
            };
            let mut c = s.to_vec();
            c[axis] = n;
            let a = self.expr(&c, d);
            bound = bound.max(a.bound);
            parts.push(a.node);
            left -= n;
        }
        let ax = axis_text(self, axis, s.len());
        let node = form(
            s,
            vec![t(&format!("(concat {ax}")), Part::Ts(parts), t(")")],
        );
        Some(G::new(node, bound))
    }

    fn broadcast_to(&mut self, s: &[usize], d: usize) -> Option<G> {
        let small = self.broadcastable(s);
        let a = self.expr(&small, d);
        Some(to_shape("broadcast-to", s, a))
    }

    fn softmax(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.some_axis(s)?;
        let a = self.expr(s, d);
        let ax = axis_text(self, axis, s.len());
        let rest = format!(":axis {ax}");
        Some(if self.rng.coin(0.5) {
            G::new(Node::call("nn/softmax", s, vec![a.node], &rest), 1.0)
        } else {
            let b = 2.0 * a.bound + (s[axis] as f64).ln();
            G::new(Node::call("nn/log-softmax", s, vec![a.node], &rest), b)
        })
    }

    /// Running sums, products and log-sum-exps, `flip` and `roll`.
    fn scan(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.some_axis(s)?;
        let n = s[axis] as f64;
        let ax = axis_text(self, axis, s.len());
        let a = self.expr(s, d);
        let b = a.bound;
        let kw = format!(":axis {ax}");
        Some(match self.rng.int(0, 4) {
            0 => G::new(Node::call("nn/cumsum", s, vec![a.node], &kw), b * n),
            1 => G::new(
                Node::call("cumprod", s, vec![unary("tanh", a.node)], &kw),
                1.0,
            ),
            2 => G::new(Node::call("logcumsumexp", s, vec![a.node], &kw), b + n.ln()),
            3 => G::new(Node::call("flip", s, vec![a.node], &format!("[{ax}]")), b),
            _ => {
                let k = self.rng.int(0, 4) as i64 - 2;
                G::new(Node::call("roll", s, vec![a.node], &format!("{k} {kw}")), b)
            }
        })
    }

    /// `pad` of the last axis in each mode.
    fn pad(&mut self, s: &[usize], d: usize) -> Option<G> {
        let len = *s.last()?;
        let lo = self.rng.int(0, 2);
        let hi = self.rng.int(0, 2);
        if lo + hi == 0 || lo + hi >= len {
            return None;
        }
        let inner = len - lo - hi;
        let mut modes = vec![":constant", ":replicate"];
        if lo.max(hi) <= inner {
            modes.push(":circular");
        }
        if lo.max(hi) < inner {
            modes.push(":reflect");
        }
        let mode = *self.rng.choose(&modes);
        let mut child = s.to_vec();
        *child.last_mut()? = inner;
        let a = self.expr(&child, d);
        let rest = format!("[[{lo} {hi}]] :mode {mode}");
        Some(G::new(Node::call("pad", s, vec![a.node], &rest), a.bound))
    }

    /// `index` of a table by ids from `iota`, in range by `mod`.
    fn index(&mut self, s: &[usize], d: usize) -> Option<G> {
        let (&k, rest) = s.split_first()?;
        let n = self.rng.int(1, 5);
        let mut table = vec![n];
        table.extend_from_slice(rest);
        let a = self.expr(&table, d);
        let j = self.rng.int(0, 3);
        let ids = format!("(mod (+ (iota [{k}]) {j}) {n})");
        Some(G::new(Node::call("index", s, vec![a.node], &ids), a.bound))
    }

    /// The values of `sort` or `top-k` (a gather, so differentiable).
    fn sort(&mut self, s: &[usize], d: usize) -> Option<G> {
        let axis = self.some_axis(s)?;
        let ax = axis_text(self, axis, s.len());
        if self.rng.coin(0.5) {
            let a = self.expr(s, d);
            let desc = if self.rng.coin(0.5) {
                " :descending true"
            } else {
                ""
            };
            let sorted = Node::call("sort", s, vec![a.node], &format!(":axis {ax}{desc}"));
            return Some(G::new(unary("first", sorted), a.bound));
        }
        let mut child = s.to_vec();
        child[axis] += self.rng.int(0, 2);
        let a = self.expr(&child, d);
        let largest = if self.rng.coin(0.3) {
            " :largest false"
        } else {
            ""
        };
        let rest = format!("{} :axis {ax}{largest}", s[axis]);
        let top = Node::call("top-k", s, vec![a.node], &rest);
        Some(G::new(unary("first", top), a.bound))
    }

    /// `scaled-dot-product-attention`, keys and values shared across the
    /// batch or not, causal or not.
    fn attention(&mut self, s: &[usize], d: usize) -> Option<G> {
        if self.in_grad > 0 {
            return None;
        }
        let (batch, [tq, e]) = s.split_at(s.len().checked_sub(2)?) else {
            return None;
        };
        if batch.len() > 1 {
            return None;
        }
        let (dd, sl) = (self.rng.int(1, 4), self.dim());
        let kv_batch: &[usize] = if self.rng.coin(0.5) { batch } else { &[] };
        let q = self.expr(&[batch, &[*tq, dd]].concat(), d);
        let k = self.expr(&[kv_batch, &[sl, dd]].concat(), d);
        let v = self.expr(&[kv_batch, &[sl, *e]].concat(), d);
        let causal = if self.rng.coin(0.4) {
            ":causal true"
        } else {
            ""
        };
        let bound = v.bound;
        Some(G::new(
            Node::call(
                "scaled-dot-product-attention",
                s,
                vec![q.node, k.node, v.node],
                causal,
            ),
            bound,
        ))
    }
}
