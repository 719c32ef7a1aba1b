//! `einsum` (`docs/sexpgpu/operations.md`): a subscript string such as
//! `"bhid,bhjd->bhij"` over any number of operands, with repeated indices
//! (diagonals, traces), `...` for broadcast axes, and an implicit output
//! (the indices used once, sorted) when there is no `->`. Lowered to
//! `index` (diagonals), `sum`, `broadcast`, `transpose`, `reshape` and
//! `matmul`, combining operands left to right, so gradients come free.

use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::ReduceOp;
use crate::shape::Shape;

/// An index: a letter, or the `i`-th axis of `...` counted from the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Ellipsis(usize),
    Letter(char),
}

/// One operand during lowering: its node and the label of each axis.
struct Term {
    node: NodeId,
    labels: Vec<Label>,
}

impl Term {
    /// Its labels that `which` picks, in order.
    fn labels_where(&self, which: impl Fn(&Label) -> bool) -> Vec<Label> {
        self.labels.iter().filter(|l| which(l)).copied().collect()
    }
}

/// A parsed subscript: one label list per operand, and the output's.
struct Spec {
    inputs: Vec<Vec<Label>>,
    output: Vec<Label>,
}

impl Graph {
    /// `(einsum "ij,jk->ik" a b)`.
    pub fn einsum(&mut self, subscripts: &str, operands: &[NodeId]) -> Result<NodeId, OpError> {
        let ranks: Vec<usize> = operands.iter().map(|&x| self.shape(x).rank()).collect();
        let spec = parse(subscripts, &ranks)?;
        if operands.is_empty() {
            return Err(OpError::dim("einsum: needs at least one tensor"));
        }
        self.same_dtype("einsum", operands)?;
        let sizes = self.label_sizes(&spec, operands)?;
        let mut terms = Vec::new();
        for (i, (&x, labels)) in operands.iter().zip(&spec.inputs).enumerate() {
            let term = self.diagonals(Term {
                node: x,
                labels: labels.clone(),
            })?;
            let term = self.broadcast_term(term, &sizes)?;
            let later: Vec<Label> = spec.inputs[i + 1..].iter().flatten().copied().collect();
            let earlier: Vec<Label> = spec.inputs[..i].iter().flatten().copied().collect();
            let keep =
                |l: &Label| spec.output.contains(l) || later.contains(l) || earlier.contains(l);
            terms.push(self.sum_out(term, keep)?);
        }
        let mut acc = terms.remove(0);
        for (i, next) in terms.into_iter().enumerate() {
            let later: Vec<Label> = spec.inputs[i + 2..].iter().flatten().copied().collect();
            acc = self.contract(acc, next, |l| spec.output.contains(l) || later.contains(l))?;
        }
        let perm: Vec<i64> = spec
            .output
            .iter()
            .map(|l| acc.labels.iter().position(|m| m == l).unwrap_or(0) as i64)
            .collect();
        self.transpose(acc.node, &perm)
    }

    /// Each label's size over all operands; letters must agree, `...` axes
    /// broadcast (a 1 stretches).
    fn label_sizes(
        &self,
        spec: &Spec,
        operands: &[NodeId],
    ) -> Result<Vec<(Label, usize)>, OpError> {
        let mut sizes: Vec<(Label, usize, usize)> = Vec::new();
        for (i, (labels, &x)) in spec.inputs.iter().zip(operands).enumerate() {
            for (&l, &n) in labels.iter().zip(self.shape(x).dims()) {
                match sizes.iter_mut().find(|(m, _, _)| *m == l) {
                    None => sizes.push((l, n, i)),
                    Some((_, m, _)) if *m == n || matches!(l, Label::Ellipsis(_)) && n == 1 => {}
                    Some((_, m, _)) if matches!(l, Label::Ellipsis(_)) && *m == 1 => *m = n,
                    Some((_, m, j)) => {
                        let what = match l {
                            Label::Letter(c) => format!("index `{c}`"),
                            Label::Ellipsis(_) => "an axis of `...`".to_string(),
                        };
                        return Err(OpError::dim(format!(
                            "einsum: {what} is {m} in operand {} but {n} in operand {}",
                            *j + 1,
                            i + 1
                        )));
                    }
                }
            }
        }
        Ok(sizes.into_iter().map(|(l, n, _)| (l, n)).collect())
    }

    /// Repeated labels of one operand reduced to their diagonal.
    fn diagonals(&mut self, mut t: Term) -> Result<Term, OpError> {
        while let Some((p, q)) = repeated(&t.labels) {
            let dims = self.shape(t.node).dims().to_vec();
            let n = dims[p];
            if dims[q] != n {
                return Err(OpError::dim(format!(
                    "einsum: a repeated index needs equal axes, got {} and {}",
                    dims[p], dims[q]
                )));
            }
            let rest: Vec<usize> = (0..dims.len()).filter(|&a| a != p && a != q).collect();
            let mut perm = vec![p as i64, q as i64];
            perm.extend(rest.iter().map(|&a| a as i64));
            let moved = self.transpose(t.node, &perm)?;
            let flat = [
                &[n * n],
                &rest.iter().map(|&a| dims[a]).collect::<Vec<_>>()[..],
            ]
            .concat();
            let moved = self.reshape(moved, Shape::new(flat))?;
            let ids: Vec<usize> = (0..n).map(|i| i * (n + 1)).collect();
            let ids = self.positions(&[n], &ids)?;
            let node = self.index(moved, ids)?;
            let mut labels = vec![t.labels[p]];
            labels.extend(rest.iter().map(|&a| t.labels[a]));
            t = Term { node, labels };
        }
        Ok(t)
    }

    /// `...` axes of size 1 stretched to the other operands' size.
    fn broadcast_term(&mut self, t: Term, sizes: &[(Label, usize)]) -> Result<Term, OpError> {
        let dims: Vec<usize> = t
            .labels
            .iter()
            .map(|l| sizes.iter().find(|(m, _)| m == l).map_or(1, |s| s.1))
            .collect();
        let node = self.broadcast_to(t.node, Shape::new(dims))?;
        Ok(Term { node, ..t })
    }

    /// Labels that `keep` rejects summed away.
    fn sum_out(&mut self, t: Term, keep: impl Fn(&Label) -> bool) -> Result<Term, OpError> {
        let axes: Vec<i64> = (0..t.labels.len())
            .filter(|&a| !keep(&t.labels[a]))
            .map(|a| a as i64)
            .collect();
        if axes.is_empty() {
            return Ok(t);
        }
        let node = self.reduce(ReduceOp::Sum, t.node, Some(&axes), false)?;
        let labels = t.labels.into_iter().filter(|l| keep(l)).collect();
        Ok(Term { node, labels })
    }

    /// Two terms as one batched `matmul`: shared labels that `keep` wants
    /// are batch axes, other shared labels are summed, the rest stay.
    fn contract(
        &mut self,
        a: Term,
        b: Term,
        keep: impl Fn(&Label) -> bool,
    ) -> Result<Term, OpError> {
        let a = self.sum_out(a, |l| keep(l) || b.labels.contains(l))?;
        let b = self.sum_out(b, |l| keep(l) || a.labels.contains(l))?;
        let shared = |l: &Label| a.labels.contains(l) && b.labels.contains(l);
        let batch = a.labels_where(|l| shared(l) && keep(l));
        let summed = a.labels_where(|l| shared(l) && !keep(l));
        let only_a = a.labels_where(|l| !b.labels.contains(l));
        let only_b = b.labels_where(|l| !a.labels.contains(l));
        let size = |g: &Graph, t: &Term, ls: &[Label]| -> Vec<usize> {
            ls.iter()
                .map(|l| g.shape(t.node).dims()[t.labels.iter().position(|m| m == l).unwrap_or(0)])
                .collect()
        };
        let (nb, nm) = (size(self, &a, &batch), size(self, &a, &only_a));
        let (nk, nn) = (size(self, &a, &summed), size(self, &b, &only_b));
        let prod = |v: &[usize]| v.iter().product::<usize>();
        let left = self.arrange(&a, &[&batch, &only_a, &summed])?;
        let left = self.reshape(left, Shape::new(vec![prod(&nb), prod(&nm), prod(&nk)]))?;
        let right = self.arrange(&b, &[&batch, &summed, &only_b])?;
        let right = self.reshape(right, Shape::new(vec![prod(&nb), prod(&nk), prod(&nn)]))?;
        let product = self.matmul(left, right)?;
        let node = self.reshape(product, Shape::new([nb, nm, nn].concat()))?;
        Ok(Term {
            node,
            labels: [batch, only_a, only_b].concat(),
        })
    }

    /// A term's axes transposed into the order of the label groups.
    fn arrange(&mut self, t: &Term, groups: &[&Vec<Label>]) -> Result<NodeId, OpError> {
        let perm: Vec<i64> = groups
            .iter()
            .flat_map(|g| g.iter())
            .map(|l| t.labels.iter().position(|m| m == l).unwrap_or(0) as i64)
            .collect();
        self.transpose(t.node, &perm)
    }
}

/// The first two positions holding one label, if any.
fn repeated(labels: &[Label]) -> Option<(usize, usize)> {
    (0..labels.len()).find_map(|p| {
        (p + 1..labels.len())
            .find(|&q| labels[q] == labels[p])
            .map(|q| (p, q))
    })
}

/// Parses `"ij,jk->ik"` for operands of `ranks`.
fn parse(subscripts: &str, ranks: &[usize]) -> Result<Spec, OpError> {
    let text: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match text.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (text.as_str(), None),
    };
    let parts: Vec<&str> = lhs.split(',').collect();
    if parts.len() != ranks.len() {
        return Err(OpError::dim(format!(
            "einsum: \"{subscripts}\" names {} operands, but {} tensors are given",
            parts.len(),
            ranks.len()
        )));
    }
    let mut inputs = Vec::new();
    let mut widest = 0;
    for (i, (part, &rank)) in parts.iter().zip(ranks).enumerate() {
        let letters = part.replace("...", "").chars().count();
        let has_dots = part.contains("...");
        if letters > rank || (!has_dots && letters != rank) {
            return Err(OpError::dim(format!(
                "einsum: operand {} has rank {rank}, but \"{part}\" names {letters} axes",
                i + 1
            ))
            .with_note("write `...` for axes the subscript does not name"));
        }
        let spread = rank - letters;
        widest = widest.max(spread);
        inputs.push(labels_of(part, spread)?);
    }
    let output = match rhs {
        Some(r) => labels_of(r, widest)?,
        None => implicit_output(&inputs, widest),
    };
    for (i, l) in output.iter().enumerate() {
        let name = match l {
            Label::Letter(c) => format!("`{c}`"),
            Label::Ellipsis(_) => "`...`".to_string(),
        };
        if output[..i].contains(l) {
            return Err(OpError::dim(format!(
                "einsum: the output names index {name} twice"
            )));
        }
        if matches!(l, Label::Letter(_)) && !inputs.iter().flatten().any(|m| m == l) {
            return Err(OpError::dim(format!(
                "einsum: the output index {name} is in no operand"
            )));
        }
    }
    Ok(Spec { inputs, output })
}

/// One operand's (or the output's) labels; `...` stands for `spread` axes.
fn labels_of(part: &str, spread: usize) -> Result<Vec<Label>, OpError> {
    let mut labels = Vec::new();
    let mut rest = part;
    let mut dots = false;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if dots {
                return Err(OpError::dim(format!("einsum: \"{part}\" has `...` twice")));
            }
            dots = true;
            labels.extend((0..spread).rev().map(Label::Ellipsis));
            rest = after;
        } else if c.is_ascii_alphabetic() {
            labels.push(Label::Letter(c));
            rest = &rest[1..];
        } else {
            return Err(OpError::dim(format!(
                "einsum: `{c}` in \"{part}\" is not an index (letters a-z and A-Z, or `...`)"
            )));
        }
    }
    Ok(labels)
}

/// NumPy's output without `->`: the `...` axes, then the letters used
/// exactly once, in alphabetical order.
fn implicit_output(inputs: &[Vec<Label>], widest: usize) -> Vec<Label> {
    let mut out: Vec<Label> = (0..widest).rev().map(Label::Ellipsis).collect();
    let all: Vec<Label> = inputs.iter().flatten().copied().collect();
    let mut once: Vec<Label> = all
        .iter()
        .filter(|l| matches!(l, Label::Letter(_)) && all.iter().filter(|m| m == l).count() == 1)
        .copied()
        .collect();
    once.sort();
    out.extend(once);
    out
}
