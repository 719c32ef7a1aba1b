//! Patterns with grouped axes (`docs/shapescript/patterns.md`):
//! `rearrange(x, [b (h d)] -> [b h d], h=H)` splits an axis of a product
//! size into the goal's axes, and `rearrange(x, [b h d] -> [b (h d)])`
//! merges axes into a goal axis of a product size (`2*n`, `D*n`); the
//! reference follows the same plan as the other patterns (`Layout`:
//! reshape into the elementary sizes, permute, reshape to the result).

use super::layout::{plain_axis, word};
use super::{Fx, Gen, Goal};
use crate::ast::{Expr, Layout, Op};
use crate::size::Size;
use crate::ty::{Axis, Ty, TT};

/// Words for the parts of a merged axis, which no program names otherwise.
const PART_WORDS: &[&str] = &["gq1", "gq2", "gq3", "gq4"];

impl Gen {
    /// `rearrange(x, [.. (wi wj) ..] -> [goal])`: two goal axes (each a
    /// symbol or a number) made of one input axis of their product size,
    /// the input's axes in another order; a part that is no dim and no
    /// number gets its size as a keyword.
    pub(super) fn ungroup(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        let r = goal.axes.len();
        if fx.hides("rearrange") || r < 2 {
            return None;
        }
        let words: Vec<String> = goal.axes.iter().map(word).collect::<Option<_>>()?;
        if (1..r).any(|i| words[..i].contains(&words[i])) {
            return None;
        }
        let mut order: Vec<usize> = (0..r).collect();
        self.shuffle(&mut order);
        let at = self.rng.below(r - 1);
        let (i, j) = (order[at], order[at + 1]);
        let mut kw = Vec::new();
        for k in [i, j] {
            let size = &goal.axes[k].size;
            if size.as_lit().is_some() {
                continue;
            }
            let sym = size.as_sym()?;
            let known = self.dims.value(sym).is_some() && words[k] == sym;
            if !known {
                if !fx.size_usable(size) {
                    return None;
                }
                kw.push((words[k].clone(), size.ss()));
            }
        }
        let merged = goal.axes[i].size.mul(&goal.axes[j].size);
        let mut input: Vec<Axis> = Vec::new();
        let mut lhs: Vec<String> = Vec::new();
        for (p, &g) in order.iter().enumerate() {
            if p == at + 1 {
                continue;
            }
            if p == at {
                input.push(super::shape::named(Axis::anon(merged.clone())));
                lhs.push(format!("({} {})", words[i], words[j]));
            } else {
                input.push(plain_axis(goal.axes[g].clone()));
                lhs.push(words[g].clone());
            }
        }
        let arg = self.float(fx, &goal.same_values(input), depth - 1);
        let split: Vec<Size> = order.iter().map(|&g| goal.axes[g].size.clone()).collect();
        let back = (0..r).map(|g| order.iter().position(|&o| o == g)).collect();
        let sizes: Vec<Size> = goal.axes.iter().map(|x| x.size.clone()).collect();
        let plan = Layout {
            split,
            reduce: None,
            order: back,
            expand: sizes.clone(),
            merge: sizes,
        };
        let pattern = (lhs.join(" "), words.join(" "));
        rearranged(goal, arg, pattern, kw, plan)
    }

    /// `rearrange(x, [..] -> [.. (p1 p2) ..])`: a goal axis of a product
    /// size (`2*n`, `D*n`) merged from input axes of its factors, the
    /// input's axes in another order.
    pub(super) fn group(&mut self, fx: &mut Fx, goal: &Goal, depth: u32) -> Option<Expr> {
        if fx.hides("rearrange") {
            return None;
        }
        let at = (0..goal.axes.len())
            .find(|&k| goal.axes[k].name.is_none() && goal.axes[k].size.factors().is_some())?;
        let parts = goal.axes[at].size.factors()?;
        if parts.len() > PART_WORDS.len() {
            return None;
        }
        // Every other goal axis by its word; the parts by new words.
        let mut words: Vec<Vec<String>> = Vec::new();
        let mut elems: Vec<Size> = Vec::new();
        for (k, a) in goal.axes.iter().enumerate() {
            if k == at {
                words.push(
                    PART_WORDS[..parts.len()]
                        .iter()
                        .map(|w| w.to_string())
                        .collect(),
                );
                elems.extend(parts.iter().cloned());
            } else {
                words.push(vec![word(a)?]);
                elems.push(a.size.clone());
            }
        }
        let flat: Vec<String> = words.iter().flatten().cloned().collect();
        if (1..flat.len()).any(|i| flat[..i].contains(&flat[i])) {
            return None;
        }
        // The input: the elementary axes in another order.
        let mut order: Vec<usize> = (0..elems.len()).collect();
        self.shuffle(&mut order);
        let mut input: Vec<Axis> = Vec::new();
        let mut owner = Vec::new();
        for (k, w) in words.iter().enumerate() {
            owner.extend(w.iter().map(|_| k));
        }
        for &e in &order {
            let k = owner[e];
            input.push(if k == at {
                super::shape::named(Axis::anon(elems[e].clone()))
            } else {
                plain_axis(goal.axes[k].clone())
            });
        }
        let arg = self.float(fx, &goal.same_values(input), depth - 1);
        let lhs: Vec<String> = order.iter().map(|&e| flat[e].clone()).collect();
        let rhs: Vec<String> = words
            .iter()
            .map(|w| match w.as_slice() {
                [one] => one.clone(),
                many => format!("({})", many.join(" ")),
            })
            .collect();
        let split: Vec<Size> = order.iter().map(|&e| elems[e].clone()).collect();
        let back = (0..elems.len())
            .map(|e| order.iter().position(|&o| o == e))
            .collect();
        let plan = Layout {
            split,
            reduce: None,
            order: back,
            expand: elems,
            merge: goal.axes.iter().map(|x| x.size.clone()).collect(),
        };
        rearranged(goal, arg, (lhs.join(" "), rhs.join(" ")), Vec::new(), plan)
    }
}

/// `rearrange(arg, [lhs] -> [rhs], kw)`, of the goal's axes, as `plan`
/// computes it; `None` when `arg` is no tensor.
fn rearranged(
    goal: &Goal,
    arg: Expr,
    (lhs, rhs): (String, String),
    kw: Vec<(String, String)>,
    plan: Layout,
) -> Option<Expr> {
    let t = TT {
        axes: goal.axes.clone(),
        ..arg.tensor()?.clone()
    };
    let op = Op::Pattern {
        f: "rearrange",
        lhs,
        rhs,
        kw,
        reduce: None,
        plan,
    };
    Some(Expr::new(op, vec![arg], Ty::T(t)))
}
