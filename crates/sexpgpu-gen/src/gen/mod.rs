//! The generator: a random program from a seed. Expressions are generated
//! goal first: `Gen::expr` is asked for a tensor of a given shape and picks
//! an operation that can make it (`elementwise`, `structure`: reductions,
//! products, layouts, scans; `host`: helpers with loops and branches,
//! host `if`, comprehensions), asking in turn for its operands' shapes.
//! Every expression carries a bound on its magnitude, so that the
//! operations whose domain or conditioning matters (`log`, `sqrt`, `/`,
//! `exp`, `prod`) get operands that keep them smooth, and values stay in
//! a range where f32 and finite differences are meaningful.

mod elementwise;
mod host;
mod library;
mod structure;

use crate::ast::{text, Layout, Node, Part, Program, Shape};
use crate::rng::Rng;

/// A generated expression and a bound on its magnitude (inputs lie in
/// `[-1, 1]`).
pub(crate) struct G {
    pub node: Node,
    pub bound: f64,
}

impl G {
    fn new(node: Node, bound: f64) -> G {
        G { node, bound }
    }
}

/// Most data inputs a program takes (then leaves reuse what exists).
const MAX_DATA: usize = 4;

/// The most elements a tensor of a program may have.
pub(crate) const MAX_ELEMENTS: usize = 400;

/// The generator's state while it writes one program.
pub(crate) struct Gen {
    pub rng: Rng,
    params: Vec<(String, Shape)>,
    data: Vec<(String, Shape)>,
    /// Tensor variables the loss's body has bound so far, with bounds.
    bound_vars: Vec<(String, Shape, f64)>,
    pub helpers: Vec<String>,
    /// Operations left to generate.
    budget: usize,
    /// Names made for local bindings (`u0`, `u1`, ...).
    locals: usize,
    /// How many `value-and-grad`s the expression being generated is
    /// inside (fused attention has no second derivative).
    pub in_grad: usize,
    /// The program computes in bf16 (its inputs are bf16).
    pub bf16: bool,
}

/// The program of `seed`.
pub fn program(seed: u64) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        params: Vec::new(),
        data: Vec::new(),
        bound_vars: Vec::new(),
        helpers: Vec::new(),
        budget: 0,
        locals: 0,
        in_grad: 0,
        bf16: false,
    };
    g.bf16 = g.rng.coin(0.15);
    let n_params = g.rng.int(1, 3);
    for i in 0..n_params {
        let s = g.shape(3);
        g.params.push((format!("w{i}"), s));
    }
    let layout = if n_params == 1 && g.rng.coin(0.4) {
        Layout::Single
    } else {
        *g.rng.choose(&[
            Layout::MapKeys,
            Layout::MapGet,
            Layout::VectorDestructure,
            Layout::VectorNth,
        ])
    };
    let closure = g.rng.coin(0.3);
    let step = g.rng.coin(0.3);
    let mut bindings = Vec::new();
    for i in 0..g.rng.int(0, 3) {
        let s = g.shape(3);
        g.budget = g.rng.int(3, 14);
        let e = g.expr(&s, 3);
        let e = g.tame(e);
        let name = format!("v{i}");
        g.bound_vars.push((name.clone(), s, e.bound));
        bindings.push((name, e.node));
    }
    g.budget = g.rng.int(8, 40);
    let loss = g.expr(&[], 5);
    let mut loss = g.tame(loss).node;
    // The loss reads every parameter (a gradient of zeros is right, but
    // checks little).
    for (name, s) in g.params.clone() {
        let used = bindings.iter().any(|(_, n)| mentions(&n.text(), &name))
            || mentions(&loss.text(), &name);
        if !used {
            let term = Node::call(
                "sum",
                &[],
                vec![Node::call("tanh", &s, vec![Node::var(&name, &s)], "")],
                "",
            );
            loss = Node::call("+", &[], vec![loss, term], "");
        }
    }
    Program {
        params: g.params,
        data: g.data,
        layout,
        closure,
        step,
        bf16: g.bf16,
        helpers: g.helpers,
        bindings,
        loss,
    }
}

/// Whether `code` names the variable `name` (not a longer name).
fn mentions(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(i, _)| {
        let before = code[..i].chars().last();
        let after = code[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "-_/?!*".contains(c));
        !word(before) && !word(after)
    })
}

impl Gen {
    /// A shape of rank `0..=max_rank`, each dim from `dim`, at most
    /// `MAX_ELEMENTS` elements.
    pub(crate) fn shape(&mut self, max_rank: usize) -> Shape {
        loop {
            let rank = self.rng.int(0, max_rank);
            let s: Shape = (0..rank).map(|_| self.dim()).collect();
            if s.iter().product::<usize>() <= MAX_ELEMENTS {
                return s;
            }
        }
    }

    /// A dimension: `1..=5`, or now and then one long enough for the
    /// backends' other paths (vector lanes, blocked products, bands of
    /// rows), odd lengths among them.
    pub(crate) fn dim(&mut self) -> usize {
        if self.rng.coin(0.04) {
            *self.rng.choose(&[8, 16, 17, 33, 64])
        } else {
            self.rng.int(1, 5)
        }
    }

    /// An expression of shape `s`, nesting at most `depth` operations.
    pub(crate) fn expr(&mut self, s: &[usize], depth: usize) -> G {
        if depth == 0 || self.budget == 0 {
            return self.leaf(s);
        }
        self.budget -= 1;
        let d = depth - 1;
        // Weights: elementwise, structure, host code, a leaf; an operation
        // that cannot make `s` (a transpose of a vector) tries again.
        for _ in 0..4 {
            let made = match self.rng.weighted(&[40, 40, 14, 6]) {
                0 => self.elementwise(s, d),
                1 => self.structure(s, d),
                2 => self.host(s, d),
                _ => return self.leaf(s),
            };
            if let Some(g) = made {
                return g;
            }
        }
        self.leaf(s)
    }

    /// An expression without operations: a variable of shape `s` (a
    /// parameter, a data input, an earlier binding), a new data input, or
    /// the mean of a variable spread to `s`.
    pub(crate) fn leaf(&mut self, s: &[usize]) -> G {
        let params: Vec<String> = self
            .params
            .iter()
            .filter(|(_, shape)| shape == s)
            .map(|(n, _)| n.clone())
            .collect();
        if !params.is_empty() && self.rng.coin(0.5) {
            let name = self.rng.choose(&params).clone();
            return G::new(Node::var(&name, s), 1.0);
        }
        if params.is_empty() && self.rng.coin(0.4) {
            return self.param_as(s);
        }
        let mut fits: Vec<(String, f64)> = Vec::new();
        for (n, shape) in self.params.iter().chain(&self.data) {
            if shape == s {
                fits.push((n.clone(), 1.0));
            }
        }
        for (n, shape, b) in &self.bound_vars {
            if shape == s {
                fits.push((n.clone(), *b));
            }
        }
        if !fits.is_empty() && (self.data.len() >= MAX_DATA || self.rng.coin(0.7)) {
            let (n, b) = self.rng.choose(&fits).clone();
            return G::new(Node::var(&n, s), b);
        }
        if self.data.len() < MAX_DATA {
            let name = format!("x{}", self.data.len());
            self.data.push((name.clone(), s.to_vec()));
            return G::new(Node::var(&name, s), 1.0);
        }
        let (n, shape) = self.rng.choose(&self.params).clone();
        let mean = Node::call("nn/mean", &[], vec![Node::var(&n, &shape)], "");
        G::new(spread(mean, s), 1.0)
    }

    /// A parameter made into shape `s`: reshaped when it has as many
    /// elements, else a reduction of it spread out.
    fn param_as(&mut self, s: &[usize]) -> G {
        let (n, shape) = self.rng.choose(&self.params).clone();
        let w = Node::var(&n, &shape);
        if shape.iter().product::<usize>() == s.iter().product::<usize>() {
            let to = crate::ast::shape_text(s);
            return G::new(Node::call("reshape", s, vec![w], &to), 1.0);
        }
        let f = *self.rng.choose(&["nn/mean", "max", "nn/logsumexp"]);
        let reduced = if f == "nn/logsumexp" {
            let flat = Node::call(
                "reshape",
                &[shape.iter().product()],
                vec![w],
                &format!("[{}]", shape.iter().product::<usize>()),
            );
            Node::call(f, &[], vec![flat], "")
        } else {
            Node::call(f, &[], vec![w], "")
        };
        G::new(
            spread(reduced, s),
            1.0 + (shape.iter().product::<usize>() as f64).ln(),
        )
    }

    /// `g` scaled or squashed into a modest range when its bound is large.
    pub(crate) fn tame(&mut self, g: G) -> G {
        if g.bound <= 6.0 {
            return g;
        }
        let s = g.node.shape.clone();
        if self.rng.coin(0.5) {
            G::new(Node::call("tanh", &s, vec![g.node], ""), 1.0)
        } else {
            let k = 2.0 / g.bound;
            G::new(Node::call("*", &s, vec![g.node], &format!("{k:e}")), 2.0)
        }
    }

    /// A fresh name for a local binding.
    pub(crate) fn local(&mut self) -> String {
        self.locals += 1;
        format!("u{}", self.locals - 1)
    }

    /// Generates with `name` of shape `s` as one more parameter (the
    /// variable of an inner function that is differentiated).
    pub(crate) fn with_param<T>(
        &mut self,
        name: &str,
        s: &[usize],
        f: impl FnOnce(&mut Gen) -> T,
    ) -> T {
        self.params.push((name.to_string(), s.to_vec()));
        self.in_grad += 1;
        let out = f(self);
        self.in_grad -= 1;
        self.params.pop();
        out
    }

    /// A variable in scope, for host tests of its shape.
    pub(crate) fn some_var(&mut self) -> (String, Shape) {
        let mut all: Vec<(String, Shape)> = self.params.clone();
        all.extend(self.data.iter().cloned());
        self.rng.choose(&all).clone()
    }
}

/// A scalar spread to `s` (`broadcast-to`; the scalar itself for `[]`).
pub(crate) fn spread(scalar: Node, s: &[usize]) -> Node {
    if s.is_empty() {
        return scalar;
    }
    let shape = crate::ast::shape_text(s);
    Node::call("broadcast-to", s, vec![scalar], &shape)
}

/// `(head a)` of the same shape.
pub(crate) fn unary(head: &str, a: Node) -> Node {
    let s = a.shape.clone();
    Node::call(head, &s, vec![a], "")
}

/// A node of host text around operands: `pieces` alternate text and
/// operands, starting and ending with text.
pub(crate) fn form(s: &[usize], pieces: Vec<Part>) -> Node {
    Node::new(s, pieces)
}

/// `head a mid b tail`: two operands in host text (an empty `mid` is
/// left out).
pub(crate) fn around(s: &[usize], head: &str, a: Node, mid: &str, b: Node, tail: &str) -> Node {
    let mut parts = vec![t(head), Part::T(a)];
    if !mid.is_empty() {
        parts.push(t(mid));
    }
    parts.extend([Part::T(b), t(tail)]);
    form(s, parts)
}

/// `(op a shape)`: `a` made into shape `s` by `reshape` or `broadcast-to`.
pub(crate) fn to_shape(op: &str, s: &[usize], a: G) -> G {
    let shape = crate::ast::shape_text(s);
    G::new(Node::call(op, s, vec![a.node], &shape), a.bound)
}

/// Host text as a part (re-exported for the submodules).
pub(crate) fn t(s: &str) -> Part {
    text(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_as_words() {
        assert!(mentions("(+ w0 x)", "w0"));
        assert!(!mentions("(+ w01 x)", "w0"));
        assert!(!mentions("(+ aw0 x)", "w0"));
    }

    #[test]
    fn a_seed_gives_one_program() {
        for seed in 0..50 {
            let a = program(seed);
            assert_eq!(a, program(seed));
            assert!(a.loss.shape.is_empty());
        }
        assert_ne!(program(1).text(), program(2).text());
    }
}
