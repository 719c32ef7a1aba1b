//! Indexing (`docs/shapescript/functions.md`, Indexing), as PyTorch's: Ints
//! drop axes, slices known to fit keep their size (negative bounds count
//! from the end, steps divide rounding up) and others give an unknown one,
//! `none` adds an axis of size 1, `...` stands for the axes no other entry
//! takes, integer tensors and lists pick positions, Bool masks over the
//! leading axes give `[?k rest...]`, a stack gives one model, a tuple one
//! item. Part of `expr`.

use diag::{Diagnostic, Span};
use syntax::ast::{self, ScalarKind};

use super::expr::{least_value, scalar};
use super::{error_ty, FnChecker};
use crate::codes;
use crate::shape::{axis_of, axis_poly, axis_poly_ref, effective_dtype, is_float, show_ty, tensor};
use crate::size::Poly;
use crate::typed::{ExprInfo, IndexPlan};
use crate::types::{show_shape, Axis, DtypeKind, TensorTy, Ty, TyKind};

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
                        self.index_expr(x);
                    }
                }
                // `none`, `...` and lists pick no one model.
                let other = indices.iter().find(|i| match i {
                    ast::IndexArg::Expr(x) => matches!(x.kind, ast::ExprKind::None),
                    ast::IndexArg::Ellipsis(_) | ast::IndexArg::List { .. } => true,
                    ast::IndexArg::Slice { .. } => false,
                });
                if let Some(other) = other {
                    self.diagnostics.push(
                        Diagnostic::error(codes::E0408, "a stack of models is indexed by an `Int`")
                            .with_primary(index_span(other), "not one model of the stack")
                            .with_help(
                                "pick one model, as `self.blocks[0]`, or go over them with `for`",
                            ),
                    );
                    return self.record(span, error_ty(span), ExprInfo::Plain);
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
            let mty = self.index_expr(m);
            if let TyKind::Tensor(mt) = &mty.kind {
                // A `Bool` value of another dtype (`mask to f32`) is not one:
                // PyTorch reads i64 values as ids and refuses floats.
                if effective_dtype(mt) == Some(DtypeKind::Bool) {
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
                    let mut shape = vec![axis_of(self.mask_rows(m), span)];
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

    /// `x[...]` by positions as in PyTorch: Ints drop axes, slices keep
    /// them at their size, `none` adds an axis of size 1, `...` stands for
    /// the axes no other entry takes, and integer tensors and lists pick
    /// positions (their axes replace the picked ones, in place when the
    /// picks are adjacent, else first).
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
        let Some(entries) = self.index_entries(indices, first_checked) else {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        let taking = entries
            .iter()
            .filter(|e| !matches!(e, Entry::New | Entry::Rest))
            .count();
        if taking > axes.len() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::E0401,
                    format!("{taking} indices for a tensor of {} axes", axes.len()),
                )
                .with_primary(span, "too many indices")
                .with_note(format!("the tensor is `{}`", show_ty(ty))),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        match self.index_axes(span, axes, indices, &entries, axes.len() - taking) {
            Some(out) => {
                let result = tensor(Some(out), t.domain.clone(), t.dtype, span);
                self.record(span, result, ExprInfo::Index(IndexPlan::Basic))
            }
            None => self.record(span, error_ty(span), ExprInfo::Plain),
        }
    }

    /// Checks each entry of `x[...]` and says what it does; `None` after
    /// reporting an entry that is no index (or a second `...`).
    fn index_entries(
        &mut self,
        indices: &[ast::IndexArg],
        first_checked: Option<Ty>,
    ) -> Option<Vec<Entry>> {
        let mut entries = Vec::with_capacity(indices.len());
        let mut failed = false;
        let mut rest_seen = false;
        let mut first_checked = first_checked;
        for index in indices {
            let entry = match index {
                ast::IndexArg::Ellipsis(at) => {
                    if rest_seen {
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0408, "an index has at most one `...`")
                                .with_primary(*at, "a second `...`")
                                .with_help("keep one `...`, for the axes no other entry takes"),
                        );
                        failed = true;
                    }
                    rest_seen = true;
                    Entry::Rest
                }
                ast::IndexArg::Slice {
                    start, end, step, ..
                } => {
                    for part in [start, end, step].into_iter().flatten() {
                        let ty = self.expr(part);
                        if !matches!(ty.kind, TyKind::Scalar(ScalarKind::Int) | TyKind::Error) {
                            self.diagnostics.push(
                                Diagnostic::error(codes::E0408, "a slice's bounds and step are `Int`s")
                                    .with_primary(part.span, format!("this is `{}`", show_ty(&ty)))
                                    .with_note("`/` divides into a `Float` unless it divides sizes exactly (`D / 2`)")
                                    .with_help("slice by a size, or by an `Int` parameter computed before the call"),
                            );
                            failed = true;
                        }
                    }
                    if let Some(step) = step.as_deref().filter(|s| not_positive(s)) {
                        // PyTorch refuses these when it runs: say so now.
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0408, "a slice's step is at least 1")
                                .with_primary(step.span, "not a step PyTorch takes")
                                .with_help("to reverse an axis, declare `torch.flip` as an `extern fn` taking `dims: Axes[n]`"),
                        );
                        failed = true;
                    }
                    Entry::Slice
                }
                ast::IndexArg::List { items, span } => match self.list_index(items, *span) {
                    Some(entry) => entry,
                    None => {
                        failed = true;
                        continue;
                    }
                },
                ast::IndexArg::Expr(x) => {
                    let xt = match first_checked.take() {
                        Some(t) => t,
                        None => self.index_expr(x),
                    };
                    match self.expr_entry(x, &xt) {
                        Some(entry) => entry,
                        None => {
                            failed = true;
                            continue;
                        }
                    }
                }
            };
            entries.push(entry);
        }
        (!failed).then_some(entries)
    }

    /// The type of an index expression; `none` is an entry of its own
    /// there (a new axis), not a misplaced value.
    fn index_expr(&mut self, x: &ast::Expr) -> Ty {
        if matches!(x.kind, ast::ExprKind::None) {
            return self.record(x.span, error_ty(x.span), ExprInfo::Plain);
        }
        self.expr(x)
    }

    /// An expression entry: `none`, an Int, or an integer tensor.
    fn expr_entry(&mut self, x: &ast::Expr, xt: &Ty) -> Option<Entry> {
        if matches!(x.kind, ast::ExprKind::None) {
            return Some(Entry::New);
        }
        match &xt.kind {
            TyKind::Scalar(ScalarKind::Int) => return Some(Entry::Drop(self.static_index(x))),
            TyKind::Error => return Some(Entry::Drop(None)),
            TyKind::Tensor(it) => {
                let integer =
                    effective_dtype(it).is_some_and(|d| !is_float(d) && d != DtypeKind::Bool);
                if let (true, Some(shape)) = (integer, &it.shape) {
                    return Some(Entry::Pick(shape.to_vec()));
                }
            }
            _ => {}
        }
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0408,
                "an index is an `Int`, a slice, `none`, `...`, an integer tensor or a Bool mask",
            )
            .with_primary(x.span, format!("this is `{}`", show_ty(xt)))
            .with_help(
                "pick positions with an integer tensor, as `x[ids]` with `ids: [k] Index[n]`",
            ),
        );
        None
    }

    /// `[0, 2]`: Ints, picking that many positions.
    fn list_index(&mut self, items: &[ast::Expr], span: Span) -> Option<Entry> {
        let mut ok = true;
        for item in items {
            let it = self.expr(item);
            if !matches!(it.kind, TyKind::Scalar(ScalarKind::Int) | TyKind::Error) {
                self.diagnostics.push(
                    Diagnostic::error(codes::E0408, "a list index holds `Int`s")
                        .with_primary(item.span, format!("this is `{}`", show_ty(&it)))
                        .with_help("write the positions to pick, as in `x[[0, 2]]`"),
                );
                ok = false;
            }
        }
        if items.is_empty() {
            self.diagnostics.push(
                Diagnostic::error(codes::E0408, "an empty list index picks nothing")
                    .with_primary(span, "no positions")
                    .with_help("write the positions to pick, as in `x[[0, 2]]`"),
            );
            return None;
        }
        let len = i128::try_from(items.len()).unwrap_or(i128::MAX);
        ok.then(|| Entry::Pick(vec![axis_of(Poly::constant(len), span)]))
    }

    /// The result's axes: each entry applied to the axes it takes, `rest`
    /// axes for `...`; `None` after reporting picks of different shapes.
    fn index_axes(
        &mut self,
        span: Span,
        axes: &[Axis],
        indices: &[ast::IndexArg],
        entries: &[Entry],
        rest: usize,
    ) -> Option<Vec<Axis>> {
        let mut out: Vec<Axis> = Vec::with_capacity(axes.len() + 1);
        // The picks' shape, where it goes, how many separate runs of picks.
        let mut picks: Option<(&[Axis], usize)> = None;
        let mut runs = 0;
        let mut in_run = false;
        let mut pos = 0;
        for (entry, index) in entries.iter().zip(indices) {
            match entry {
                Entry::Drop(at) => {
                    if let Some(at) = at {
                        if !self.index_fits(*at, &axes[pos], index_span(index)) {
                            return None;
                        }
                    }
                    pos += 1;
                }
                Entry::New => {
                    out.push(axis_of(Poly::constant(1), index_span(index)));
                    in_run = false;
                }
                Entry::Rest => {
                    out.extend(axes[pos..pos + rest].iter().cloned());
                    pos += rest;
                    in_run &= rest == 0;
                }
                Entry::Slice => {
                    let ast::IndexArg::Slice {
                        start, end, step, ..
                    } = index
                    else {
                        continue;
                    };
                    let axis = &axes[pos];
                    // `:` is the whole axis as it is, an unknown size too.
                    let whole = start.is_none() && end.is_none() && step.is_none();
                    let size = if whole {
                        axis_poly(axis)
                    } else {
                        self.slice_size(axis, start.as_deref(), end.as_deref(), step.as_deref())
                    };
                    out.push(match size {
                        _ if whole => axis.clone(),
                        Some(poly) if poly == axis_poly(axis).unwrap_or_default() => axis.clone(),
                        Some(poly) => axis_of(poly, span),
                        None => axis_of(self.new_unknown("k"), span),
                    });
                    pos += 1;
                    in_run = false;
                }
                Entry::Pick(shape) => {
                    if !self.list_fits(index, &axes[pos]) {
                        return None;
                    }
                    match picks {
                        None => picks = Some((shape, out.len())),
                        Some((first, _)) => {
                            if !self.same_axes(first, shape) {
                                self.picks_differ(span, first, shape);
                                return None;
                            }
                        }
                    }
                    if !in_run {
                        runs += 1;
                    }
                    in_run = true;
                    pos += 1;
                }
            }
        }
        out.extend(axes[pos..].iter().cloned());
        if let Some((shape, at)) = picks {
            let at = if runs > 1 { 0 } else { at };
            out.splice(at..at, shape.iter().cloned());
        }
        Some(out)
    }

    /// Whether each position of a list index (`x[[0, 5]]`) known before
    /// the program runs lies on `axis`, as an Int index's must; integer
    /// tensors are the range pass's (`ranges/walk.rs`).
    fn list_fits(&mut self, index: &ast::IndexArg, axis: &Axis) -> bool {
        let ast::IndexArg::List { items, .. } = index else {
            return true;
        };
        items.iter().all(|item| match self.static_index(item) {
            Some(at) => self.index_fits(at, axis, item.span),
            None => true,
        })
    }

    /// Whether two shapes have the same sizes, axis by axis.
    fn same_axes(&self, a: &[Axis], b: &[Axis]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| match (axis_poly_ref(x), axis_poly_ref(y)) {
                    (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                    _ => true,
                })
    }

    /// E0401: two integer-tensor indices of different shapes.
    fn picks_differ(&mut self, span: Span, a: &[Axis], b: &[Axis]) {
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0401,
                format!(
                    "integer indices `{}` and `{}` have different shapes",
                    show_shape(a),
                    show_shape(b)
                ),
            )
            .with_primary(span, "indexed together here")
            .with_help(
                "integer indices used together pick positions pairwise, so their shapes are equal",
            ),
        );
    }

    /// The size of `a:b:s` on `axis` when both bounds are known to fit,
    /// else `None`. A negative bound counts from the end (`-1` is
    /// `size - 1`), and a step `s` gives the ceiling of the length over `s`
    /// when that division is exact for every size (`docs/shapescript/functions.md`).
    pub(super) fn slice_size(
        &self,
        axis: &Axis,
        start: Option<&ast::Expr>,
        end: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
    ) -> Option<Poly> {
        let size = axis_poly(axis)?;
        let dims = self.ctx.env.dims;
        let lo = match start {
            None => Poly::constant(0),
            Some(e) => self.slice_bound(e, &size)?,
        };
        let hi = match end {
            None => size.clone(),
            Some(e) => self.slice_bound(e, &size)?,
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
        if !(fits_hi && fits_lo && positive) {
            return None;
        }
        let Some(step) = step else {
            return Some(len);
        };
        // The ceiling of `len / step`: the constant term rounds up, and the
        // rest must divide exactly (`2*n + 1` by 2 is `n + 1`).
        let step = self.static_size(step)?.as_constant().filter(|s| *s >= 1)?;
        let len = dims.substitute(&len).ok()?;
        let (constant, rest) = len.split_constant()?;
        let whole = rest.div_exact(&Poly::constant(step)).ok()?;
        let up = constant.checked_neg()?.div_euclid(step).checked_neg()?;
        whole.add(&Poly::constant(up)).ok()
    }

    /// The value of an Int index known before the program runs: a number, a
    /// size, or one of them negated.
    fn static_index(&self, e: &ast::Expr) -> Option<i128> {
        let dims = self.ctx.env.dims;
        let value = |e: &ast::Expr| dims.value(&self.static_size(e)?);
        match &e.kind {
            ast::ExprKind::Unary {
                op: ast::UnaryOp::Neg,
                operand,
            } => value(operand)?.checked_neg(),
            _ => value(e),
        }
    }

    /// Whether the index `at` lies on `axis` for every size it may have
    /// (sizes at least 1: `docs/shapescript/sizes.md`); E0401 otherwise, as
    /// PyTorch raises an `IndexError`.
    fn index_fits(&mut self, at: i128, axis: &Axis, span: Span) -> bool {
        let dims = self.ctx.env.dims;
        let size = axis_poly(axis).and_then(|p| dims.substitute(&p).ok());
        let least = size.as_ref().and_then(least_value);
        let fits = least.is_some_and(|n| (0..n).contains(&at) || (-n..0).contains(&at));
        if fits {
            return true;
        }
        let shown = size.map_or_else(|| axis.to_string(), |p| p.to_string());
        self.diagnostics.push(
            Diagnostic::error(codes::E0401, format!("index {at} is out of bounds for an axis of size `{shown}`"))
                .with_primary(span, match least {
                    Some(n) if n.to_string() == shown => format!("the axis holds positions 0 to {}", n - 1),
                    Some(n) => format!("the axis may hold as few as {n} position{}", if n == 1 { "" } else { "s" }),
                    None => "the axis may be shorter".to_string(),
                })
                .with_note("PyTorch raises an `IndexError` for a position past the axis")
                .with_help("index within the axis, or state its size with `as` (checked when the program runs)"),
        );
        false
    }

    /// A slice bound as a position: `-c` counts from the end of `size`.
    fn slice_bound(&self, e: &ast::Expr, size: &Poly) -> Option<Poly> {
        if let ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } = &e.kind
        {
            let back = self.static_size(operand)?;
            if back.as_constant() == Some(0) {
                return Some(back);
            }
            return size.sub(&back).ok();
        }
        self.static_size(e)
    }
}

/// What one entry of `x[...]` does to the axes.
enum Entry {
    /// An Int: drops its axis; its value when known before the program
    /// runs (`x[10]`, `x[-1]`).
    Drop(Option<i128>),
    /// A slice: keeps its axis, at the slice's size.
    Slice,
    /// `none`: a new axis of size 1.
    New,
    /// `...`: the axes no other entry takes, unchanged.
    Rest,
    /// An integer tensor or list: picks positions along its axis; its shape.
    Pick(Vec<Axis>),
}

/// Whether a slice's step is written as 0 or a negative number (`::-1`).
fn not_positive(step: &ast::Expr) -> bool {
    match &step.kind {
        ast::ExprKind::Int(v) => *v == 0,
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } => matches!(operand.kind, ast::ExprKind::Int(_)),
        _ => false,
    }
}

/// Where one entry of `x[...]` was written.
fn index_span(index: &ast::IndexArg) -> Span {
    match index {
        ast::IndexArg::Expr(e) => e.span,
        ast::IndexArg::Slice { span, .. }
        | ast::IndexArg::Ellipsis(span)
        | ast::IndexArg::List { span, .. } => *span,
    }
}
