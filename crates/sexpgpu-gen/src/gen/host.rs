//! Host code around tensor code: helper functions (a `loop`/`recur`, a
//! branch on a host flag, a fold over a vector of tensors, keyword
//! arguments, several arities, recursion), and inline `if`, `cond`,
//! `case`, `for`, `mapv`, `let` with destructuring, threading and
//! collection lookups. Every branch a host test does not take is still
//! written (and must read), but only the taken one is traced.

use super::{around, form, t, Gen, G};
use crate::ast::{Node, Part};

/// Helper definitions by kind: the text with `NAME` for the name.
const HELPERS: [(&str, &str); 6] = [
    (
        "loop",
        "(defn NAME [x n]\n  (loop [i 0 acc x]\n    (if (< i n) (recur (inc i) (+ (* 0.5 acc) (tanh acc))) acc)))",
    ),
    ("branch", "(defn NAME [a b flag]\n  (if flag (+ a b) (- a (* 0.5 b))))"),
    ("fold", "(defn NAME [xs]\n  (reduce (fn [acc x] (+ acc (* 0.5 x))) xs))"),
    (
        "keywords",
        "(defn NAME [x & {:keys [scale shift] :or {scale 1.0 shift 0.0}}]\n  (+ shift (* scale x)))",
    ),
    ("arities", "(defn NAME\n  ([x] (NAME x 0.5))\n  ([x k] (* k (sin x))))"),
    ("recursive", "(defn NAME [x n]\n  (if (zero? n) x (NAME (cos x) (dec n))))"),
];

impl Gen {
    pub(super) fn host(&mut self, s: &[usize], d: usize) -> Option<G> {
        match self.rng.weighted(&[30, 12, 8, 8, 8, 10, 8, 8, 8]) {
            0 => Some(self.helper_call(s, d)),
            1 => Some(self.host_if(s, d)),
            2 => Some(self.cond_or_case(s, d)),
            3 => Some(self.comprehension(s, d)),
            4 => Some(self.mapped(s, d)),
            5 => Some(self.local_let(s, d)),
            6 => Some(self.threaded(s, d)),
            7 => Some(self.lookup(s, d)),
            _ => self.nested_grad(s, d),
        }
    }

    /// The name of the helper of `kind`, defined on first use.
    fn helper(&mut self, kind: &str) -> String {
        let (_, template) = HELPERS
            .iter()
            .find(|(k, _)| *k == kind)
            .copied()
            .unwrap_or(HELPERS[0]);
        let marker = format!(";; {kind}\n");
        if let Some(i) = self.helpers.iter().position(|h| h.starts_with(&marker)) {
            return format!("h{i}");
        }
        let name = format!("h{}", self.helpers.len());
        self.helpers
            .push(format!("{marker}{}", template.replace("NAME", &name)));
        name
    }

    fn helper_call(&mut self, s: &[usize], d: usize) -> G {
        let kind = HELPERS[self.rng.int(0, HELPERS.len() - 1)].0;
        let name = self.helper(kind);
        let a = self.expr(s, d);
        let head = t(&format!("({name}"));
        let (parts, bound) = match kind {
            "loop" | "recursive" => {
                let n = self.rng.int(0, 3);
                let bound = if kind == "loop" {
                    a.bound * 0.5f64.powi(n as i32) + n as f64
                } else {
                    a.bound.max(1.0)
                };
                (vec![head, Part::T(a.node), t(&format!("{n})"))], bound)
            }
            "branch" => {
                let small = self.broadcastable(s);
                let b = self.expr(&small, d);
                let test = self.host_test();
                (
                    vec![
                        head,
                        Part::T(a.node),
                        Part::T(b.node),
                        t(&format!("{test})")),
                    ],
                    a.bound + b.bound,
                )
            }
            "fold" => {
                let rest: Vec<Node> = (0..self.rng.int(0, 2))
                    .map(|_| self.expr(s, d).node)
                    .collect();
                let mut all = vec![a.node];
                all.extend(rest);
                let bound = a.bound + all.len() as f64;
                (vec![head, Part::Ts(all), t(")")], bound)
            }
            "keywords" => {
                let kw =
                    *self
                        .rng
                        .choose(&["", ":scale 0.5", ":shift -1.0 :scale 2.0", ":shift 0.25"]);
                (
                    vec![head, Part::T(a.node), t(&format!("{kw})"))],
                    2.0 * a.bound + 1.0,
                )
            }
            _ => {
                let k = *self.rng.choose(&["", "2.0", "-0.75"]);
                (vec![head, Part::T(a.node), t(&format!("{k})"))], 2.0)
            }
        };
        G::new(form(s, parts), bound)
    }

    /// A test on host values: shapes of the inputs, literals, collections.
    fn host_test(&mut self) -> String {
        let (v, shape) = self.some_var();
        match self.rng.int(0, 4) {
            0 if !shape.is_empty() => {
                let axis = self.rng.int(0, shape.len() - 1);
                format!("(> (dim {v} {axis}) {})", self.rng.int(1, 4))
            }
            1 => format!("(= (count (shape {v})) {})", self.rng.int(0, 3)),
            2 => format!("(even? (numel {v}))"),
            3 => format!(
                "(contains? {{:a 1 :b 2}} {})",
                self.rng.choose(&[":a", ":c"])
            ),
            _ => format!("(< (rank {v}) {})", self.rng.int(0, 3)),
        }
    }

    fn host_if(&mut self, s: &[usize], d: usize) -> G {
        let test = self.host_test();
        let a = self.expr(s, d);
        let b = self.expr(s, d);
        let bound = a.bound.max(b.bound);
        G::new(
            around(s, &format!("(if {test}"), a.node, "", b.node, ")"),
            bound,
        )
    }

    fn cond_or_case(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let b = self.expr(s, d);
        let bound = a.bound.max(b.bound);
        let (v, _) = self.some_var();
        let node = if self.rng.coin(0.5) {
            let test = self.host_test();
            around(s, &format!("(cond {test}"), a.node, ":else", b.node, ")")
        } else {
            let r = self.rng.int(0, 3);
            around(s, &format!("(case (rank {v}) {r}"), a.node, "", b.node, ")")
        };
        G::new(node, bound)
    }

    /// `(reduce + (for [i (range n)] (* w_i x)))`: the operand traced `n`
    /// times.
    fn comprehension(&mut self, s: &[usize], d: usize) -> G {
        let n = self.rng.int(1, 3);
        let a = self.expr(s, d);
        let bound = a.bound * (n + 1) as f64 / 2.0;
        let head = format!("(reduce + (for [i (range {n})] (* (/ (float (inc i)) {n})");
        G::new(form(s, vec![t(&head), Part::T(a.node), t(")))")]), bound)
    }

    /// `(apply + (mapv (fn [z] (f z)) [a b]))`.
    fn mapped(&mut self, s: &[usize], d: usize) -> G {
        let f = *self.rng.choose(&["tanh", "sin", "sigmoid"]);
        let parts: Vec<Node> = (0..self.rng.int(1, 3))
            .map(|_| self.expr(s, d).node)
            .collect();
        let bound = parts.len() as f64;
        let head = format!("(apply + (mapv (fn [z] ({f} z))");
        G::new(form(s, vec![t(&head), Part::Ts(parts), t("))")]), bound)
    }

    /// A local binding read twice, or two destructured from a vector.
    fn local_let(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let u = self.local();
        if self.rng.coin(0.5) {
            let body = format!("(* {u} (tanh {u}))");
            let node = form(
                s,
                vec![
                    t(&format!("(let [{u}")),
                    Part::T(a.node),
                    t(&format!("] {body})")),
                ],
            );
            return G::new(node, a.bound);
        }
        let b = self.expr(s, d);
        let v = self.local();
        let bound = a.bound + 0.5 * b.bound;
        let node = form(
            s,
            vec![
                t(&format!("(let [[{u} {v}]")),
                Part::Ts(vec![a.node, b.node]),
                t(&format!("] (- {u} (* 0.5 {v})))")),
            ],
        );
        G::new(node, bound)
    }

    /// `(-> x f (g k) ...)` or `->>`.
    fn threaded(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let (arrow, steps, bound) = if self.rng.coin(0.5) {
            ("->", "tanh (* 0.5) (+ 1.0)", 1.5)
        } else {
            ("->>", "(* 2.0) sin (- 0.25)", 1.25)
        };
        G::new(
            form(
                s,
                vec![
                    t(&format!("({arrow}")),
                    Part::T(a.node),
                    t(&format!("{steps})")),
                ],
            ),
            bound,
        )
    }

    /// A gradient inside the loss: `value-and-grad` of an inner function
    /// (which may close over the parameters) at a point computed from
    /// them, its value plus half the squared norm of its gradient, so the
    /// outer gradient differentiates the inner one (a second derivative).
    fn nested_grad(&mut self, s: &[usize], d: usize) -> Option<G> {
        if self.in_grad > 0 {
            return None;
        }
        let shape = self.shape(2);
        let at = self.expr(&shape, d);
        let q = self.local();
        let body = self.with_param(&q, &shape, |g| {
            let e = g.expr(&[], d + 1);
            g.tame(e)
        });
        let (iv, ig) = (self.local(), self.local());
        let head = format!("(let [[{iv} {ig}] (value-and-grad (fn [{q}]");
        let tail = format!(")] (+ {iv} (* 0.5 (sum (* {ig} {ig})))))");
        let scalar = form(
            &[],
            vec![
                t(&head),
                Part::T(body.node),
                t(")"),
                Part::T(at.node),
                t(&tail),
            ],
        );
        let n = shape.iter().product::<usize>() as f64;
        let g = self.tame(G::new(scalar, body.bound + 10.0 * n));
        Some(G::new(super::spread(g.node, s), g.bound))
    }

    /// A lookup in a map or vector of tensors: every entry is traced, one
    /// is the value.
    fn lookup(&mut self, s: &[usize], d: usize) -> G {
        let a = self.expr(s, d);
        let b = self.expr(s, d);
        let bound = a.bound.max(b.bound);
        let node = match self.rng.int(0, 2) {
            0 => form(
                s,
                vec![
                    t("(:b {:a"),
                    Part::T(a.node),
                    t(":b"),
                    Part::T(b.node),
                    t("})"),
                ],
            ),
            1 => form(s, vec![t("(get"), Part::Ts(vec![a.node, b.node]), t("1)")]),
            _ => form(
                s,
                vec![t("(second"), Part::Ts(vec![a.node, b.node]), t(")")],
            ),
        };
        G::new(node, bound)
    }
}
