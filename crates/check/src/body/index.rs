//! Indexing (`docs/shapescript/functions.md`, Indexing): Ints drop axes,
//! slices known to fit keep their size and others give an unknown one, Bool
//! masks over the leading axes give `[?k rest...]`, a stack gives one model, a
//! tuple one item. Part of `expr`.

use diag::{Diagnostic, Span};
use syntax::ast::{self, ScalarKind};

use super::expr::{least_value, scalar};
use super::{error_ty, FnChecker};
use crate::codes;
use crate::shape::{axis_of, axis_poly, axis_poly_ref, show_ty, tensor};
use crate::size::Poly;
use crate::typed::{ExprInfo, IndexPlan};
use crate::types::{Axis, Domain, DtypeKind, TensorTy, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// `base[...]`: a tensor by positions, slices or a mask, a tuple's
    /// item, or a stack's element.
    pub(super) fn index(
        &mut self,
        e: &ast::Expr,
        base: &ast::Expr,
        indices: &[ast::IndexArg],
    ) -> Ty {
        let span = e.span;
        let ty = self.expr(base);
        let t = match &ty.kind {
            TyKind::Error => return self.record(span, error_ty(span), ExprInfo::Plain),
            TyKind::Tensor(t) if t.shape.is_some() => t.clone(),
            TyKind::Tuple(items) => return self.tuple_item(span, items, indices),
            TyKind::Stack { elem, .. } => {
                for i in indices {
                    if let ast::IndexArg::Expr(x) = i {
                        self.expr(x);
                    }
                }
                let elem = Ty {
                    span,
                    ..(**elem).clone()
                };
                return self.record(span, elem, ExprInfo::Index(IndexPlan::Basic));
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(codes::E0408, format!("`{}` can't be indexed", show_ty(&ty)))
                        .with_primary(base.span, "not a tensor with a shape"),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        };
        let axes = t.shape.clone().unwrap_or_default();
        // A mask: one Bool tensor index.
        if let [ast::IndexArg::Expr(m)] = indices {
            let mty = self.expr(m);
            if let TyKind::Tensor(mt) = &mty.kind {
                let is_mask =
                    matches!(mt.domain, Some(Domain::Bool)) || mt.dtype == Some(DtypeKind::Bool);
                if is_mask {
                    let mshape = mt.shape.clone().unwrap_or_default();
                    let lead = mshape.len();
                    let fits = lead <= axes.len()
                        && mshape.iter().zip(axes.iter()).all(|(x, y)| {
                            match (axis_poly_ref(x), axis_poly_ref(y)) {
                                (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                                _ => true,
                            }
                        });
                    if !fits {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::E0401,
                                "the mask doesn't cover the tensor's leading axes",
                            )
                            .with_primary(m.span, format!("the mask is `{}`", show_ty(&mty)))
                            .with_secondary(base.span, format!("the tensor is `{}`", show_ty(&ty)))
                            .with_help("a mask has the shape of the leading axes it selects from"),
                        );
                        return self.record(span, error_ty(span), ExprInfo::Plain);
                    }
                    let mut shape = vec![axis_of(self.new_unknown("k"), span)];
                    shape.extend(axes[lead..].iter().cloned());
                    let out = tensor(Some(shape), t.domain.clone(), t.dtype, span);
                    return self.record(span, out, ExprInfo::Index(IndexPlan::Mask));
                }
            }
            return self.basic_index(span, base, &ty, &t, &axes, indices, Some(mty));
        }
        self.basic_index(span, base, &ty, &t, &axes, indices, None)
    }

    /// `topk(...)[0]`: a tuple's item by a number (E0408 for anything else).
    fn tuple_item(&mut self, span: Span, items: &[Ty], indices: &[ast::IndexArg]) -> Ty {
        if let [ast::IndexArg::Expr(ast::Expr {
            kind: ast::ExprKind::Int(i),
            span: at,
        })] = indices
        {
            self.record(*at, scalar(ScalarKind::Int, *at), ExprInfo::Plain);
            if let Some(item) = usize::try_from(*i).ok().and_then(|i| items.get(i)) {
                let item = Ty {
                    span,
                    ..item.clone()
                };
                return self.record(span, item, ExprInfo::Index(IndexPlan::Basic));
            }
        }
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0408,
                format!(
                    "a tuple of {} values is indexed by a number below {}",
                    items.len(),
                    items.len()
                ),
            )
            .with_primary(span, "not an item of the tuple")
            .with_help("take the tuple apart with `let (a, b) = ...`"),
        );
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn basic_index(
        &mut self,
        span: Span,
        _base: &ast::Expr,
        ty: &Ty,
        t: &TensorTy,
        axes: &[Axis],
        indices: &[ast::IndexArg],
        first_checked: Option<Ty>,
    ) -> Ty {
        if indices.len() > axes.len() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::E0401,
                    format!(
                        "{} indices for a tensor of {} axes",
                        indices.len(),
                        axes.len()
                    ),
                )
                .with_primary(span, "too many indices")
                .with_note(format!("the tensor is `{}`", show_ty(ty))),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let mut out: Vec<Axis> = Vec::new();
        let mut failed = false;
        for (i, index) in indices.iter().enumerate() {
            let axis = &axes[i];
            match index {
                ast::IndexArg::Expr(x) => {
                    let xt = match (&first_checked, i) {
                        (Some(t), 0) => t.clone(),
                        _ => self.expr(x),
                    };
                    match &xt.kind {
                        TyKind::Scalar(ScalarKind::Int) | TyKind::Error => {}
                        _ => {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    codes::E0408,
                                    "an index is an `Int`, a slice or a Bool mask",
                                )
                                .with_primary(x.span, format!("this is `{}`", show_ty(&xt)))
                                .with_help("pick rows by ids with `take(x, ids, over=n)`"),
                            );
                            failed = true;
                        }
                    }
                }
                ast::IndexArg::Slice {
                    start, end, step, ..
                } => {
                    // `:` is the whole axis as it is, an unknown size too.
                    if start.is_none() && end.is_none() && step.is_none() {
                        out.push(axis.clone());
                        continue;
                    }
                    for part in [start, end, step].into_iter().flatten() {
                        self.expr(part);
                    }
                    let size =
                        self.slice_size(axis, start.as_deref(), end.as_deref(), step.as_deref());
                    out.push(match size {
                        Some(poly) if poly == axis_poly(axis).unwrap_or_default() => axis.clone(),
                        Some(poly) => axis_of(poly, span),
                        None => axis_of(self.new_unknown("k"), span),
                    });
                }
            }
        }
        if failed {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        out.extend(axes[indices.len()..].iter().cloned());
        let result = tensor(Some(out), t.domain.clone(), t.dtype, span);
        self.record(span, result, ExprInfo::Index(IndexPlan::Basic))
    }

    /// The size of `a:b` on `axis` when both are known to fit, else `None`.
    pub(super) fn slice_size(
        &self,
        axis: &Axis,
        start: Option<&ast::Expr>,
        end: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
    ) -> Option<Poly> {
        let size = axis_poly(axis)?;
        if step.is_some() {
            return None;
        }
        let dims = self.ctx.env.dims;
        let lo = match start {
            None => Poly::constant(0),
            Some(e) => self.static_size(e)?,
        };
        let hi = match end {
            None => size.clone(),
            Some(e) => self.static_size(e)?,
        };
        let len = hi.sub(&lo).ok()?;
        // Fits when, for every value the sizes may take (unknown sizes at
        // least 0, other sizes at least 1: `docs/shapescript/sizes.md`), 0 <= lo, hi <= size
        // and the slice has at least one element.
        let least = |p: &Poly| dims.substitute(p).ok().and_then(|q| least_value(&q));
        let fits_hi = size
            .sub(&hi)
            .ok()
            .and_then(|d| least(&d))
            .is_some_and(|d| d >= 0);
        let fits_lo = least(&lo).is_some_and(|l| l >= 0);
        let positive = least(&len).is_some_and(|l| l >= 1);
        (fits_hi && fits_lo && positive).then_some(len)
    }
}
