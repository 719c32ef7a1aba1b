//! The diagnostics of a call whose arguments don't fit: each points at the
//! argument, shows the parameter's declared type, the argument's type and
//! the sizes solved so far, with a label at the parameter in the callee's
//! signature. Part of `call`; decides nothing.

use diag::{Diagnostic, Span};
use syntax::ast::{self};

use super::expr::position_of;
use super::{error_ty, FnChecker};
use crate::shape::{axis_poly, show_size, show_ty};
use crate::size::{Poly, Symbol};
use crate::solver::{Failure, Solver};
use crate::types::{Ty, TyKind};

use super::call::CallState;
use super::callee::Target;
use crate::codes;
use crate::dims::DimValues;
use crate::signature::ParamSig;

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

    /// Reports `arg_diagnostic` labelled "expected `param`, found `argument`"
    /// at argument `arg` of parameter `index`: an argument of the wrong kind
    /// or rank.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report_mismatch(
        &mut self,
        code: diag::Code,
        message: String,
        call: &CallState,
        target: &Target,
        index: usize,
        arg: &ast::Arg,
        aty: &Ty,
    ) {
        let param = &target.signature.params[index];
        let label = format!(
            "expected `{}`, found `{}`",
            show_ty(&param.ty),
            show_ty(aty)
        );
        let d = self.arg_diagnostic(
            code,
            message,
            arg.value.span,
            label,
            target,
            index,
            aty,
            &call.solver,
        );
        self.diagnostics.push(d);
    }

    /// Reports why the call's sizes can't be solved, at the argument whose
    /// equation failed.
    pub(super) fn report_failure(
        &mut self,
        failure: Failure,
        call: &CallState,
        target: &Target,
        slots: &[Option<&ast::Arg>],
        arg_tys: &[Option<Ty>],
        span: Span,
    ) {
        let tag = failure.tag();
        let (index, axis) = call.tags[tag];
        let at = FailedArg {
            target,
            param: &target.signature.params[index],
            index,
            axis,
            span: slots[index].map_or(span, |a| a.value.span),
            aty: arg_tys[index].clone().unwrap_or_else(|| error_ty(span)),
        };
        let dims = self.ctx.env.dims;
        let solver = &call.solver;
        let d = match &failure {
            Failure::Mismatch { expected, .. } => {
                self.mismatch_failure(&at, expected, slots, arg_tys, solver)
            }
            Failure::Inexact {
                var, size, divisor, ..
            } => {
                let name = &solver.names[*var as usize];
                let label = match axis {
                    Some((pj, aj)) => format!(
                        "axis {} is {}, and `{}` needs a multiple of {}",
                        aj + 1,
                        at.caller_size(dims, aj),
                        at.param_axis(pj),
                        show_size(dims, divisor)
                    ),
                    None => format!(
                        "{} is not a multiple of {}",
                        show_size(dims, size),
                        show_size(dims, divisor)
                    ),
                };
                let message = format!(
                    "`{name}` is not a whole number in this call of `{}`",
                    target.name
                );
                self.failed_arg(&at, codes::E0402, message, label, solver)
                    .with_help(format!(
                        "give the argument a size that {} divides",
                        show_size(dims, divisor)
                    ))
            }
            Failure::BelowOne { var, value, .. } => {
                let name = &solver.names[*var as usize];
                let message = format!(
                    "`{name}` would be {value} in this call of `{}`",
                    target.name
                );
                let label =
                    format!("this gives `{name}` = {value}, but an axis has at least 1 element");
                self.failed_arg(&at, codes::E0401, message, label, solver)
            }
            Failure::MayBeBelowOne { var, value, .. } => {
                let name = &solver.names[*var as usize];
                let message = format!("`{name}` may be below 1 in this call of `{}`", target.name);
                let label =
                    format!("this gives `{name}` = `{value}`, which is below 1 for small sizes");
                self.failed_arg(&at, codes::E0401, message, label, solver)
                    .with_help("an axis has at least 1 element: give an argument whose axis leaves room, as `[t + 1]`")
            }
            Failure::Overflow { .. } => {
                Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
                    .with_primary(at.span, "this size overflows")
            }
            Failure::Unsolved { vars, .. } => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| format!("`{}`", solver.names[*v as usize]))
                    .collect();
                let message = format!(
                    "can't work out {} from the arguments of `{}`",
                    names.join(" and "),
                    target.name
                );
                let label = "several unknown sizes in one axis".to_string();
                self.failed_arg(&at, codes::E0401, message, label, solver)
                    .with_help("give the other sizes elsewhere in the signature, or write the axis with fewer unknowns")
            }
        };
        self.diagnostics.push(d);
    }

    /// `arg_diagnostic` at the failing argument.
    fn failed_arg(
        &self,
        at: &FailedArg,
        code: diag::Code,
        message: String,
        label: String,
        solver: &Solver,
    ) -> Diagnostic {
        self.arg_diagnostic(
            code, message, at.span, label, at.target, at.index, &at.aty, solver,
        )
    }

    /// E0401 for an argument whose size isn't the one its parameter needs:
    /// names the argument's axis and what the parameter's axis is in this
    /// call (or, for an axis argument, the size of the axis it names).
    fn mismatch_failure(
        &self,
        at: &FailedArg,
        expected: &Poly,
        slots: &[Option<&ast::Arg>],
        arg_tys: &[Option<Ty>],
        solver: &Solver,
    ) -> Diagnostic {
        let dims = self.ctx.env.dims;
        let (param, target) = (at.param, at.target);
        let (message, label) = match at.axis {
            Some((pj, aj)) => (
                format!(
                    "argument `{}` of `{}` has the wrong shape",
                    param.name, target.name
                ),
                if at.param_axis(pj) == expected.to_string() {
                    format!(
                        "axis {} is {}, but the parameter's is {}",
                        aj + 1,
                        at.caller_size(dims, aj),
                        show_size(dims, expected)
                    )
                } else {
                    format!(
                        "axis {} is {}, but `{}` is {} in this call",
                        aj + 1,
                        at.caller_size(dims, aj),
                        at.param_axis(pj),
                        show_size(dims, expected)
                    )
                },
            ),
            None => {
                let axis_size = match (
                    slots[at.index].map(|a| &a.value.kind),
                    arg_tys.first().cloned().flatten(),
                ) {
                    (Some(ast::ExprKind::Name(n)), Some(first)) => first
                        .shape()
                        .and_then(|s| position_of(s, &n.name).and_then(|p| axis_poly(&s[p])))
                        .map(|p| {
                            format!("`{}` is an axis of size {}, ", n.name, show_size(dims, &p))
                        }),
                    _ => None,
                };
                (
                    format!(
                        "argument `{}` of `{}` doesn't fit its parameter",
                        param.name, target.name
                    ),
                    format!(
                        "{}but an axis of size {} is needed here",
                        axis_size.unwrap_or_default(),
                        show_size(dims, expected)
                    ),
                )
            }
        };
        let mut d = self.failed_arg(at, codes::E0401, message, label, solver);
        if let (None, TyKind::Axis(n) | TyKind::Axes(n)) = (at.axis, &param.ty.kind) {
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
}

/// The argument whose equation failed, as the messages describe it.
struct FailedArg<'a> {
    target: &'a Target<'a>,
    param: &'a ParamSig,
    index: usize,
    /// The (parameter axis, argument axis) of a shape's equation.
    axis: Option<(usize, usize)>,
    span: Span,
    aty: Ty,
}

impl FailedArg<'_> {
    /// The parameter's axis `pj` as written.
    fn param_axis(&self, pj: usize) -> String {
        self.param
            .ty
            .shape()
            .and_then(|s| s.get(pj))
            .map(|a| a.to_string())
            .unwrap_or_default()
    }

    /// The argument's axis `aj`'s size as shown (`?` when it has none).
    fn caller_size(&self, dims: &DimValues, aj: usize) -> String {
        self.aty
            .shape()
            .and_then(|s| s.get(aj))
            .and_then(axis_poly)
            .map_or("?".into(), |p| show_size(dims, &p))
    }
}
