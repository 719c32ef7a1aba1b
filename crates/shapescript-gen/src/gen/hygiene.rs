//! The generator's own scoping rule, applied once a function is whole: a
//! value (parameter, `let`, loop variable) hides a size of its name read
//! as a value (`n` in `x * n`, `zeros([n])`, `arange(n)`) and a function
//! or built-in of its name, for the whole function. A value made after
//! such a read or call was generated is renamed, so every program means
//! what the generator built; values named like sizes nobody reads, or like
//! functions nobody calls, keep their clashing names.

use std::collections::BTreeSet;

use crate::ast::{Expr, Op, Param, Stmt};

/// The sizes a function reads as values and the callables it calls.
pub fn reads(stmts: &[Stmt], tail: &Expr) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in stmts {
        stmt_reads(s, &mut out);
    }
    expr_reads(tail, &mut out);
    out
}

fn stmt_reads(s: &Stmt, out: &mut BTreeSet<String>) {
    match s {
        Stmt::Let { value, .. }
        | Stmt::LetTuple { value, .. }
        | Stmt::Assign { value, .. }
        | Stmt::Return(value) => expr_reads(value, out),
        Stmt::If { cond, then, els } => {
            expr_reads(cond, out);
            then.iter()
                .chain(els.iter().flatten())
                .for_each(|s| stmt_reads(s, out));
        }
        Stmt::For {
            iter,
            body,
            over_stack,
            ..
        } => {
            if !over_stack {
                out.insert("range".into());
            }
            expr_reads(iter, out);
            body.iter().for_each(|s| stmt_reads(s, out));
        }
    }
}

fn expr_reads(e: &Expr, out: &mut BTreeSet<String>) {
    let name: Option<&str> = match &e.op {
        Op::SizeVal(s) | Op::Arange(s) | Op::OneHot(s) => {
            out.extend(s.symbols());
            None
        }
        Op::Fill { axes, value, .. } => {
            axes.iter().for_each(|a| out.extend(a.size.symbols()));
            Some(match value {
                v if *v == 0.0 => "zeros",
                v if *v == 1.0 => "ones",
                _ => "full",
            })
        }
        Op::Pattern { f, kw, plan, .. } => {
            if !kw.is_empty() {
                plan.expand.iter().for_each(|s| out.extend(s.symbols()));
            }
            Some(f)
        }
        Op::Math(f) | Op::Extreme(f, _) => Some(f),
        // `var0` is `var(.., correction=0)`.
        Op::Reduce { f, .. } => Some(f.trim_end_matches('0')),
        Op::AxisWise { f, .. } => Some(f),
        Op::Topk { .. } => Some("topk"),
        Op::Where(_) => Some("where"),
        Op::Abs => Some("abs"),
        Op::Sign => Some("sign"),
        Op::Clamp { .. } => Some("clamp"),
        Op::Concat { .. } => Some("concat"),
        Op::Stack => Some("stack"),
        Op::Take { .. } => Some("take"),
        Op::Tril => Some("tril"),
        Op::Triu => Some("triu"),
        Op::Einsum { .. } => Some("einsum"),
        Op::Call { name, .. } => {
            out.insert(name.clone());
            None
        }
        _ => None,
    };
    if let Some(n) = name {
        out.insert(n.to_string());
    }
    e.args.iter().for_each(|a| expr_reads(a, out));
}

/// Every value name the function binds.
pub fn bound(params: &[Param], stmts: &[Stmt]) -> BTreeSet<String> {
    fn walk(stmts: &[Stmt], out: &mut BTreeSet<String>) {
        for s in stmts {
            match s {
                Stmt::Let { name, .. } => {
                    out.insert(name.clone());
                }
                Stmt::LetTuple { names, .. } => out.extend(names.iter().cloned()),
                Stmt::If { then, els, .. } => {
                    walk(then, out);
                    walk(els.as_deref().unwrap_or(&[]), out);
                }
                Stmt::For { var, body, .. } => {
                    out.insert(var.clone());
                    walk(body, out);
                }
                _ => {}
            }
        }
    }
    let mut out: BTreeSet<String> = params.iter().map(|p| p.name.clone()).collect();
    walk(stmts, &mut out);
    out
}

/// Renames the value `old` to `new` everywhere in a function.
pub fn rename(params: &mut [Param], stmts: &mut [Stmt], tail: &mut Expr, old: &str, new: &str) {
    for p in params.iter_mut().filter(|p| p.name == old) {
        p.name = new.to_string();
    }
    let fix = |n: &mut String| {
        if n == old {
            *n = new.to_string();
        }
    };
    fn walk(stmts: &mut [Stmt], fix: &dyn Fn(&mut String), e: &dyn Fn(&mut Expr)) {
        for s in stmts {
            match s {
                Stmt::Let { name, value, .. } | Stmt::Assign { name, value } => {
                    fix(name);
                    e(value);
                }
                Stmt::LetTuple { names, value } => {
                    names.iter_mut().for_each(fix);
                    e(value);
                }
                Stmt::Return(value) => e(value),
                Stmt::If { cond, then, els } => {
                    e(cond);
                    walk(then, fix, e);
                    if let Some(els) = els {
                        walk(els, fix, e);
                    }
                }
                Stmt::For {
                    var, iter, body, ..
                } => {
                    fix(var);
                    e(iter);
                    walk(body, fix, e);
                }
            }
        }
    }
    let in_expr = |e: &mut Expr| rename_expr(e, old, new);
    walk(stmts, &fix, &in_expr);
    rename_expr(tail, old, new);
}

fn rename_expr(e: &mut Expr, old: &str, new: &str) {
    if let Op::Var(n) = &mut e.op {
        if n == old {
            *n = new.to_string();
        }
    }
    e.args.iter_mut().for_each(|a| rename_expr(a, old, new));
}
