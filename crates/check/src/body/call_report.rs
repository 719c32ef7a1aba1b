//! The diagnostics of a call whose arguments don't fit: each points at the
//! argument, shows the parameter's declared type, the argument's type and
//! the sizes solved so far, with a label at the parameter in the callee's
//! signature. Part of `call`; decides nothing.

use diag::{Diagnostic, Span};
use syntax::ast::{self};

use super::expr::position_of;
use super::shape::{axis_poly, show_size, show_ty};
use super::{error_ty, FnChecker};
use crate::size::{Poly, Symbol};
use crate::solver::{Failure, Solver};
use crate::types::{Ty, TyKind};

use super::call::{CallState, Target};
use crate::codes;

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn arg_diagnostic(
        &self,
        code: diag::Code,
        message: String,
        at: Span,
        label: String,
        target: &Target,
        index: usize,
        aty: &Ty,
        solver: &Solver,
    ) -> Diagnostic {
        let param = &target.signature.params[index];
        let mut d = Diagnostic::error(code, message)
            .with_primary(at, label)
            .with_secondary(
                param.span,
                format!(
                    "parameter `{}` of `{}` is declared here",
                    param.name, target.name
                ),
            )
            .with_note(if matches!(aty.kind, TyKind::Error) {
                format!("the parameter is `{}: {}`", param.name, show_ty(&param.ty))
            } else {
                format!(
                    "the parameter is `{}: {}`, the argument is `{}`",
                    param.name,
                    show_ty(&param.ty),
                    show_ty(aty)
                )
            });
        let solved = solver.shown();
        if !solved.is_empty() {
            d = d.with_note(format!("solved so far: {}", solved.join(", ")));
        }
        d
    }

    pub(super) fn report_failure(
        &mut self,
        failure: Failure,
        call: &CallState,
        target: &Target,
        slots: &[Option<&ast::Arg>],
        arg_tys: &[Option<Ty>],
        span: Span,
    ) {
        let dims = self.ctx.env.dims;
        let tag_of = |f: &Failure| match f {
            Failure::Mismatch { tag, .. }
            | Failure::Inexact { tag, .. }
            | Failure::BelowOne { tag, .. }
            | Failure::Overflow { tag }
            | Failure::Unsolved { tag, .. } => *tag,
        };
        let (index, axis) = call.tags[tag_of(&failure)];
        let param = &target.signature.params[index];
        let arg_span = slots[index].map_or(span, |a| a.value.span);
        let aty = arg_tys[index].clone().unwrap_or_else(|| error_ty(span));
        let param_axis = |pj: usize| -> String {
            param
                .ty
                .shape()
                .and_then(|s| s.get(pj))
                .map(|a| a.to_string())
                .unwrap_or_default()
        };
        let caller_size =
            |aj: usize| -> Option<Poly> { aty.shape().and_then(|s| s.get(aj)).and_then(axis_poly) };
        let d = match &failure {
            Failure::Mismatch { expected, .. } => {
                let (message, label) = match axis {
                    Some((pj, aj)) => (
                        format!(
                            "argument `{}` of `{}` has the wrong shape",
                            param.name, target.name
                        ),
                        if param_axis(pj) == expected.to_string() {
                            format!(
                                "axis {} is {}, but the parameter's is {}",
                                aj + 1,
                                caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                                show_size(dims, expected)
                            )
                        } else {
                            format!(
                                "axis {} is {}, but `{}` is {} in this call",
                                aj + 1,
                                caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                                param_axis(pj),
                                show_size(dims, expected)
                            )
                        },
                    ),
                    None => (
                        format!(
                            "argument `{}` of `{}` doesn't fit its parameter",
                            param.name, target.name
                        ),
                        {
                            let axis_size = match (
                                slots[index].map(|a| &a.value.kind),
                                arg_tys.first().cloned().flatten(),
                            ) {
                                (Some(ast::ExprKind::Name(n)), Some(first)) => first
                                    .shape()
                                    .and_then(|s| {
                                        position_of(s, &n.name).and_then(|p| axis_poly(&s[p]))
                                    })
                                    .map(|p| {
                                        format!(
                                            "`{}` is an axis of size {}, ",
                                            n.name,
                                            show_size(dims, &p)
                                        )
                                    }),
                                _ => None,
                            };
                            format!(
                                "{}but an axis of size {} is needed here",
                                axis_size.unwrap_or_default(),
                                show_size(dims, expected)
                            )
                        },
                    ),
                };
                let mut d = self.arg_diagnostic(
                    codes::E0401,
                    message,
                    arg_span,
                    label,
                    target,
                    index,
                    &aty,
                    &call.solver,
                );
                if let (None, TyKind::Axis(n) | TyKind::Axes(n)) = (axis, &param.ty.kind) {
                    if matches!(n.poly.as_symbol(), Some(Symbol::Dim { .. })) {
                        d = d.with_help(format!(
                            "`{}: {}` names a dim, so it takes only an axis of size {}",
                            param.name,
                            param.ty,
                            show_size(dims, &n.poly)
                        ));
                    }
                }
                d
            }
            Failure::Inexact {
                var, size, divisor, ..
            } => {
                let name = &call.solver.names[*var as usize];
                let label = match axis {
                    Some((pj, aj)) => format!(
                        "axis {} is {}, and `{}` needs a multiple of {}",
                        aj + 1,
                        caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                        param_axis(pj),
                        show_size(dims, divisor)
                    ),
                    None => format!(
                        "{} is not a multiple of {}",
                        show_size(dims, size),
                        show_size(dims, divisor)
                    ),
                };
                self.arg_diagnostic(
                    codes::E0402,
                    format!(
                        "`{name}` is not a whole number in this call of `{}`",
                        target.name
                    ),
                    arg_span,
                    label,
                    target,
                    index,
                    &aty,
                    &call.solver,
                )
                .with_help(format!(
                    "give the argument a size that {} divides",
                    show_size(dims, divisor)
                ))
            }
            Failure::BelowOne { var, value, .. } => {
                let name = &call.solver.names[*var as usize];
                self.arg_diagnostic(
                    codes::E0401,
                    format!(
                        "`{name}` would be {value} in this call of `{}`",
                        target.name
                    ),
                    arg_span,
                    format!("this gives `{name}` = {value}, but an axis has at least 1 element"),
                    target,
                    index,
                    &aty,
                    &call.solver,
                )
            }
            Failure::Overflow { .. } => {
                Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
                    .with_primary(arg_span, "this size overflows")
            }
            Failure::Unsolved { vars, .. } => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| format!("`{}`", call.solver.names[*v as usize]))
                    .collect();
                self.arg_diagnostic(codes::E0401, format!("can't work out {} from the arguments of `{}`", names.join(" and "), target.name), arg_span, "several unknown sizes in one axis".to_string(), target, index, &aty, &call.solver)
                    .with_help("give the other sizes elsewhere in the signature, or write the axis with fewer unknowns")
            }
        };
        self.diagnostics.push(d);
    }
}
