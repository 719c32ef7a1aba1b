//! Shrinks a failing program while it keeps failing the same way: unused
//! helpers and bindings go, then, greedily, any expression is replaced by
//! one of its own operands of the same shape, or by a constant, until no
//! replacement keeps the failure. Only for programs that already failed,
//! so its cost (a check per attempt) does not matter.

use crate::ast::{shape_text, Node, Program};
use crate::oracle::{check, Finding};

/// At most this many checks while shrinking.
const MAX_ATTEMPTS: usize = 400;

/// The smallest program found that fails with a finding of `failure`'s
/// kind (checked with `seed`), and that finding.
pub fn minimise(program: &Program, failure: &Finding, seed: u64) -> (Program, Finding) {
    let mut best = program.clone();
    let mut found = failure.clone();
    let mut attempts = 0;
    let still_fails = |p: &Program, attempts: &mut usize| -> Option<Finding> {
        *attempts += 1;
        match check(&p.text(), p.params.len(), seed) {
            Err(f) if f.same_kind(failure) => Some(f),
            _ => None,
        }
    };
    let mut changed = true;
    while changed && attempts < MAX_ATTEMPTS {
        changed = false;
        for candidate in candidates(&best) {
            if attempts >= MAX_ATTEMPTS {
                break;
            }
            if candidate.size() >= best.size() && candidate.helpers.len() >= best.helpers.len() {
                continue;
            }
            if let Some(f) = still_fails(&candidate, &mut attempts) {
                best = candidate;
                found = f;
                changed = true;
                break;
            }
        }
    }
    (best, found)
}

/// Every program one step smaller than `p`.
fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    for i in 0..p.helpers.len() {
        let mut q = p.clone();
        q.helpers.remove(i);
        out.push(q);
    }
    for i in (0..p.bindings.len()).rev() {
        let mut q = p.clone();
        q.bindings.remove(i);
        out.push(q);
    }
    // Replacements inside the loss, then inside each binding.
    for path in paths(&p.loss) {
        for r in replacements(at(&p.loss, &path), p.bf16) {
            let mut q = p.clone();
            *at_mut(&mut q.loss, &path) = r;
            out.push(q);
        }
    }
    for (b, (_, node)) in p.bindings.iter().enumerate() {
        for path in paths(node) {
            for r in replacements(at(node, &path), p.bf16) {
                let mut q = p.clone();
                *at_mut(&mut q.bindings[b].1, &path) = r;
                out.push(q);
            }
        }
    }
    out
}

/// What a node may become: each operand of its shape, or a constant.
fn replacements(n: &Node, bf16: bool) -> Vec<Node> {
    if n.mask {
        return Vec::new();
    }
    let mut out: Vec<Node> = n
        .operands()
        .filter(|o| o.shape == n.shape && !o.mask)
        .cloned()
        .collect();
    if n.size() > 1 {
        let dtype = if bf16 { " :dtype :bf16" } else { "" };
        let c = format!("(full {} 0.5{dtype})", shape_text(&n.shape));
        out.push(Node::var(&c, &n.shape));
    }
    out
}

/// The paths (operand indices from the root) of every node, root first.
fn paths(n: &Node) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for (i, o) in n.operands().enumerate() {
        for mut p in paths(o) {
            p.insert(0, i);
            out.push(p);
        }
    }
    out
}

fn at<'n>(n: &'n Node, path: &[usize]) -> &'n Node {
    match path.split_first() {
        None => n,
        Some((&i, rest)) => at(n.operands().nth(i).expect("a path into the node"), rest),
    }
}

fn at_mut<'n>(n: &'n mut Node, path: &[usize]) -> &'n mut Node {
    match path.split_first() {
        None => n,
        Some((&i, rest)) => at_mut(n.operands_mut().nth(i).expect("a path into the node"), rest),
    }
}
