//! The diagnostic of a pattern call whose sizes the solver can't settle:
//! names the pattern axis, the tensor's axis and the sizes solved so far.

use diag::{Diagnostic, Span};

use super::{text, Shaped, Side};
use crate::body::FnChecker;
use crate::codes;
use crate::shape::{axis_poly, show_size, show_ty};
use crate::solver::{Failure, Solver};

/// Reports the solver's failure at the pattern axis whose equation failed.
pub(super) fn report(
    c: &mut FnChecker,
    failure: Failure,
    tags: &[(usize, usize, usize)],
    lhs: &[Side],
    shapes: &[Shaped],
    solver: &Solver,
    source: &str,
) {
    let dims = c.ctx.env.dims;
    let tag = failure.tag();
    let (t, i, j) = tags[tag];
    let pax = &lhs[t][i];
    let pax_text = text(source, pax.span);
    let (ty, _, shape, at) = &shapes[t];
    let size = axis_poly(&shape[j]).unwrap_or_default();
    let solved = solver.shown();
    let with_solved = |d: Diagnostic| {
        if solved.is_empty() {
            d
        } else {
            d.with_note(format!("known so far: {}", solved.join(", ")))
        }
    };
    let d = match failure {
        Failure::Mismatch { expected, .. } => with_solved(
            Diagnostic::error(
                codes::E0401,
                format!(
                    "pattern axis `{}` doesn't fit axis {} of the tensor",
                    pax_text,
                    j + 1
                ),
            )
            .with_primary(
                pax.span,
                format!("`{}` is {} here", pax_text, show_size(dims, &expected)),
            )
            .with_secondary(
                *at,
                format!(
                    "axis {} of `{}` is {}",
                    j + 1,
                    show_ty(ty),
                    show_size(dims, &size)
                ),
            ),
        ),
        Failure::Inexact { var, divisor, .. } => with_solved(
            Diagnostic::error(
                codes::E0402,
                format!(
                    "`{}` is not a whole number in the pattern axis `{}`",
                    solver.names[var as usize], pax_text
                ),
            )
            .with_primary(
                pax.span,
                format!(
                    "{} is not a multiple of {}",
                    show_size(dims, &size),
                    show_size(dims, &divisor)
                ),
            )
            .with_secondary(*at, format!("axis {} of `{}`", j + 1, show_ty(ty)))
            .with_help("choose sizes whose product is the axis's size"),
        ),
        Failure::BelowOne { var, value, .. } => Diagnostic::error(
            codes::E0401,
            format!(
                "`{}` would be {value} in the pattern axis `{}`",
                solver.names[var as usize], pax_text
            ),
        )
        .with_primary(pax.span, format!("this axis is {}", show_size(dims, &size))),
        Failure::MayBeBelowOne { var, value, .. } => Diagnostic::error(
            codes::E0401,
            format!(
                "`{}` may be below 1 in the pattern axis `{}`",
                solver.names[var as usize], pax_text
            ),
        )
        .with_primary(
            pax.span,
            format!(
                "this gives `{value}`, below 1 for small sizes of {}",
                show_size(dims, &size)
            ),
        ),
        Failure::Overflow { .. } => {
            Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
                .with_primary(pax.span, "this size overflows")
        }
        Failure::Unsolved { vars, .. } => {
            unsolved(&vars, solver, pax.span, pax_text, &show_size(dims, &size))
        }
    };
    c.diagnostics.push(d);
}

/// E0401 for a pattern axis that is a product of several unknown sizes:
/// its parts can't be worked out from the tensor's axis.
fn unsolved(vars: &[u32], solver: &Solver, at: Span, pax_text: &str, size: &str) -> Diagnostic {
    let names: Vec<String> = vars
        .iter()
        .map(|v| format!("`{}`", solver.names[*v as usize]))
        .collect();
    let first = vars
        .first()
        .map(|v| solver.names[*v as usize])
        .unwrap_or_default();
    Diagnostic::error(
        codes::E0401,
        format!(
            "can't work out {} from the tensor's shape",
            names.join(" and ")
        ),
    )
    .with_primary(
        at,
        format!("`{pax_text}` is {size}, but its parts aren't known"),
    )
    .with_help(format!("give a size as a keyword, as in `{first}=...`"))
}
