//! In-place accumulation: `out = index_add(out, ids, rows)` (or
//! `scatter_add`) on a tensor the body made itself, that nothing else reads
//! until the accumulation is over, is emitted as `out.index_add_(0, ids,
//! rows)`. ShapeScript values never change, so the plain emission copies
//! `out` on every call (a mixture of experts' dispatch loop copies the whole
//! output once per expert); when no other expression can see the old value
//! the in-place form computes the same thing, as hand-written PyTorch does
//! (`docs/shapescript/python.md`, "What the emitter fuses").

use check::hir::{BoundArg, Builtin, Callee, ExprInfo};
use diag::Span;
use syntax::ast::{self, Expr, ExprKind, IndexArg, StmtKind};
use syntax::Name;

use crate::attention::stmt_exprs;
use crate::expr::Val;
use crate::scope::Scope;

/// The runtime functions with an in-place method of the same arguments
/// (`input.index_add_(0, index, source)`), by their Python names.
const IN_PLACE: [(&str, &str); 2] = [
    ("shapescript_runtime.index_add", "index_add_"),
    ("shapescript_runtime.scatter_add", "scatter_add_"),
];

impl<'g, 'a> Scope<'g, 'a> {
    /// Finds, in a function body, the assignments to emit in place.
    pub fn plan_accumulations(&mut self, body: &ast::Block) {
        if self.body.is_none() {
            return;
        }
        for (at, stmt) in body.stmts.iter().enumerate() {
            let StmtKind::Let { name, value, .. } = &stmt.kind else {
                continue;
            };
            if self.is_fresh_tensor(value) {
                if let Some(assigns) = self.accumulations(name.name, &body.stmts[at + 1..]) {
                    self.in_place.extend(assigns);
                }
            }
        }
    }

    /// `zeros`, `ones` or `full`: a new tensor no other name holds.
    fn is_fresh_tensor(&self, value: &Expr) -> bool {
        matches!(
            self.typed(value.span).map(|t| &t.info),
            Some(ExprInfo::Call(info))
                if matches!(info.callee, Callee::Builtin(Builtin::Zeros | Builtin::Ones | Builtin::Full))
        )
    }

    /// The spans of the assignments to `name` in `after` (the statements
    /// after its `let`) when every one is an accumulation into `name` and
    /// `name` is read nowhere else before the last of them is over; `None`
    /// otherwise (or when there is no accumulation).
    fn accumulations(&self, name: Name, after: &[ast::Stmt]) -> Option<Vec<Span>> {
        let last = after.iter().rposition(|s| assigns_to(s, name))?;
        let mut found = Vec::new();
        for stmt in &after[..=last] {
            self.collect_accumulations(stmt, name, &mut found)?;
        }
        // Past the last accumulation, reads see the final value; only a
        // second declaration of the name would make the plan unsafe.
        after[last + 1..]
            .iter()
            .all(|s| !declares(s, name))
            .then_some(found)
    }

    /// Adds `stmt`'s accumulations into `name` to `found`; `None` when it
    /// assigns `name` otherwise, declares it again, or reads it elsewhere.
    fn collect_accumulations(
        &self,
        stmt: &ast::Stmt,
        name: Name,
        found: &mut Vec<Span>,
    ) -> Option<()> {
        match &stmt.kind {
            StmtKind::Assign {
                name: target,
                value,
            } if target.name == name => {
                let input = self.accumulation(value)?.input;
                (reads(value, name, Some(input.span)) == 0).then_some(())?;
                found.push(stmt.span);
            }
            StmtKind::Let { name: n, .. } | StmtKind::For { var: n, .. } if n.name == name => {
                return None
            }
            StmtKind::LetTuple { names, .. } if names.iter().any(|n| n.name == name) => {
                return None
            }
            _ => {}
        }
        // An accumulation's own call was checked above; any other
        // statement may not read the name at all.
        let accumulates = matches!(&stmt.kind, StmtKind::Assign { name: t, .. } if t.name == name);
        if !accumulates
            && stmt_exprs(stmt)
                .into_iter()
                .any(|e| reads(e, name, None) > 0)
        {
            return None;
        }
        for block in nested_blocks(stmt) {
            for inner in &block.stmts {
                self.collect_accumulations(inner, name, found)?;
            }
        }
        Some(())
    }

    /// `value` as an accumulation: a call of an accumulating runtime
    /// function whose arguments are all written, the first a plain name.
    fn accumulation<'e>(&self, value: &'e Expr) -> Option<Accumulation<'e>> {
        let Some(ExprInfo::Call(info)) = self.typed(value.span).map(|t| &t.info) else {
            return None;
        };
        let Callee::Extern { python, .. } = &info.callee else {
            return None;
        };
        let method = IN_PLACE.iter().find(|(f, _)| python.as_str() == *f)?.1;
        let ExprKind::Call { args, .. } = &value.kind else {
            return None;
        };
        let mut written = Vec::with_capacity(info.args.len());
        for bound in &info.args {
            let BoundArg::Expr { span, .. } = bound else {
                return None;
            };
            written.push(&args.iter().find(|a| a.value.span == *span)?.value);
        }
        let (&input, rest) = written.split_first()?;
        matches!(&input.kind, ExprKind::Name(_)).then(|| Accumulation {
            method,
            input,
            rest: rest.to_vec(),
        })
    }

    /// `out.index_add_(0, ids, rows)` for a planned accumulation `out =
    /// index_add(out, ids, rows)`.
    pub fn accumulate_in_place(&mut self, target: &str, value: &Expr) -> Option<String> {
        let found = self.accumulation(value)?;
        let mut list = vec![(None, Val::atom("0".into()))];
        for arg in found.rest {
            list.push((None, self.expr(arg)));
        }
        Some(self.call_code(&format!("{target}.{}", found.method), list))
    }
}

/// A call `f(input, rest...)` that has an in-place method `input.method(0, rest...)`.
struct Accumulation<'e> {
    method: &'static str,
    input: &'e Expr,
    rest: Vec<&'e Expr>,
}

/// Whether `stmt`, or one nested in it, assigns to `name`.
fn assigns_to(stmt: &ast::Stmt, name: Name) -> bool {
    match &stmt.kind {
        StmtKind::Assign { name: target, .. } => target.name == name,
        _ => nested_blocks(stmt)
            .into_iter()
            .any(|b| b.stmts.iter().any(|s| assigns_to(s, name))),
    }
}

/// Whether `stmt`, or one nested in it, declares `name` again.
fn declares(stmt: &ast::Stmt, name: Name) -> bool {
    let here = match &stmt.kind {
        StmtKind::Let { name: n, .. } | StmtKind::For { var: n, .. } => n.name == name,
        StmtKind::LetTuple { names, .. } => names.iter().any(|n| n.name == name),
        _ => false,
    };
    here || nested_blocks(stmt)
        .into_iter()
        .any(|b| b.stmts.iter().any(|s| declares(s, name)))
}

/// The blocks nested in a statement.
fn nested_blocks(stmt: &ast::Stmt) -> Vec<&ast::Block> {
    match &stmt.kind {
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => std::iter::once(then_block).chain(else_block).collect(),
        StmtKind::For { body, .. } => vec![body],
        _ => Vec::new(),
    }
}

/// How many times `expr` reads the value `name`, not counting the
/// expression at `skip`.
fn reads(expr: &Expr, name: Name, skip: Option<Span>) -> usize {
    if Some(expr.span) == skip {
        return 0;
    }
    let count = |e: &Expr| syntax::ensure_sufficient_stack(|| reads(e, name, skip));
    match &expr.kind {
        ExprKind::Name(id) => usize::from(id.name == name),
        ExprKind::AxisGroup(ids) => ids.iter().filter(|id| id.name == name).count(),
        ExprKind::Field { base, .. } => count(base),
        ExprKind::Call { callee, args } => {
            count(callee) + args.iter().map(|a| count(&a.value)).sum::<usize>()
        }
        ExprKind::Index { base, indices } => {
            count(base)
                + indices
                    .iter()
                    .map(|i| match i {
                        IndexArg::Expr(e) => count(e),
                        IndexArg::Slice {
                            start, end, step, ..
                        } => [start, end, step]
                            .into_iter()
                            .flatten()
                            .map(|e| count(e))
                            .sum(),
                        IndexArg::Ellipsis(_) => 0,
                        IndexArg::List { items, .. } => items.iter().map(count).sum(),
                    })
                    .sum::<usize>()
        }
        ExprKind::Unary { operand, .. } => count(operand),
        ExprKind::Binary { lhs, rhs, .. } => count(lhs) + count(rhs),
        ExprKind::Cast { expr, .. } => count(expr),
        ExprKind::Tuple(items) => items.iter().map(count).sum(),
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Pattern(_)
        | ExprKind::Shape(_)
        | ExprKind::Error => 0,
    }
}
