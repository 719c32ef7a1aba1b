//! Elementwise operations: unary functions (each given an operand in its
//! smooth domain), binary ones with NumPy broadcasting or a host number,
//! and `where` on a comparison.

use super::{form, t, unary, Gen, G};
use crate::ast::{Node, Part, Shape};

/// Unary functions bounded by a constant whatever their operand.
const BOUNDED: [(&str, f64); 6] = [
    ("tanh", 1.0),
    ("sin", 1.0),
    ("cos", 1.0),
    ("sigmoid", 1.0),
    ("erf", 1.0),
    ("atan", 1.6),
];

/// Unary functions of any operand whose result is at most about the
/// operand's bound, plus `offset`.
const GROWING: [(&str, f64); 6] = [
    ("neg", 0.0),
    ("softplus", 0.7),
    ("nn/silu", 0.3),
    ("nn/gelu", 0.2),
    ("asinh", 0.0),
    ("abs", 0.0),
];

/// Functions of a positive operand (at least 0.3): their bound given the
/// operand's.
const OF_POSITIVE: [&str; 7] = [
    "log",
    "sqrt",
    "rsqrt",
    "log1p",
    "log2",
    "log10",
    "exp-of-log",
];

impl Gen {
    pub(super) fn elementwise(&mut self, s: &[usize], d: usize) -> Option<G> {
        Some(match self.rng.weighted(&[30, 12, 14, 30, 6, 5, 3]) {
            0 => {
                // Tamed first: `sin` of 200 turns the last bit of a
                // product (the CPU's f32 sums against the reference's
                // f64) into a difference of 1e-4.
                let (f, b) = *self.rng.choose(&BOUNDED);
                let a = self.expr(s, d);
                let a = self.tame(a);
                G::new(unary(f, a.node), b)
            }
            1 => {
                let (f, off) = *self.rng.choose(&GROWING);
                let a = self.expr(s, d);
                G::new(unary(f, a.node), a.bound + off)
            }
            2 => self.of_positive(s, d),
            3 => self.binary(s, d),
            4 => self.exponential(s, d),
            5 => self.where_(s, d),
            _ => self.kink_or_step(s, d),
        })
    }

    /// An expression of shape `s` that is at least 0.3 everywhere.
    pub(crate) fn positive(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let b = a.bound;
        match self.rng.int(0, 3) {
            0 => G::new(
                Node::call("+", s, vec![unary("softplus", a.node)], "0.5"),
                b + 1.2,
            ),
            1 => G::new(
                form(
                    s,
                    vec![
                        t("(+ 1.0 (*"),
                        Part::T(a.node.clone()),
                        Part::T(a.node),
                        t("))"),
                    ],
                ),
                1.0 + b * b,
            ),
            2 => G::new(unary("exp", unary("tanh", a.node)), 2.72),
            _ => G::new(
                form(s, vec![t("(+ 1.5"), Part::T(unary("sin", a.node)), t(")")]),
                2.5,
            ),
        }
    }

    fn of_positive(&mut self, s: &[usize], d: usize) -> G {
        let p = self.positive(s, d);
        let f = *self.rng.choose(&OF_POSITIVE);
        let b = p.bound;
        match f {
            "sqrt" => G::new(unary(f, p.node), b.sqrt()),
            "rsqrt" => G::new(unary(f, p.node), 2.0),
            "exp-of-log" => {
                let e = 0.5 + self.rng.int(0, 4) as f64 * 0.5;
                G::new(
                    Node::call("pow", s, vec![p.node], &format!("{e:?}")),
                    b.powf(e).max(1.0),
                )
            }
            _ => G::new(unary(f, p.node), b.ln().abs() + 1.5),
        }
    }

    /// `exp`, `expm1`, `sinh`, `cosh` of an operand squashed first when
    /// its bound is over 2.
    fn exponential(&mut self, s: &[usize], d: usize) -> G {
        let mut a = self.expr(s, d);
        if a.bound > 2.0 {
            a = G::new(unary("tanh", a.node), 1.0);
        }
        let f = *self.rng.choose(&["exp", "expm1", "sinh", "cosh"]);
        let b = a.bound.exp();
        G::new(unary(f, a.node), b)
    }

    /// A shape `s`'s operand may have to broadcast to it: `s`, `s` with
    /// some dims 1, or a suffix of `s`.
    pub(crate) fn broadcastable(&mut self, s: &[usize]) -> Vec<usize> {
        match self.rng.int(0, 2) {
            0 => s.to_vec(),
            1 => s
                .iter()
                .map(|&n| if self.rng.coin(0.5) { 1 } else { n })
                .collect(),
            _ => {
                let drop = self.rng.int(0, s.len());
                s[drop..].to_vec()
            }
        }
    }

    /// `+ - * / maximum minimum atan2 lerp` of a full operand and one that
    /// broadcasts, either way round, or of a tensor and a host number.
    fn binary(&mut self, s: &[usize], d: usize) -> G {
        let op = *self
            .rng
            .choose(&["+", "-", "*", "/", "maximum", "minimum", "atan2", "lerp"]);
        if matches!(op, "+" | "-" | "*") && self.rng.coin(0.25) {
            let a = self.expr(s, d);
            let k = *self.rng.choose(&["2", "0.5", "-1.5", "3"]);
            let k_bound: f64 = k.parse().unwrap_or(1.0);
            let b = if op == "*" {
                a.bound * k_bound.abs()
            } else {
                a.bound + k_bound.abs()
            };
            let node = if self.rng.coin(0.5) {
                form(s, vec![t(&format!("({op} {k}")), Part::T(a.node), t(")")])
            } else {
                Node::call(op, s, vec![a.node], k)
            };
            return G::new(node, b);
        }
        let small = self.broadcastable(s);
        let (sa, sb) = if self.rng.coin(0.5) {
            (s.to_vec(), small)
        } else {
            (small, s.to_vec())
        };
        let a = self.expr(&sa, d);
        match op {
            "/" => {
                let b = self.positive(&sb, d);
                G::new(Node::call(op, s, vec![a.node, b.node], ""), a.bound / 0.3)
            }
            "atan2" => {
                let b = self.positive(&sb, d);
                G::new(Node::call(op, s, vec![a.node, b.node], ""), 1.6)
            }
            "lerp" => {
                let b = self.expr(&sb, d);
                let w = *self.rng.choose(&["0.25", "0.5", "0.9", "1.0"]);
                G::new(
                    Node::call(op, s, vec![a.node, b.node], w),
                    a.bound.max(b.bound),
                )
            }
            _ => {
                let b = self.expr(&sb, d);
                let bound = if op == "*" {
                    a.bound * b.bound
                } else {
                    a.bound + b.bound
                };
                G::new(Node::call(op, s, vec![a.node, b.node], ""), bound)
            }
        }
    }

    /// `(where (< a b) c e)`: discontinuous where `a = b`, which finite
    /// differences meet with probability about their step.
    fn where_(&mut self, s: &[usize], d: usize) -> G {
        let cmp = *self.rng.choose(&["<", ">", "<=", ">="]);
        let (sa, sb) = (self.broadcastable(s), self.broadcastable(s));
        let a = self.expr(&sa, d.min(1));
        let b = self.expr(&sb, d.min(1));
        let c = self.expr(s, d);
        let se = self.broadcastable(s);
        let e = self.expr(&se, d);
        let mask_shape = broadcast(&a.node.shape, &b.node.shape);
        let node = form(
            s,
            vec![
                t("(where"),
                Part::T(Node {
                    mask: true,
                    ..Node::call(cmp, &mask_shape, vec![a.node, b.node], "")
                }),
                Part::T(c.node),
                Part::T(e.node),
                t(")"),
            ],
        );
        G::new(node, c.bound.max(e.bound))
    }

    /// `nn/relu`, `clip` (kinks) and `floor`, `round` (steps, gradient 0).
    fn kink_or_step(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let b = a.bound;
        match self.rng.int(0, 3) {
            0 => G::new(unary("nn/relu", a.node), b),
            1 => G::new(Node::call("clip", s, vec![a.node], "-0.5 0.75"), 0.75),
            2 => G::new(unary("floor", a.node), b + 1.0),
            _ => G::new(unary("round", a.node), b + 1.0),
        }
    }
}

/// The shape two shapes broadcast to (NumPy's rule; both broadcast to
/// some common shape here, so no check).
pub(crate) fn broadcast(a: &[usize], b: &[usize]) -> Shape {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    (0..n).map(|i| at(a, i).max(at(b, i))).collect()
}
