//! A number parameter's default (`eps: Float = 1e-5`, `eps: Float = (1e-5
//! as Pos)`): typed like any expression, before any parameter is bound,
//! since Python evaluates it where the `def` is (it sees dims and literals,
//! not the other parameters). An `as` claim or `to` clamp on a literal
//! there is decided now: E0606 when the literal is outside the domain, and
//! nothing to check or clamp at run time when it is inside
//! (`docs/shapescript/ranges.md`). Part of `body`.

use diag::Diagnostic;
use syntax::ast;

use super::{show_ty, FnChecker};
use crate::codes;
use crate::typed::ExprInfo;
use crate::types::{ScalarKind, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// Types the default of each `Float`, `Int` and `Bool` parameter of `f`
    /// (its `as` claims are then checked when it is evaluated,
    /// `docs/shapescript/ranges.md`); E0408 for one of another kind.
    pub(super) fn check_defaults(&mut self, f: &ast::Fn) {
        let signature = self.signature;
        for (param, sig) in f.params.iter().zip(&signature.params) {
            let Some(default) = &param.default else {
                continue;
            };
            let TyKind::Scalar(want) = sig.ty.kind else {
                continue;
            };
            // `none` stands for the argument left out (`docs/shapescript/functions.md`).
            if matches!(default.kind, ast::ExprKind::None) {
                continue;
            }
            let first = self.body.exprs.len();
            let reported = self.diagnostics.len();
            let got = self.expr(default);
            self.explain_parameter_names(f, reported);
            self.decide_literal_claims(default, first);
            let fits = match got.kind {
                TyKind::Error => true,
                // Python reads an `int` where a `float` goes.
                TyKind::Scalar(g) => g == want || (g, want) == (ScalarKind::Int, ScalarKind::Float),
                _ => false,
            };
            if !fits {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0408,
                        format!("the default of `{}` has the wrong kind", param.name.name),
                    )
                    .with_primary(
                        default.span,
                        format!("expected `{}`, found `{}`", show_ty(&sig.ty), show_ty(&got)),
                    )
                    .with_help(
                        "a number parameter's default is a number, as in `eps: Float = 1e-5`",
                    ),
                );
            }
        }
    }

    /// A name the default could not find (E0301, reported from
    /// `reported` on) that is a parameter of `f`: says why it is not seen.
    fn explain_parameter_names(&mut self, f: &ast::Fn, reported: usize) {
        let text = self.ctx.env.map.text(self.file);
        for d in &mut self.diagnostics[reported..] {
            let Some(span) = d.primary.as_ref().map(|l| l.span) else {
                continue;
            };
            let written = text.get(span.start as usize..span.end as usize);
            let is_param = f.params.iter().any(|p| Some(&*p.name.name) == written)
                || (f.self_param.is_some() && written == Some("self"));
            if d.code.id == codes::E0301.id && is_param {
                if let Some(label) = d.primary.as_mut() {
                    label.message = "a parameter, which its defaults don't see".to_string();
                }
                d.help = vec!["a default sees no parameter: Python evaluates it where the `def` is, before any argument is given".to_string()];
            }
        }
    }

    /// Decides each `as` claim and `to` clamp on a literal in the default
    /// `e`, whose records start at `first`: E0606 when the literal is
    /// outside the domain, else its record's check or clamp is dropped (a
    /// comparison of two constants would be all that is left to run).
    fn decide_literal_claims(&mut self, e: &ast::Expr, first: usize) {
        let mut claims = Vec::new();
        literal_claims(e, &mut claims);
        for (span, value) in claims {
            let Some(record) = self.body.exprs[first..].iter_mut().find(|r| r.span == span) else {
                continue;
            };
            let (range, verb) = match &mut record.info {
                ExprInfo::As(check) => (check.range.take(), "claims"),
                ExprInfo::To(plan) => (plan.clamp.take(), "clamps to"),
                _ => continue,
            };
            let Some(range) = range else {
                continue;
            };
            let above = if range.lo_open {
                range.lo < value
            } else {
                range.lo <= value
            };
            let below = if range.hi_open {
                value < range.hi
            } else {
                value <= range.hi
            };
            if !(above && below) {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0606,
                        format!("a default outside the domain it {verb}"),
                    )
                    .with_primary(span, format!("{value} is outside {range}"))
                    .with_help(
                        "a default is known when checking: write a number inside the domain",
                    ),
                );
            }
        }
    }
}

/// The `as` claims and `to` clamps in `e` on a literal number (`1e-5 as
/// Pos`), with the literal's value; `-1.0 as Pos` is `-(1.0 as Pos)`, a claim on `1.0`.
fn literal_claims(e: &ast::Expr, out: &mut Vec<(diag::Span, f64)>) {
    syntax::ensure_sufficient_stack(|| match &e.kind {
        ast::ExprKind::Cast { expr, .. } => match literal(expr) {
            Some(v) => out.push((e.span, v)),
            None => literal_claims(expr, out),
        },
        ast::ExprKind::Unary { operand, .. } => literal_claims(operand, out),
        ast::ExprKind::Binary { lhs, rhs, .. } => {
            literal_claims(lhs, out);
            literal_claims(rhs, out);
        }
        _ => {}
    })
}

/// The value of a number literal, possibly negated.
fn literal(e: &ast::Expr) -> Option<f64> {
    match &e.kind {
        ast::ExprKind::Float(v) => Some(*v),
        ast::ExprKind::Int(v) => Some(*v as f64),
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } => literal(operand).map(|v| -v),
        _ => None,
    }
}
