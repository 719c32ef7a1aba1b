//! Expressions other than calls: literals, names, fields, operators with
//! broadcasting by name, `@`, indexing, `as` and `to`. Each is recorded in
//! the body with its type; a failed one has `TyKind::Error`, which stays quiet.

use std::sync::Arc;

use diag::{Diagnostic, Span};
use syntax::ast::{self, BinaryOp, ScalarKind};

use super::shape::{
    axis_name, axis_of, axis_poly, effective_dtype, is_float, show_size, show_ty, tensor,
};
use super::{error_ty, FnChecker};
use crate::broadcast::broadcast;
use crate::model::instantiate;
use crate::program::Decl;
use crate::size::{Poly, Symbol};
use crate::typed::{Alignment, AsCheck, ExprInfo, IndexPlan, Range, ToPlan};
use crate::types::{Axis, Domain, DtypeKind, TensorTy, Ty, TyKind};

fn scalar(kind: ScalarKind, span: Span) -> Ty {
    Ty {
        kind: TyKind::Scalar(kind),
        span,
    }
}

impl FnChecker<'_, '_> {
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> Ty {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Int(_) => self.record(span, scalar(ScalarKind::Int, span), ExprInfo::Plain),
            ast::ExprKind::Float(_) => {
                self.record(span, scalar(ScalarKind::Float, span), ExprInfo::Plain)
            }
            ast::ExprKind::Bool(_) => {
                self.record(span, scalar(ScalarKind::Bool, span), ExprInfo::Plain)
            }
            ast::ExprKind::None => self.record(span, error_ty(span), ExprInfo::Plain),
            ast::ExprKind::Str(_) => {
                self.misplaced(span, "a string", "strings only name Python functions, in `extern fn`")
            }
            ast::ExprKind::Name(name) => self.name(name),
            ast::ExprKind::Field { base, name } => self.field(e, base, name),
            ast::ExprKind::Call { callee, args } => self.call(e, callee, args),
            ast::ExprKind::Index { base, indices } => self.index(e, base, indices),
            ast::ExprKind::Unary { op, operand } => {
                let ty = self.expr(operand);
                let ty = match (op, &ty.kind) {
                    (_, TyKind::Error) => error_ty(span),
                    (ast::UnaryOp::Neg, TyKind::Scalar(ScalarKind::Int | ScalarKind::Float)) => ty,
                    (ast::UnaryOp::Neg, TyKind::Tensor(t)) => tensor(t.shape.clone(), None, t.dtype, span),
                    (ast::UnaryOp::Not, TyKind::Scalar(ScalarKind::Bool)) => ty,
                    (ast::UnaryOp::Not, TyKind::Tensor(t)) => {
                        tensor(t.shape.clone(), Some(Domain::Bool), None, span)
                    }
                    _ => {
                        self.diagnostics.push(
                            Diagnostic::error("E0408", format!("`{}` can't be applied to `{}`", if *op == ast::UnaryOp::Neg { "-" } else { "not" }, show_ty(&ty)))
                                .with_primary(operand.span, format!("this is `{}`", show_ty(&ty))),
                        );
                        error_ty(span)
                    }
                };
                self.record(span, ty, ExprInfo::Plain)
            }
            ast::ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            ast::ExprKind::Cast { kind, expr, ty } => self.cast(e, *kind, expr, ty),
            ast::ExprKind::Tuple(items) => {
                let items = items.iter().map(|i| self.expr(i)).collect();
                self.record(
                    span,
                    Ty {
                        kind: TyKind::Tuple(items),
                        span,
                    },
                    ExprInfo::Plain,
                )
            }
            ast::ExprKind::AxisGroup(_) => {
                self.misplaced(span, "a group of axis names", "axis groups are for `over=(n D)`")
            }
            ast::ExprKind::Pattern(_) => self.misplaced(
                span,
                "a pattern",
                "patterns are arguments of `rearrange`, `reduce`, `repeat` and `einsum`",
            ),
            ast::ExprKind::Shape(_) => self.misplaced(
                span,
                "a shape",
                "shapes are arguments of `zeros`, `ones` and `full`, or types after `:`, `as` and `to`",
            ),
            ast::ExprKind::Error => self.record(span, error_ty(span), ExprInfo::Plain),
        }
    }

    fn misplaced(&mut self, span: Span, what: &str, help: &str) -> Ty {
        self.diagnostics.push(
            Diagnostic::error("E0408", format!("{what} can't be a value here"))
                .with_primary(span, "not a value")
                .with_help(help.to_string()),
        );
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    /// A dim or generic axis named as a value: its size, an Int.
    pub(crate) fn size_named(&self, name: &str) -> Option<Poly> {
        if self.local(name).is_some() {
            return None;
        }
        if let Some(g) = self.signature.generics.iter().find(|g| ***g == *name) {
            return Some(Poly::symbol(Symbol::Generic(g.clone())));
        }
        match self.ctx.env.program.decl(self.file, name) {
            Some(Decl::Dim(d, _)) => {
                self.ctx
                    .env
                    .dims
                    .entry(self.file, &d.name.name)
                    .map(|(n, _)| {
                        Poly::symbol(Symbol::Dim {
                            file: self.file,
                            name: n.clone(),
                        })
                    })
            }
            _ => None,
        }
    }

    /// The size an expression stands for before the program runs: a
    /// number, a dim or an axis name (`Size` arguments, pattern sizes).
    pub(crate) fn static_size(&self, e: &ast::Expr) -> Option<Poly> {
        match &e.kind {
            ast::ExprKind::Int(v) => i128::try_from(*v).ok().map(Poly::constant),
            ast::ExprKind::Name(n) => self.size_named(&n.name),
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.static_size(lhs)?, self.static_size(rhs)?);
                match op {
                    BinaryOp::Add => a.add(&b).ok(),
                    BinaryOp::Sub => a.sub(&b).ok(),
                    BinaryOp::Mul => a.mul(&b).ok(),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn name(&mut self, name: &ast::Ident) -> Ty {
        let span = name.span;
        if name.is_missing() {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        if let Some((ty, decl)) = self.local(&name.name).map(|l| (l.ty.clone(), l.span)) {
            let ty = Ty { span, ..ty };
            return self.record(span, ty, ExprInfo::Local { decl });
        }
        if let Some(size) = self.size_named(&name.name) {
            return self.record(
                span,
                scalar(ScalarKind::Int, span),
                ExprInfo::SizeValue {
                    size: crate::size::Size::computed(size),
                },
            );
        }
        let found = self
            .ctx
            .env
            .program
            .decl(self.file, &name.name)
            .or_else(|| {
                crate::prelude::stub(self.ctx.env.program, self.ctx.library, &name.name)
                    .map(|(_, d)| d)
            });
        let what = match found {
            Some(d) => d.describe(),
            None if crate::builtins::is_builtin(&name.name) => "a built-in operation",
            None => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E0301",
                        format!("cannot find `{}` in this scope", name.name),
                    )
                    .with_primary(span, "not a parameter, `let`, dim or axis name")
                    .with_help("declare it with `let`, or take it as a parameter"),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        };
        self.diagnostics.push(
            Diagnostic::error("E0408", format!("`{}` is {what}, not a value", name.name))
                .with_primary(span, "not a value")
                .with_help(format!("call it: `{}(...)`", name.name)),
        );
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    fn field(&mut self, e: &ast::Expr, base: &ast::Expr, name: &ast::Ident) -> Ty {
        let span = e.span;
        // `file.D`: another file's dim.
        if let ast::ExprKind::Name(file) = &base.kind {
            if self.local(&file.name).is_none() {
                if let Some(Decl::Import(_, Some(target))) =
                    self.ctx.env.program.decl(self.file, &file.name)
                {
                    if let Some(Decl::Dim(d, _)) = self.ctx.env.program.decl(target, &name.name) {
                        if let Some((n, _)) = self.ctx.env.dims.entry(target, &d.name.name) {
                            let size = Poly::symbol(Symbol::Dim {
                                file: target,
                                name: n.clone(),
                            });
                            return self.record(
                                span,
                                scalar(ScalarKind::Int, span),
                                ExprInfo::SizeValue {
                                    size: crate::size::Size::computed(size),
                                },
                            );
                        }
                    }
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0408",
                            format!("`{}.{}` is not a value", file.name, name.name),
                        )
                        .with_primary(span, "not a value")
                        .with_help("another file's functions are called, and its dims are sizes"),
                    );
                    return self.record(span, error_ty(span), ExprInfo::Plain);
                }
            }
        }
        let base_ty = self.expr(base);
        let ty = match &base_ty.kind {
            TyKind::Error => error_ty(span),
            TyKind::Named {
                file,
                name: owner,
                args,
            } => {
                let info = self.ctx.models.get(*file, owner);
                let field = info.and_then(|m| {
                    m.def
                        .fields
                        .iter()
                        .find(|f| *f.name == *name.name)
                        .map(|f| (f.ty.clone(), m.def.size_params.clone()))
                });
                match field {
                    Some((ty, params)) => {
                        let ty = instantiate(&ty, &params, args);
                        let ty = Ty { span, ..ty };
                        return self.record(
                            span,
                            ty,
                            ExprInfo::Field {
                                owner: owner.clone(),
                                field: self.ctx.env.names.intern(&name.name),
                            },
                        );
                    }
                    None => {
                        let is_method = info.is_some_and(|m| m.methods.contains_key(&name.name));
                        let mut d = Diagnostic::error(
                            "E0409",
                            format!("`{owner}` has no field `{}`", name.name),
                        )
                        .with_primary(
                            name.span,
                            if is_method {
                                "a method, not a field"
                            } else {
                                "no such field"
                            },
                        );
                        if is_method {
                            d = d.with_help(format!("call the method: `.{}(...)`", name.name));
                        } else if let Some(m) = info {
                            let names: Vec<&str> = m.def.fields.iter().map(|f| &*f.name).collect();
                            if !names.is_empty() {
                                d = d.with_note(format!(
                                    "`{owner}` has the fields {}",
                                    names.join(", ")
                                ));
                            }
                        }
                        self.diagnostics.push(d);
                        error_ty(span)
                    }
                }
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error("E0409", format!("`{}` has no fields", show_ty(&base_ty)))
                        .with_primary(name.span, "no such field")
                        .with_note("only models and records have fields"),
                );
                error_ty(span)
            }
        };
        self.record(span, ty, ExprInfo::Plain)
    }

    fn binary(&mut self, e: &ast::Expr, op: BinaryOp, lhs: &ast::Expr, rhs: &ast::Expr) -> Ty {
        let span = e.span;
        let a = self.expr(lhs);
        let b = self.expr(rhs);
        if matches!(a.kind, TyKind::Error) || matches!(b.kind, TyKind::Error) {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        if op == BinaryOp::MatMul {
            return self.matmul(e, lhs, rhs, &a, &b);
        }
        let comparison = matches!(
            op,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        );
        let logic = matches!(op, BinaryOp::And | BinaryOp::Or);
        match (&a.kind, &b.kind) {
            (TyKind::Scalar(x), TyKind::Scalar(y)) => {
                let kind = if comparison || logic {
                    ScalarKind::Bool
                } else if *x == ScalarKind::Int && *y == ScalarKind::Int && op != BinaryOp::Div {
                    ScalarKind::Int
                } else {
                    ScalarKind::Float
                };
                if logic && (*x != ScalarKind::Bool || *y != ScalarKind::Bool) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0408",
                            format!("`{}` takes `Bool` values", op.as_str()),
                        )
                        .with_primary(
                            span,
                            format!("`{}` {} `{}`", show_ty(&a), op.as_str(), show_ty(&b)),
                        ),
                    );
                    return self.record(span, error_ty(span), ExprInfo::Plain);
                }
                self.record(span, scalar(kind, span), ExprInfo::Plain)
            }
            (TyKind::Tensor(_) | TyKind::Scalar(_), TyKind::Tensor(_) | TyKind::Scalar(_)) => {
                let operands = [(&a, lhs.span), (&b, rhs.span)];
                let Some((shape, dtype, alignments)) =
                    self.elementwise(&operands, span, op.as_str())
                else {
                    return self.record(span, error_ty(span), ExprInfo::Plain);
                };
                let (domain, dtype) = if comparison || logic {
                    (Some(Domain::Bool), None)
                } else {
                    (None, dtype)
                };
                let ty = tensor(shape, domain, dtype, span);
                self.record(
                    span,
                    ty,
                    ExprInfo::Broadcast {
                        operands: alignments,
                    },
                )
            }
            _ => {
                let bad = if matches!(a.kind, TyKind::Tensor(_) | TyKind::Scalar(_)) {
                    (&b, rhs.span)
                } else {
                    (&a, lhs.span)
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        "E0408",
                        format!("`{}` takes tensors and numbers", op.as_str()),
                    )
                    .with_primary(bad.1, format!("this is `{}`", show_ty(bad.0))),
                );
                self.record(span, error_ty(span), ExprInfo::Plain)
            }
        }
    }

    /// Broadcasts elementwise operands (spec 6.2) and unifies their float
    /// dtypes (E0502). Returns the shape (`None`: shapeless), dtype and alignments.
    #[allow(clippy::type_complexity)]
    pub(crate) fn elementwise(
        &mut self,
        operands: &[(&Ty, Span)],
        _span: Span,
        what: &str,
    ) -> Option<(Option<Vec<Axis>>, Option<DtypeKind>, Vec<Alignment>)> {
        let dtype = self.unify_dtypes(operands, what)?;
        let shaped: Vec<(usize, &[Axis])> = operands
            .iter()
            .enumerate()
            .filter_map(|(i, (ty, _))| ty.shape().map(|s| (i, s)))
            .collect();
        let any_shapeless = operands
            .iter()
            .any(|(ty, _)| matches!(&ty.kind, TyKind::Tensor(TensorTy { shape: None, .. })));
        let (shape, mut positions) = match shaped.as_slice() {
            [] => (None, vec![]),
            _ => {
                let shapes: Vec<&[Axis]> = shaped.iter().map(|(_, s)| *s).collect();
                match broadcast(self.ctx.env.dims, &shapes) {
                    Ok(b) => (Some(b.shape), b.positions),
                    Err(note) => {
                        let (first, second) = (shaped[0].0, shaped[shaped.len() - 1].0);
                        let show = |i: usize| show_ty(operands[i].0);
                        self.diagnostics.push(
                            Diagnostic::error("E0401", format!("shapes `{}` and `{}` don't broadcast", show(first), show(second)))
                                .with_primary(operands[second].1, format!("`{}`", show(second)))
                                .with_secondary(operands[first].1, format!("`{}`", show(first)))
                                .with_note(note)
                                .with_help(if shapes_have_unknowns(&shapes) {
                                    "an unknown size equals only itself: state the size with `as`, as in `(rows as [196 D])`"
                                } else {
                                    "named axes pair by name and anonymous ones right-aligned; give the axes names, or insert axes of size 1 with `to`"
                                }),
                        );
                        return None;
                    }
                }
            }
        };
        let _ = any_shapeless;
        let mut alignments = Vec::with_capacity(operands.len());
        let mut next = positions.drain(..);
        for (ty, _) in operands {
            alignments.push(Alignment {
                positions: if ty.shape().is_some() {
                    next.next()
                } else {
                    None
                },
            });
        }
        Some((shape, dtype, alignments))
    }

    /// The one float dtype of elementwise operands; E0502 for a mix.
    pub(crate) fn unify_dtypes(
        &mut self,
        operands: &[(&Ty, Span)],
        what: &str,
    ) -> Option<Option<DtypeKind>> {
        let mut dtype: Option<(DtypeKind, Span)> = None;
        for (ty, at) in operands {
            if let TyKind::Tensor(t) = &ty.kind {
                if let Some(d) = effective_dtype(t).filter(|d| is_float(*d)) {
                    match dtype {
                        Some((first, first_at)) if first != d => {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    "E0502",
                                    format!("`{what}` mixes {} and {}", first.as_str(), d.as_str()),
                                )
                                .with_primary(*at, format!("this is {}", d.as_str()))
                                .with_secondary(first_at, format!("this is {}", first.as_str()))
                                .with_help(format!(
                                    "convert one side: `... to {}`",
                                    first.as_str()
                                )),
                            );
                            return None;
                        }
                        None => dtype = Some((d, *at)),
                        _ => {}
                    }
                }
            }
        }
        Some(dtype.map(|(d, _)| d))
    }

    fn matmul(&mut self, e: &ast::Expr, lhs: &ast::Expr, rhs: &ast::Expr, a: &Ty, b: &Ty) -> Ty {
        let span = e.span;
        let (Some(sa), Some(sb)) = (a.shape(), b.shape()) else {
            self.diagnostics.push(
                Diagnostic::error("E0408", "`@` takes tensors with shapes").with_primary(
                    if a.shape().is_none() {
                        lhs.span
                    } else {
                        rhs.span
                    },
                    "no shape here",
                ),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        let Some(dtype) = self.unify_dtypes(&[(a, lhs.span), (b, rhs.span)], "@") else {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        if sa.is_empty() || sb.is_empty() {
            self.diagnostics.push(
                Diagnostic::error("E0401", "`@` takes tensors of at least one axis")
                    .with_primary(if sa.is_empty() { lhs.span } else { rhs.span }, "no axes"),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let k_a = &sa[sa.len() - 1];
        let (k_b, b_batch, b_out): (&Axis, &[Axis], Option<&Axis>) = if sb.len() == 1 {
            (&sb[0], &[][..], None)
        } else {
            (
                &sb[sb.len() - 2],
                &sb[..sb.len() - 2],
                Some(&sb[sb.len() - 1]),
            )
        };
        let (ka, kb) = (axis_poly(k_a), axis_poly(k_b));
        if let (Some(ka), Some(kb)) = (&ka, &kb) {
            if !self.ctx.env.dims.same_size(ka, kb) {
                let dims = self.ctx.env.dims;
                self.diagnostics.push(
                    Diagnostic::error("E0401", format!("`@` of `{}` and `{}`: the inner sizes differ", show_ty(a), show_ty(b)))
                        .with_primary(rhs.span, format!("its {} axis is {}", if sb.len() == 1 { "only" } else { "second-to-last" }, show_size(dims, kb)))
                        .with_secondary(lhs.span, format!("its last axis is {}", show_size(dims, ka)))
                        .with_note("`a @ b` contracts the last axis of `a` with the second-to-last of `b` (the only one for a vector)")
                        .with_help("transpose one side with `rearrange`, or use `einsum` to name the contracted axis"),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        }
        let a_batch = &sa[..sa.len() - 1];
        // Batch axes: `b`'s leading axes broadcast by name into `a`'s.
        let mut shape: Vec<Axis> = a_batch.to_vec();
        if !b_batch.is_empty() {
            let a_lead = &sa[..sa.len().saturating_sub(2)];
            match broadcast(self.ctx.env.dims, &[a_lead, b_batch]) {
                Ok(bc) => {
                    shape = bc.shape;
                    if sa.len() >= 2 {
                        shape.push(sa[sa.len() - 2].clone());
                    }
                }
                Err(note) => {
                    self.diagnostics.push(
                        Diagnostic::error("E0401", "the batch axes of `@` don't broadcast")
                            .with_primary(span, format!("`{}` @ `{}`", show_ty(a), show_ty(b)))
                            .with_note(note),
                    );
                    return self.record(span, error_ty(span), ExprInfo::Plain);
                }
            }
        }
        if let Some(out) = b_out {
            shape.push(out.clone());
        }
        let ty = tensor(Some(shape.clone()), None, dtype, span);
        let rank = shape.len();
        let lhs_align = Alignment {
            positions: Some((0..rank).map(|i| (i < sa.len()).then_some(i)).collect()),
        };
        let rhs_align = Alignment {
            positions: Some((0..rank).map(|i| (i < sb.len()).then_some(i)).collect()),
        };
        self.record(
            span,
            ty,
            ExprInfo::MatMul {
                lhs: lhs_align,
                rhs: rhs_align,
            },
        )
    }

    fn index(&mut self, e: &ast::Expr, base: &ast::Expr, indices: &[ast::IndexArg]) -> Ty {
        let span = e.span;
        let ty = self.expr(base);
        let t = match &ty.kind {
            TyKind::Error => return self.record(span, error_ty(span), ExprInfo::Plain),
            TyKind::Tensor(t) if t.shape.is_some() => t.clone(),
            TyKind::Tuple(items) => {
                // `topk(...)[0]`: a tuple's item by a number.
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
                        "E0408",
                        format!(
                            "a tuple of {} values is indexed by a number below {}",
                            items.len(),
                            items.len()
                        ),
                    )
                    .with_primary(span, "not an item of the tuple")
                    .with_help("take the tuple apart with `let (a, b) = ...`"),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
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
                    Diagnostic::error("E0408", format!("`{}` can't be indexed", show_ty(&ty)))
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
                        && mshape.iter().zip(&axes).all(|(x, y)| {
                            match (axis_poly(x), axis_poly(y)) {
                                (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                                _ => true,
                            }
                        });
                    if !fits {
                        self.diagnostics.push(
                            Diagnostic::error(
                                "E0401",
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

    #[allow(clippy::too_many_arguments)]
    fn basic_index(
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
                    "E0401",
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
                                    "E0408",
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
    fn slice_size(
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
        // least 0, other sizes at least 1: seed 000), 0 <= lo, hi <= size
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

    fn cast(
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
        let (TyKind::Tensor(f), TyKind::Tensor(t)) = (&found.kind, &target.kind) else {
            self.diagnostics.push(
                Diagnostic::error("E0408", format!("`{}` converts tensors", kind.as_str()))
                    .with_primary(
                        span,
                        format!(
                            "`{}` {} `{}`",
                            show_ty(&found),
                            kind.as_str(),
                            show_ty(&target)
                        ),
                    ),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        // A shapeless target keeps the value's shape (seed).
        let shape = t.shape.clone().or_else(|| f.shape.clone());
        let domain = t.domain.clone().or_else(|| f.domain.clone());
        let dtype = t.dtype.or(f.dtype);
        let result = tensor(shape.clone(), domain, dtype, span);
        let line = self.ctx.env.map.line_col(span.file, span.start).line;
        let info = match kind {
            ast::CastKind::As => {
                if let (Some(fs), Some(ts)) = (&f.shape, &t.shape) {
                    if fs.len() != ts.len() {
                        self.diagnostics.push(
                            Diagnostic::error("E0401", format!("`as` can't change the number of axes: `{}` has {}, `{}` {}", show_ty(&found), fs.len(), show_ty(&target), ts.len()))
                                .with_primary(written.span, "a claim about the same axes")
                                .with_help("`as` states sizes the checker can't see; reshape with `to` or `rearrange`"),
                        );
                        return self.record(span, error_ty(span), ExprInfo::Plain);
                    }
                    // Sizes both known and different can never pass the run-time check.
                    for (x, y) in fs.iter().zip(ts) {
                        if let (Some(p), Some(q)) = (axis_poly(x), axis_poly(y)) {
                            let dims = self.ctx.env.dims;
                            let (vp, vq) = (
                                dims.substitute(&p).ok().and_then(|p| p.as_constant()),
                                dims.substitute(&q).ok().and_then(|q| q.as_constant()),
                            );
                            if let (Some(a), Some(b)) = (vp, vq) {
                                if a != b {
                                    self.diagnostics.push(
                                        Diagnostic::error("E0401", format!("`as` claims size {b} for an axis of size {a}"))
                                            .with_primary(written.span, format!("`{}` can never be `{}`", show_ty(&found), show_ty(&target)))
                                            .with_help("`as` is for sizes the checker can't see; this one it can"),
                                    );
                                    return self.record(span, error_ty(span), ExprInfo::Plain);
                                }
                            }
                        }
                    }
                }
                ExprInfo::As(AsCheck {
                    shape: t.shape.as_ref().map(|s| {
                        s.iter()
                            .filter_map(axis_poly)
                            .map(crate::size::Size::computed)
                            .collect()
                    }),
                    range: super::shape::range_of(&result),
                    line,
                })
            }
            ast::CastKind::To => {
                let mut reshape = None;
                if let (Some(fs), Some(ts)) = (&f.shape, &t.shape) {
                    let count = |s: &[Axis]| {
                        s.iter()
                            .try_fold(Poly::constant(1), |acc, a| acc.mul(&axis_poly(a)?).ok())
                    };
                    let (a, b) = (count(fs), count(ts));
                    if let (Some(a), Some(b)) = (a, b) {
                        if !self.ctx.env.dims.same_size(&a, &b) {
                            let dims = self.ctx.env.dims;
                            self.diagnostics.push(
                                Diagnostic::error("E0401", "`to` would change the number of elements")
                                    .with_primary(written.span, format!("{} elements here", show_size(dims, &b)))
                                    .with_secondary(inner.span, format!("`{}` has {} elements", show_ty(&found), show_size(dims, &a)))
                                    .with_help("a reshape keeps every element; check the sizes, or use `rearrange` to say which axes merge"),
                            );
                            return self.record(span, error_ty(span), ExprInfo::Plain);
                        }
                    }
                    let same = fs.len() == ts.len()
                        && fs
                            .iter()
                            .zip(ts)
                            .all(|(x, y)| match (axis_poly(x), axis_poly(y)) {
                                (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                                _ => true,
                            });
                    if !same {
                        reshape = Some(
                            ts.iter()
                                .filter_map(axis_poly)
                                .map(crate::size::Size::computed)
                                .collect(),
                        );
                    }
                }
                ExprInfo::To(ToPlan {
                    cast: t.dtype.filter(|d| Some(*d) != f.dtype),
                    clamp: t
                        .domain
                        .as_ref()
                        .and_then(|_| super::shape::range_of(&result))
                        .filter(|r: &Range| r.lo.is_finite() || r.hi.is_finite()),
                    reshape,
                })
            }
        };
        self.record(span, result, info)
    }
}

/// The least value a size can take, with unknown sizes at least 0 and other
/// symbols at least 1; `None` when a negative term makes it unbounded.
fn least_value(poly: &Poly) -> Option<i128> {
    let mut sum: i128 = 0;
    for term in poly.terms() {
        let factors = term.mono.factors();
        let least = if factors.is_empty() {
            term.coef
        } else if term.coef < 0 {
            return None;
        } else if factors
            .iter()
            .any(|(s, _)| matches!(s, Symbol::Unknown { .. }))
        {
            0
        } else {
            term.coef
        };
        sum = sum.checked_add(least)?;
    }
    Some(sum)
}

fn shapes_have_unknowns(shapes: &[&[Axis]]) -> bool {
    shapes
        .iter()
        .flat_map(|s| s.iter())
        .filter_map(axis_poly)
        .any(|p| {
            p.symbols()
                .iter()
                .any(|s| matches!(s, Symbol::Unknown { .. }))
        })
}

/// The name's axis position in a shape, by name.
pub(crate) fn position_of(shape: &[Axis], name: &str) -> Option<usize> {
    shape
        .iter()
        .position(|a| axis_name(a).is_some_and(|n| **n == *name))
}

pub(crate) fn names_of(shape: &[Axis]) -> Vec<Arc<str>> {
    shape.iter().filter_map(|a| axis_name(a).cloned()).collect()
}
