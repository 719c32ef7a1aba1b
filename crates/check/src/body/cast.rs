//! `e as T` (a claim checked at run time; E0401 when it can never hold) and
//! `e to T` (a cast, a clamp, or a reshape keeping the element count).
//! Part of `expr`.

use diag::Diagnostic;
use syntax::ast::{self};

use super::{error_ty, FnChecker};
use crate::codes;
use crate::shape::{axis_poly, axis_poly_ref, shared_tensor, show_size, show_ty};
use crate::size::Poly;
use crate::typed::{AsCheck, ExprInfo, Range, ToPlan};
use crate::types::{Axis, Domain, ScalarKind, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// Types `e as T` (what to check at run time) and `e to T` (the cast,
    /// clamp and reshape to emit).
    pub(super) fn cast(
        &mut self,
        e: &ast::Expr,
        kind: ast::CastKind,
        inner: &ast::Expr,
        written: &ast::Type,
    ) -> Ty {
        let span = e.span;
        let found = self.expr(inner);
        let target = self.lower_body_type(written);
        if matches!(found.kind, TyKind::Error) || matches!(target.kind, TyKind::Error) {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        // A reshape or a claim checked at run time needs each axis's size.
        if let Some((at, name)) =
            super::undetermined::alone([&target].into_iter(), &self.undetermined)
        {
            let d = super::undetermined::diagnostic(self.signature, &self.undetermined, at, name);
            self.diagnostics.push(d);
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        if let Some(info) = number_narrowing(&found, &target, kind, self.line(span)) {
            let ty = Ty {
                kind: found.kind.clone(),
                span,
            };
            return self.record(span, ty, info);
        }
        let (TyKind::Tensor(f), TyKind::Tensor(t)) = (&found.kind, &target.kind) else {
            self.diagnostics
                .push(converts_tensors(kind, &found, &target, span));
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        // A shapeless target keeps the value's shape.
        let shape = t.shape.clone().or_else(|| f.shape.clone());
        let (dtype, to_float) = converted_dtype(kind, f, t, self.body.made_dtype);
        let kept = f.domain.clone().filter(|d| self.keeps_ids(d, dtype));
        let domain = t.domain.clone().or(kept);
        let result = shared_tensor(shape.clone(), domain, dtype, span);
        let line = self.line(span);
        let info = match kind {
            ast::CastKind::As if !claims_own_dtype(f, t) => {
                self.diagnostics.push(as_changes_dtype(f, t, written.span));
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
            ast::CastKind::As => {
                if let (Some(fs), Some(ts)) = (&f.shape, &t.shape) {
                    if !self.as_claim_possible(fs, ts, &found, &target, written) {
                        return self.record(span, error_ty(span), ExprInfo::Plain);
                    }
                }
                ExprInfo::As(AsCheck {
                    shape: t.shape.as_ref().map(|s| {
                        s.iter()
                            .filter_map(axis_poly)
                            .map(crate::size::Size::computed)
                            .collect()
                    }),
                    // Only a domain the claim names is checked: the value's
                    // own the checker already knows.
                    range: t
                        .domain
                        .as_ref()
                        .and_then(|_| crate::shape::range_of(&result)),
                    line,
                })
            }
            ast::CastKind::To => {
                let reshape = match (&f.shape, &t.shape) {
                    (Some(fs), Some(ts)) => {
                        match self.reshape_of_to(fs, ts, &found, inner, written) {
                            Some(reshape) => reshape,
                            None => return self.record(span, error_ty(span), ExprInfo::Plain),
                        }
                    }
                    _ => None,
                };
                ExprInfo::To(ToPlan {
                    cast: t.dtype.filter(|d| Some(*d) != f.dtype),
                    to_float,
                    // `to Bool` is `!= 0`, never a clamp into [0, 1].
                    clamp: t
                        .domain
                        .as_ref()
                        .filter(|d| !matches!(d, Domain::Bool))
                        .and_then(|_| crate::shape::range_of(&result))
                        .filter(|r: &Range| r.lo.is_finite() || r.hi.is_finite()),
                    reshape,
                })
            }
        };
        self.record(span, result, info)
    }

    /// The line of `span`, for a run-time check's `ShapeError`.
    fn line(&self, span: diag::Span) -> u32 {
        self.ctx.env.map.line_col(span.file, span.start).line
    }

    /// Whether an `as` claim can ever hold: the same number of axes
    /// (E0401), and no axis whose sizes are both known and different
    /// (E0401: it could never pass the run-time check).
    fn as_claim_possible(
        &mut self,
        fs: &[Axis],
        ts: &[Axis],
        found: &Ty,
        target: &Ty,
        written: &ast::Type,
    ) -> bool {
        if fs.len() != ts.len() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::E0401,
                    format!(
                        "`as` can't change the number of axes: `{}` has {}, `{}` {}",
                        show_ty(found),
                        fs.len(),
                        show_ty(target),
                        ts.len()
                    ),
                )
                .with_primary(written.span, "a claim about the same axes")
                .with_help(
                    "`as` states sizes the checker can't see; reshape with `to` or `rearrange`",
                ),
            );
            return false;
        }
        // Sizes both known and different can never pass the run-time check.
        for (x, y) in fs.iter().zip(ts.iter()) {
            if let (Some(p), Some(q)) = (axis_poly_ref(x), axis_poly_ref(y)) {
                let dims = self.ctx.env.dims;
                let (vp, vq) = (
                    dims.substitute(&p).ok().and_then(|p| p.as_constant()),
                    dims.substitute(&q).ok().and_then(|q| q.as_constant()),
                );
                if let (Some(a), Some(b)) = (vp, vq) {
                    if a != b {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::E0401,
                                format!("`as` claims size {b} for an axis of size {a}"),
                            )
                            .with_primary(
                                written.span,
                                format!("`{}` can never be `{}`", show_ty(found), show_ty(target)),
                            )
                            .with_help("`as` is for sizes the checker can't see; this one it can"),
                        );
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The reshape a `to` does, when the shapes differ: `Some(None)` for
    /// none, `None` after E0401 for a change in the number of elements.
    fn reshape_of_to(
        &mut self,
        fs: &[Axis],
        ts: &[Axis],
        found: &Ty,
        inner: &ast::Expr,
        written: &ast::Type,
    ) -> Option<Option<Vec<crate::size::Size>>> {
        let count = |s: &[Axis]| {
            s.iter()
                .try_fold(Poly::constant(1), |acc, a| acc.mul(&axis_poly(a)?).ok())
        };
        let (a, b) = (count(fs), count(ts));
        if let (Some(a), Some(b)) = (a, b) {
            if !self.ctx.env.dims.same_size(&a, &b) {
                let dims = self.ctx.env.dims;
                self.diagnostics.push(
                    Diagnostic::error(codes::E0401, "`to` would change the number of elements")
                        .with_primary(written.span, format!("{} elements here", show_size(dims, &b)))
                        .with_secondary(inner.span, format!("`{}` has {} elements", show_ty(found), show_size(dims, &a)))
                        .with_help("a reshape keeps every element; check the sizes, or use `rearrange` to say which axes merge"),
                );
                return None;
            }
        }
        let same = fs.len() == ts.len()
            && fs
                .iter()
                .zip(ts.iter())
                .all(|(x, y)| match (axis_poly_ref(x), axis_poly_ref(y)) {
                    (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                    _ => true,
                });
        if same {
            return Some(None);
        }
        Some(Some(
            ts.iter()
                .filter_map(axis_poly)
                .map(crate::size::Size::computed)
                .collect(),
        ))
    }
}

/// `n as Pos` or `n to Pos` on a Python number (`Int`, `Float`): a type
/// that is only a domain other than `Index` or `Bool` narrows the number's
/// range (`docs/shapescript/ranges.md`), checked or clamped when the
/// program runs; the number keeps its type. `None` for anything else.
fn number_narrowing(found: &Ty, target: &Ty, kind: ast::CastKind, line: u32) -> Option<ExprInfo> {
    let (TyKind::Scalar(ScalarKind::Int | ScalarKind::Float), TyKind::Tensor(t)) =
        (&found.kind, &target.kind)
    else {
        return None;
    };
    let domain_only = t.shape.is_none() && t.dtype.is_none();
    if !domain_only || matches!(t.domain, None | Some(Domain::Index(_) | Domain::Bool)) {
        return None;
    }
    let range = crate::shape::range_of(target);
    Some(match kind {
        ast::CastKind::As => ExprInfo::As(AsCheck {
            shape: None,
            range,
            line,
        }),
        ast::CastKind::To => ExprInfo::To(ToPlan {
            cast: None,
            to_float: false,
            clamp: range.filter(|r| r.lo.is_finite() || r.hi.is_finite()),
            reshape: None,
        }),
    })
}

/// E0502 for an `as` that claims another dtype than the value has.
fn as_changes_dtype(
    found: &crate::types::TensorTy,
    target: &crate::types::TensorTy,
    at: diag::Span,
) -> Diagnostic {
    let show = |t| crate::dtype::show(crate::shape::effective_dtype(t));
    Diagnostic::error(
        codes::E0502,
        format!("`as` can't change a dtype: the value is {}", show(found)),
    )
    .with_primary(at, format!("this says {}", show(target)))
    .with_note(
        "`as` claims sizes and domains, which the program checks when it runs; it converts nothing",
    )
    .with_help("convert with `to`, as in `x to f32`")
}

/// Whether an `as` to `target` leaves the value's dtype as it is: the claim
/// names no dtype, or the one the value has.
fn claims_own_dtype(found: &crate::types::TensorTy, target: &crate::types::TensorTy) -> bool {
    let claimed = crate::shape::effective_dtype(target);
    target.dtype.is_none() && !matches!(target.domain, Some(Domain::Index(_) | Domain::Bool))
        || claimed == crate::shape::effective_dtype(found)
}

/// E0408: `as` and `to` convert tensors, and a number takes a domain alone.
fn converts_tensors(kind: ast::CastKind, found: &Ty, target: &Ty, span: diag::Span) -> Diagnostic {
    let d = Diagnostic::error(
        codes::E0408,
        format!("`{}` converts tensors", kind.as_str()),
    )
    .with_primary(
        span,
        format!(
            "`{}` {} `{}`",
            show_ty(found),
            kind.as_str(),
            show_ty(target)
        ),
    );
    match found.kind {
        TyKind::Scalar(ScalarKind::Int | ScalarKind::Float) => d.with_help(format!(
            "a number takes a domain alone, as in `{} Pos`",
            kind.as_str()
        )),
        _ => d,
    }
}

/// The dtype of `f` converted to `t`, and whether it is an integer or bool
/// tensor converted to a float domain without a dtype (which takes the
/// body's float dtype, `made`). Floats converted to ids or a mask without
/// a dtype become what the domain implies (`.long()`, `!= 0` in the emitted
/// code): `i64`, `bool`, left to the domain (`None`).
fn converted_dtype(
    kind: ast::CastKind,
    f: &crate::types::TensorTy,
    t: &crate::types::TensorTy,
    made: Option<ast::DtypeKind>,
) -> (Option<ast::DtypeKind>, bool) {
    let to = kind == ast::CastKind::To && t.dtype.is_none();
    let from = crate::shape::effective_dtype(f);
    let to_float = to
        && !matches!(t.domain, None | Some(Domain::Index(_) | Domain::Bool))
        && from.is_some_and(|d| !crate::shape::is_float(d));
    let to_ids_or_mask = to
        && match (&t.domain, from) {
            (Some(Domain::Index(_)), d) => !d.is_some_and(is_integer),
            (Some(Domain::Bool), d) => d != Some(ast::DtypeKind::Bool),
            _ => false,
        };
    let dtype = if to_float {
        made
    } else if to_ids_or_mask {
        None
    } else {
        t.dtype.or(f.dtype)
    };
    (dtype, to_float)
}

impl FnChecker<'_, '_> {
    /// Whether values in `domain` stay in it converted to `dtype`: ids
    /// converted to a float dtype stay ids only where it holds every whole
    /// number below their bound (2^11 in f16, 2^8 in bf16): 4095 is 4096 in
    /// bf16, past `Index[4096]`.
    fn keeps_ids(&self, domain: &Domain, dtype: Option<ast::DtypeKind>) -> bool {
        let Domain::Index(n) = domain else {
            return true;
        };
        let bits = match dtype {
            Some(ast::DtypeKind::F16) => 11,
            Some(ast::DtypeKind::Bf16) => 8,
            Some(ast::DtypeKind::F32) => 24,
            Some(ast::DtypeKind::F64) => 53,
            _ => return true,
        };
        let n = self.ctx.env.dims.value(&n.poly).or(n.poly.as_constant());
        n.is_some_and(|n| n <= 1i128 << bits)
    }
}

/// An integer dtype (ids may keep it: `to Index[N]` of `i32` stays `i32`).
fn is_integer(d: ast::DtypeKind) -> bool {
    matches!(d, ast::DtypeKind::I64 | ast::DtypeKind::I32)
}
