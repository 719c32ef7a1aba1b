//! Expressions other than calls: literals, names, fields, operators with
//! broadcasting by name, `@`, indexing, `as` and `to`. Each is recorded in
//! the body with its type; a failed one has `TyKind::Error`, which stays quiet.

use std::borrow::Cow;
use std::sync::Arc;

use syntax::Name;

use diag::{Diagnostic, Span};
use syntax::ast::{self, BinaryOp, ScalarKind};

use super::{error_ty, FnChecker};
use crate::broadcast::{broadcast, Failed};
use crate::codes;
use crate::model::instantiate;
use crate::program::Decl;
use crate::shape::{
    axis_name, axis_poly, axis_poly_ref, effective_dtype, is_float, shared_tensor, show_size,
    show_ty, tensor,
};
use crate::size::{Poly, Symbol};
use crate::typed::{Alignment, ExprInfo};
use crate::types::{Axis, Domain, DtypeKind, TensorTy, Ty, TyKind};

pub(super) fn scalar(kind: ScalarKind, span: Span) -> Ty {
    Ty {
        kind: TyKind::Scalar(kind),
        span,
    }
}

impl FnChecker<'_, '_> {
    /// The type of `e`, recorded with what to emit for it. Grows the stack
    /// when needed: this recursion follows the tree's depth.
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> Ty {
        syntax::ensure_sufficient_stack(|| self.expr_at_depth(e))
    }

    fn expr_at_depth(&mut self, e: &ast::Expr) -> Ty {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Int(_) => self.record(span, scalar(ScalarKind::Int, span), ExprInfo::Plain),
            ast::ExprKind::Float(_) => {
                self.record(span, scalar(ScalarKind::Float, span), ExprInfo::Plain)
            }
            ast::ExprKind::Bool(_) => {
                self.record(span, scalar(ScalarKind::Bool, span), ExprInfo::Plain)
            }
            // Passed for a parameter whose default is `none`, a call takes it
            // without asking its type (`value_args`); anywhere else it is no value.
            ast::ExprKind::None => self.misplaced(
                span,
                "`none`",
                "`none` only stands for a left-out argument: pass it for a parameter whose default is `none`, or leave the argument out",
            ),
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
                    (ast::UnaryOp::Neg, TyKind::Tensor(t)) => {
                        if self.negation_defined(&ty, operand.span) {
                            shared_tensor(t.shape.clone(), None, effective_dtype(t), span)
                        } else {
                            error_ty(span)
                        }
                    }
                    (ast::UnaryOp::Not, TyKind::Scalar(ScalarKind::Bool)) => ty,
                    (ast::UnaryOp::Not, TyKind::Tensor(t)) => {
                        shared_tensor(t.shape.clone(), Some(Domain::Bool), None, span)
                    }
                    _ => {
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0408, format!("`{}` can't be applied to `{}`", if *op == ast::UnaryOp::Neg { "-" } else { "not" }, show_ty(&ty)))
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
            Diagnostic::error(codes::E0408, format!("{what} can't be a value here"))
                .with_primary(span, "not a value")
                .with_help(help.to_string()),
        );
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    /// A dim or generic axis named as a value: its size, an Int.
    pub(crate) fn size_named(&self, name: Name) -> Option<Poly> {
        if self.local(name).is_some() {
            return None;
        }
        if let Some(g) = self.signature.generics.iter().find(|g| **g == name) {
            return Some(Poly::symbol(Symbol::Generic(*g)));
        }
        match self.ctx.env.program.decl(self.file, name) {
            Some(Decl::Dim(d, _)) => {
                self.ctx
                    .env
                    .dims
                    .entry(self.file, d.name.name)
                    .map(|(n, _)| {
                        Poly::symbol(Symbol::Dim {
                            file: self.file,
                            name: *n,
                        })
                    })
            }
            _ => None,
        }
    }

    /// The first axis of `ty` (a flattened type) whose size uses a generic
    /// axis the entry doesn't read, with that name.
    pub(crate) fn unread_in(&self, ty: &Ty) -> Option<(Span, Name)> {
        super::undetermined::alone(std::iter::once(ty), &self.unread)
    }

    /// E0306 for the generic axis `name`, which the entry doesn't read,
    /// needed as a value at `span`.
    pub(crate) fn report_unread(&mut self, span: Span, name: Name) {
        let mut d =
            super::undetermined::value_diagnostic(self.signature, &self.undetermined, span, name);
        // Read only from a parameter that may be left out.
        let source = self.body.generics.iter().find(|g| g.name == name);
        if let Some(g) = source.filter(|g| self.optional.get(g.param).copied().unwrap_or(false)) {
            d = d.with_note(format!(
                "only `{}` gives it, and its default is `none`: left out, it has no axes to read",
                self.signature.params[g.param].name
            ));
        }
        self.diagnostics.push(d);
    }

    /// The size an expression stands for before the program runs: a
    /// number, a dim or an axis name (`Size` arguments, pattern sizes).
    pub(crate) fn static_size(&self, e: &ast::Expr) -> Option<Poly> {
        match &e.kind {
            ast::ExprKind::Int(v) => i128::try_from(*v).ok().map(Poly::constant),
            // One known only inside a group has no value before the program runs.
            ast::ExprKind::Name(n) if self.unread.contains(&n.name) => None,
            ast::ExprKind::Name(n) => self.size_named(n.name),
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.static_size(lhs)?, self.static_size(rhs)?);
                match op {
                    BinaryOp::Add => a.add(&b).ok(),
                    BinaryOp::Sub => a.sub(&b).ok(),
                    BinaryOp::Mul => a.mul(&b).ok(),
                    // Exact, as sizes divide (`docs/shapescript/sizes.md`).
                    BinaryOp::Div => a.div_exact(&b).ok().or_else(|| {
                        let dims = self.ctx.env.dims;
                        let (a, b) = (dims.substitute(&a).ok()?, dims.substitute(&b).ok()?);
                        a.div_exact(&b).ok()
                    }),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The names a value may be written with here, for "did you mean":
    /// locals and parameters, then this file's dims.
    fn value_names(&self) -> Vec<&'static str> {
        let module = self.ctx.env.program.module(self.file);
        let dims = module
            .top_level_names()
            .filter(|&n| matches!(module.decl(n), Some(crate::program::Decl::Dim(..))));
        let locals = self.locals.iter().map(|l| l.name);
        locals.chain(dims).map(|n| n.as_str()).collect()
    }

    /// Whether the local declared at `decl` is a parameter with a `none`
    /// default.
    fn is_optional_param(&self, decl: Span) -> bool {
        self.body
            .params
            .iter()
            .zip(&self.optional)
            .any(|(p, o)| *o && p.span == decl)
    }

    /// E0408 for a parameter with a `none` default used as a value: left
    /// out, it is Python's `None`.
    #[cold]
    fn maybe_none(&mut self, name: &ast::Ident, decl: Span) {
        self.diagnostics.push(
            Diagnostic::error(codes::E0408, format!("`{}` may be `none` here", name.name))
                .with_primary(name.span, "left out, this is Python's `None`")
                .with_secondary(decl, "its default is `none`")
                .with_note("a parameter that may be left out is only passed on, to a parameter whose default is `none` too (`linear(x, w, bias)`)")
                .with_help("give it a default it can have, or take it without one"),
        );
    }

    fn name(&mut self, name: &ast::Ident) -> Ty {
        let span = name.span;
        if name.is_missing() {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        if let Some((ty, decl)) = self.local(name.name).map(|l| (l.ty.clone(), l.span)) {
            let ty = Ty { span, ..ty };
            self.note(span, crate::resolved::TypeName::Declared(decl));
            if self.is_optional_param(decl) && !self.passing_optional {
                self.maybe_none(name, decl);
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
            return self.record(span, ty, ExprInfo::Local { decl });
        }
        if let Some(size) = self.size_named(name.name) {
            if self.recorder().is_some() {
                self.note_size(name, size.as_symbol());
            }
            if self.unread.contains(&name.name) {
                self.report_unread(span, name.name);
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
            return self.record(
                span,
                scalar(ScalarKind::Int, span),
                ExprInfo::SizeValue {
                    size: crate::size::Size::computed(size),
                },
            );
        }
        let found = match self.ctx.env.program.decl(self.file, name.name) {
            Some(d) => Some((self.file, d)),
            None => crate::prelude::stub(self.ctx.env.program, self.ctx.library, &name.name),
        };
        // Not a value, but the name still means its declaration.
        if self.recorder().is_some() {
            match found {
                Some((file, _)) => self.note_decl(span, file, name.name),
                None => self.note_builtin(span, name.name),
            }
        }
        let found = found.map(|(_, d)| d);
        if found.is_none() && name.name == "inf" {
            // The float literal infinity (`docs/shapescript/functions.md`): `-inf` masks.
            return self.record(span, scalar(ScalarKind::Float, span), ExprInfo::Plain);
        }
        let what = match found {
            Some(d) => d.describe(),
            None if crate::builtins::is_builtin(&name.name) => "a built-in operation",
            None => {
                let help = match diag::closest(name.name.as_str(), self.value_names()) {
                    Some(best) => format!("a value with a similar name exists: `{best}`"),
                    None => "declare it with `let`, or take it as a parameter".to_string(),
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0301,
                        format!("cannot find `{}` in this scope", name.name),
                    )
                    .with_primary(span, "not a parameter, `let`, dim or axis name")
                    .with_help(help),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        };
        let d = if matches!(found, Some(Decl::Alias(..))) {
            // Not callable either: it stands for axes (`docs/shapescript/aliases.md`).
            Diagnostic::error(
                codes::E0303,
                format!("`{}` is a shape alias, not a value", name.name),
            )
            .with_primary(span, "an alias stands for several axes")
            .with_help(format!(
                "use it as a shape, as in `x: {0}` or `[{0} D]`; a size is a number, a dim or an axis name",
                name.name
            ))
        } else {
            Diagnostic::error(
                codes::E0408,
                format!("`{}` is {what}, not a value", name.name),
            )
            .with_primary(span, "not a value")
            .with_help(format!("call it: `{}(...)`", name.name))
        };
        self.diagnostics.push(d);
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    /// `base.name`: a field of a model or record (its type with the
    /// owner's size arguments), or another file's dim; E0409 for a field
    /// the type lacks.
    fn field(&mut self, e: &ast::Expr, base: &ast::Expr, name: &ast::Ident) -> Ty {
        let span = e.span;
        if let Some(ty) = self.other_files_dim(span, base, name) {
            return ty;
        }
        let base_ty = self.expr(base);
        let ty = match &base_ty.kind {
            TyKind::Error => error_ty(span),
            TyKind::Named {
                file,
                name: owner,
                args,
            } => {
                self.note_member(name.span, *file, *owner, name.name);
                let info = self.ctx.models.get(*file, owner);
                let field = info.and_then(|m| {
                    m.def
                        .fields
                        .iter()
                        .find(|f| *f.name == *name.name)
                        .map(|f| (f.ty.clone(), m.def.size_params.clone()))
                });
                let training = field.is_none()
                    && name.name == "training"
                    && info.is_some_and(|m| m.def.is_model);
                if training {
                    // `self.training`: the mode `model.train()`/`model.eval()` set.
                    return self.record(
                        span,
                        scalar(ScalarKind::Bool, span),
                        ExprInfo::Field {
                            file: *file,
                            owner: *owner,
                            field: name.name,
                        },
                    );
                }
                match field {
                    Some((ty, params)) => {
                        let ty = instantiate(&ty, &params, args);
                        let ty = Ty { span, ..ty };
                        return self.record(
                            span,
                            ty,
                            ExprInfo::Field {
                                file: *file,
                                owner: *owner,
                                field: name.name,
                            },
                        );
                    }
                    None => {
                        self.no_such_member(info, *owner, name, false);
                        error_ty(span)
                    }
                }
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0409,
                        format!("`{}` has no fields", show_ty(&base_ty)),
                    )
                    .with_primary(name.span, "no such field")
                    .with_note("only models and records have fields"),
                );
                error_ty(span)
            }
        };
        self.record(span, ty, ExprInfo::Plain)
    }

    /// `file.D` where `file` is an import: another file's dim, a size;
    /// E0408 for anything else of that file. `None` when `base` is no import.
    fn other_files_dim(&mut self, span: Span, base: &ast::Expr, name: &ast::Ident) -> Option<Ty> {
        if let ast::ExprKind::Name(file) = &base.kind {
            if self.local(file.name).is_none() {
                if let Some(Decl::Import(_, Some(target))) =
                    self.ctx.env.program.decl(self.file, file.name)
                {
                    self.note_decl(file.span, self.file, file.name);
                    if self.ctx.env.program.decl(target, name.name).is_some() {
                        self.note_decl(name.span, target, name.name);
                    }
                    if let Some(Decl::Dim(d, _)) = self.ctx.env.program.decl(target, name.name) {
                        if let Some((n, _)) = self.ctx.env.dims.entry(target, d.name.name) {
                            let size = Poly::symbol(Symbol::Dim {
                                file: target,
                                name: *n,
                            });
                            return Some(self.record(
                                span,
                                scalar(ScalarKind::Int, span),
                                ExprInfo::SizeValue {
                                    size: crate::size::Size::computed(size),
                                },
                            ));
                        }
                    }
                    let d = match self.ctx.env.program.decl(target, name.name) {
                        Some(Decl::Alias(..)) => Diagnostic::error(
                            codes::E0303,
                            format!("`{}.{}` is a shape alias, not a value", file.name, name.name),
                        )
                        .with_primary(span, "an alias stands for several axes")
                        .with_help(format!(
                            "use it as a shape, as in `x: {}.{}`; a size is a number, a dim or an axis name",
                            file.name, name.name
                        )),
                        _ => Diagnostic::error(
                            codes::E0408,
                            format!("`{}.{}` is not a value", file.name, name.name),
                        )
                        .with_primary(span, "not a value")
                        .with_help("another file's functions are called, and its dims are sizes"),
                    };
                    self.diagnostics.push(d);
                    return Some(self.record(span, error_ty(span), ExprInfo::Plain));
                }
            }
        }
        None
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
            // A size divided exactly is a size (`arange(D / 2)`).
            (TyKind::Scalar(ScalarKind::Int), TyKind::Scalar(ScalarKind::Int))
                if op == BinaryOp::Div && self.static_size(e).is_some() =>
            {
                let size = crate::size::Size::computed(self.static_size(e).unwrap_or_default());
                self.record(
                    span,
                    scalar(ScalarKind::Int, span),
                    ExprInfo::SizeValue { size },
                )
            }
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
                            codes::E0408,
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
                let Some((shape, _, alignments)) = self.elementwise(&operands, span, op.as_str())
                else {
                    return self.record(span, error_ty(span), ExprInfo::Plain);
                };
                let (domain, dtype) = if comparison || logic {
                    (Some(Domain::Bool), None)
                } else {
                    let dtype = self
                        .promoted(&operands, op.as_str())
                        .and_then(|d| self.operator_dtype(op, &operands, d));
                    let Some(dtype) = dtype else {
                        return self.record(span, error_ty(span), ExprInfo::Plain);
                    };
                    (None, dtype)
                };
                let ty = shared_tensor(shape, domain, dtype, span);
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
                        codes::E0408,
                        format!("`{}` takes tensors and numbers", op.as_str()),
                    )
                    .with_primary(bad.1, format!("this is `{}`", show_ty(bad.0))),
                );
                self.record(span, error_ty(span), ExprInfo::Plain)
            }
        }
    }

    /// Broadcasts elementwise operands (`docs/shapescript/broadcasting.md`) and unifies their float
    /// dtypes (E0502). Returns the shape (`None`: shapeless), dtype and alignments.
    #[allow(clippy::type_complexity)]
    pub(crate) fn elementwise(
        &mut self,
        operands: &[(&Ty, Span)],
        _span: Span,
        what: &str,
    ) -> Option<(Option<Arc<[Axis]>>, Option<DtypeKind>, Vec<Alignment>)> {
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
                    // An operand's shape as it is: share its axes.
                    Ok(b) => {
                        let shape = match b.shape {
                            Cow::Borrowed(s) => shaped
                                .iter()
                                .find(|(_, o)| std::ptr::eq(*o, s))
                                .and_then(|(i, _)| match &operands[*i].0.kind {
                                    TyKind::Tensor(t) => t.shape.clone(),
                                    _ => None,
                                })
                                .unwrap_or_else(|| s.into()),
                            Cow::Owned(v) => v.into(),
                        };
                        (Some(shape), b.positions)
                    }
                    Err(Failed::Ambiguous {
                        name,
                        note,
                        renamed,
                    }) => {
                        let by_rank = |(_, s): &&(usize, &[Axis])| s.len();
                        let small = shaped.iter().min_by_key(by_rank).map_or(0, |s| s.0);
                        let big = shaped.iter().max_by_key(by_rank).map_or(0, |s| s.0);
                        let at = (operands[big].1, operands[small].1);
                        let d = self.ambiguous_broadcast(name, note, renamed, at);
                        self.diagnostics.push(d);
                        return None;
                    }
                    Err(Failed::Note(note)) => {
                        let (first, second) = (shaped[0].0, shaped[shaped.len() - 1].0);
                        let show = |i: usize| show_ty(operands[i].0);
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0401, format!("shapes `{}` and `{}` don't broadcast", show(first), show(second)))
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

    /// E0411 for broadcasting: a name of one operand (at `small`) matches
    /// several axes of the other (`[n]` with `[b n n]`). The help renames
    /// the axis after the one it should pair with, when those have names.
    fn ambiguous_broadcast(
        &self,
        name: Name,
        note: String,
        renamed: Option<String>,
        (big, small): (Span, Span),
    ) -> Diagnostic {
        let mut d = Diagnostic::error(
            codes::E0411,
            format!("`{name}` matches more than one axis of the other operand"),
        )
        .with_primary(small, format!("`{name}` here"));
        if big != small {
            d = d.with_secondary(big, "has several axes it could pair with");
        }
        let help = match renamed {
            Some(side) => {
                let source = self.ctx.env.map.text(self.file);
                let value = source
                    .get(small.start as usize..small.end as usize)
                    .filter(|t| t.len() <= 24 && !t.contains('\n'))
                    .unwrap_or("x");
                format!("say which axis it pairs with by naming it so with a pattern, as in `rearrange({value}, {side} -> {side})`")
            }
            None => "give each axis its own name with a pattern, as in `rearrange(s, [b i j] -> [b i j])`, and use those names in both operands".to_string(),
        };
        d.with_note(note).with_help(help)
    }

    /// The one float dtype of elementwise operands; E0502 for a mix, of two
    /// float dtypes or of a concrete one with a tensor without a dtype
    /// (which is the caller's float dtype, bf16 in a bf16 model, so the
    /// operator would promote or fail there: docs/shapescript/functions.md).
    pub(crate) fn unify_dtypes(
        &mut self,
        operands: &[(&Ty, Span)],
        what: &str,
    ) -> Option<Option<DtypeKind>> {
        let mut dtype: Option<(DtypeKind, Span)> = None;
        let mut dtype_less: Option<Span> = None;
        for (ty, at) in operands {
            let TyKind::Tensor(t) = &ty.kind else {
                continue;
            };
            match effective_dtype(t) {
                None => {
                    dtype_less.get_or_insert(*at);
                }
                Some(d) if is_float(d) => match dtype {
                    Some((first, first_at)) if first != d => {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::E0502,
                                format!("`{what}` mixes {} and {}", first.as_str(), d.as_str()),
                            )
                            .with_primary(*at, format!("this is {}", d.as_str()))
                            .with_secondary(first_at, format!("this is {}", first.as_str()))
                            .with_help(format!("convert one side: `... to {}`", first.as_str())),
                        );
                        return None;
                    }
                    None => dtype = Some((d, *at)),
                    _ => {}
                },
                Some(_) => {}
            }
        }
        if let (Some((d, at)), Some(less)) = (dtype, dtype_less) {
            self.diagnostics
                .push(self.dtype_less_mix(what, d, at, less));
            return None;
        }
        Some(dtype.map(|(d, _)| d))
    }

    /// E0502 for a tensor without a dtype beside one of concrete float dtype `d`.
    #[cold]
    #[inline(never)]
    fn dtype_less_mix(&self, what: &str, d: DtypeKind, at: Span, less: Span) -> Diagnostic {
        let d_name = d.as_str();
        let (label, note, help) = match self.body.float_source {
            Some(_) => (
                "this has no dtype: it takes the caller's float dtype".to_string(),
                format!("a tensor without a dtype has the caller's float dtype, which may be another than {d_name} (a model converted with `.to(torch.bfloat16)`): there `{what}` would promote to {d_name} or fail"),
                format!("declare both without a dtype, or convert the other side: `... to {d_name}`"),
            ),
            None => (
                "this has no dtype: it is the default float dtype".to_string(),
                "the body's tensors have no one float dtype to give it: they have several, or none".to_string(),
                format!("convert it: `... to {d_name}`"),
            ),
        };
        Diagnostic::error(
            codes::E0502,
            format!("`{what}` mixes a tensor without a dtype and {d_name}"),
        )
        .with_primary(at, format!("this is {d_name}"))
        .with_secondary(less, label)
        .with_note(note)
        .with_help(help)
    }

    /// `a @ b`: contracts `a`'s last axis with `b`'s second-to-last (its
    /// only one for a vector), the batch axes broadcast by name.
    fn matmul(&mut self, e: &ast::Expr, lhs: &ast::Expr, rhs: &ast::Expr, a: &Ty, b: &Ty) -> Ty {
        let span = e.span;
        let (Some(sa), Some(sb)) = (a.shape(), b.shape()) else {
            self.diagnostics.push(
                Diagnostic::error(codes::E0408, "`@` takes tensors with shapes").with_primary(
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
        let Some(dtype) = self.product_dtype("@", &[(a, lhs.span), (b, rhs.span)]) else {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        if sa.is_empty() || sb.is_empty() {
            self.diagnostics.push(
                Diagnostic::error(codes::E0401, "`@` takes tensors of at least one axis")
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
        let (ka, kb) = (axis_poly_ref(k_a), axis_poly_ref(k_b));
        if let (Some(ka), Some(kb)) = (&ka, &kb) {
            if !self.ctx.env.dims.same_size(ka, kb) {
                let dims = self.ctx.env.dims;
                self.diagnostics.push(
                    Diagnostic::error(codes::E0401, format!("`@` of `{}` and `{}`: the inner sizes differ", show_ty(a), show_ty(b)))
                        .with_primary(rhs.span, format!("its {} axis is {}", if sb.len() == 1 { "only" } else { "second-to-last" }, show_size(dims, kb)))
                        .with_secondary(lhs.span, format!("its last axis is {}", show_size(dims, ka)))
                        .with_note("`a @ b` contracts the last axis of `a` with the second-to-last of `b` (the only one for a vector)")
                        .with_help("transpose one side with `rearrange`, or use `einsum` to name the contracted axis"),
                );
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        }
        let Some((mut shape, lhs, rhs)) = self.matmul_batch(span, a, b, sa, b_batch) else {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        if let Some(out) = b_out {
            shape.push(out.clone());
        }
        let ty = tensor(Some(shape), None, dtype, span);
        self.record(span, ty, ExprInfo::MatMul { lhs, rhs })
    }

    /// The result's leading axes: `a`'s but its last, and with `b`'s batch
    /// axes (`b_batch`) broadcast by name into `a`'s leading ones (E0401
    /// when they don't); and how each operand lines up for PyTorch's
    /// `matmul`, which broadcasts batch axes right-aligned: over the
    /// result's batch axes, then the operand's two matrix axes (`ExprInfo::
    /// MatMul`), so `[h b n d] @ [h d e]` reads `w[:, None]`.
    fn matmul_batch(
        &mut self,
        span: Span,
        a: &Ty,
        b: &Ty,
        sa: &[Axis],
        b_batch: &[Axis],
    ) -> Option<(Vec<Axis>, Alignment, Alignment)> {
        let plain = || Alignment { positions: None };
        if b_batch.is_empty() {
            return Some((sa[..sa.len() - 1].to_vec(), plain(), plain()));
        }
        let a_lead = &sa[..sa.len().saturating_sub(2)];
        match broadcast(self.ctx.env.dims, &[a_lead, b_batch]) {
            Ok(bc) => {
                let with_matrix = |positions: &[Option<usize>], rank: usize| Alignment {
                    positions: Some(
                        positions
                            .iter()
                            .copied()
                            .chain([Some(rank), Some(rank + 1)])
                            .collect(),
                    ),
                };
                let (lhs, rhs) = (
                    if sa.len() >= 2 {
                        with_matrix(&bc.positions[0], a_lead.len())
                    } else {
                        plain()
                    },
                    with_matrix(&bc.positions[1], b_batch.len()),
                );
                let mut shape = bc.shape.into_owned();
                if sa.len() >= 2 {
                    shape.push(sa[sa.len() - 2].clone());
                }
                Some((shape, lhs, rhs))
            }
            Err(Failed::Ambiguous { name, note, .. }) => {
                let d = self.ambiguous_broadcast(name, note, None, (span, span));
                self.diagnostics.push(d);
                None
            }
            Err(Failed::Note(note)) => {
                self.diagnostics.push(
                    Diagnostic::error(codes::E0401, "the batch axes of `@` don't broadcast")
                        .with_primary(span, format!("`{}` @ `{}`", show_ty(a), show_ty(b)))
                        .with_note(note),
                );
                None
            }
        }
    }
}

pub(super) use crate::size::least_value;

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

/// The name's axis position in a shape, by name, when it finds exactly one
/// (`shape::find_axis`).
pub(crate) fn position_of(shape: &[Axis], name: &str) -> Option<usize> {
    match crate::shape::find_axis(shape, name) {
        crate::shape::Found::One(p) => Some(p),
        _ => None,
    }
}

pub(crate) fn names_of(shape: &[Axis]) -> Vec<Name> {
    shape.iter().filter_map(|a| axis_name(a).cloned()).collect()
}
