//! The walk over one body's syntax tree: each expression's interval from
//! its children's and its typed record, with the edge checks where an
//! operation has an edge. Reports through `report`'s methods.

use diag::{Diagnostic, Span};
use smallvec::SmallVec;
use syntax::ast::{self, BinaryOp, ExprKind, StmtKind, UnaryOp};
use syntax::Name;

use super::interval::Interval;
use super::math::{Edge, MathFn};
use super::RangeEnv;
use crate::builtin_names::Builtin;
use crate::dims::DimValues;
use crate::size::{Poly, Symbol};
use crate::typed::{Body, BoundArg, CallInfo, Callee, ExprInfo, IndexPlan, PatternPlan, TypedExpr};
use crate::types::{Domain, ScalarKind, Ty, TyKind};

const INF: f64 = f64::INFINITY;

/// What the walk keeps between bodies, so a body allocates nothing new.
#[derive(Default)]
pub struct Scratch {
    /// Each `let`'s declaring span, interval and value's span.
    locals: Vec<(Span, Interval, Span)>,
    /// Names some statement rebinds (`x = ...`).
    rebound: Vec<Name>,
    /// The `let`s written with a type, by name and declaring span: a
    /// rebinding must fit the type's domain too.
    typed_lets: Vec<(Name, Span)>,
    /// Each expression's index in `Body::exprs` with its interval.
    pub found: Vec<(usize, Interval)>,
    /// Where in `Body::exprs` the next expression's record likely is: the
    /// walk goes children first, as `body` recorded them.
    cursor: usize,
    /// The last `topk` or `split` call walked, and its values' interval: a
    /// tuple has none of its own, a `let (..)` or `[i]` takes it.
    last_tuple: Option<LastTuple>,
}

/// A tuple-valued call's values: `topk`'s first item holds some of its
/// argument's values (its second, ids), each of `split`'s pieces does.
#[derive(Clone, Copy)]
struct LastTuple {
    span: Span,
    values: Interval,
    /// Every item holds the values (`split`), or only the first (`topk`).
    every_item: bool,
}

impl LastTuple {
    /// Whether item `i` of the tuple holds the values.
    fn holds(&self, i: usize) -> bool {
        self.every_item || i == 0
    }
}

/// How far from the cursor a record is looked for before the span index.
const NEAR: usize = 8;

/// Where a value goes that must fit a declared domain; put in words only
/// for a diagnostic.
#[derive(Clone, Copy)]
pub enum Place {
    Return,
    Let(Name),
    Arg { param: Name, callee: Name },
    Field { field: Name, record: Name },
}

/// What `Index[N]` ids index; put in words only for a diagnostic.
#[derive(Clone, Copy)]
pub enum IdsPlace<'a> {
    /// A parameter that takes `Index[size]` ids.
    Param {
        callee: Name,
        size: &'a crate::size::Size,
    },
    /// The axis `take`'s `over=` names.
    TakeAxis,
    /// `one_hot`'s number of classes.
    Classes,
    /// The axis (by position) integer ids pick from in `x[ids]`.
    Picked(usize),
}

/// The arguments of a call with their intervals, in written order.
pub(super) type ArgVals = SmallVec<[(Span, Option<Interval>); 4]>;

/// The walk over one body.
pub struct Walker<'w> {
    pub env: RangeEnv<'w>,
    pub body: &'w crate::typed::Body,
    /// Every body so far: a called method's parameters are its body's.
    pub bodies: &'w crate::typed::Bodies,
    pub scratch: &'w mut Scratch,
    pub diagnostics: &'w mut Vec<Diagnostic>,
}

impl<'w> Walker<'w> {
    pub fn new(
        env: RangeEnv<'w>,
        bodies: &'w crate::typed::Bodies,
        body: &'w Body,
        scratch: &'w mut Scratch,
        diagnostics: &'w mut Vec<Diagnostic>,
    ) -> Self {
        scratch.locals.clear();
        scratch.rebound.clear();
        scratch.typed_lets.clear();
        scratch.found.clear();
        scratch.cursor = 0;
        scratch.last_tuple = None;
        Walker {
            env,
            body,
            bodies,
            scratch,
            diagnostics,
        }
    }

    /// Walks the function's body; its value must fit the declared return type.
    pub fn function(&mut self, f: &ast::Fn) {
        if let ast::FnBody::Block(b) = &f.body {
            collect_rebound(b, &mut self.scratch.rebound);
        }
        let declared_return = f.ret.is_some() && !self.body.return_mismatch;
        match &f.body {
            ast::FnBody::Expr(e) => {
                let iv = self.expr(e);
                if declared_return {
                    self.fits_return(e, iv);
                }
            }
            ast::FnBody::Block(b) => {
                let n = b.stmts.len();
                for (i, stmt) in b.stmts.iter().enumerate() {
                    let value = self.stmt(stmt);
                    if let (true, true, StmtKind::Expr(e)) =
                        (declared_return, i + 1 == n, &stmt.kind)
                    {
                        self.fits_return(e, value);
                    }
                }
            }
        }
    }

    /// Walks a block's statements.
    fn block(&mut self, b: &ast::Block) {
        for stmt in &b.stmts {
            self.stmt(stmt);
        }
    }

    /// Walks one statement; an expression statement's interval is returned.
    fn stmt(&mut self, stmt: &ast::Stmt) -> Option<Interval> {
        match &stmt.kind {
            StmtKind::Let { name, ty, value } => {
                let iv = self.expr(value);
                self.bind_let(name, ty.is_some(), value, iv);
            }
            StmtKind::LetTuple { names, value } => {
                self.expr(value);
                self.bind_tuple_values(names, value);
            }
            StmtKind::Assign { name, value } => {
                let iv = self.expr(value);
                self.fits_rebinding(name, value, iv);
            }
            StmtKind::Return(value) => {
                let iv = self.expr(value);
                if !self.body.return_mismatch {
                    self.fits_return(value, iv);
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(cond);
                self.block(then_block);
                if let Some(b) = else_block {
                    self.block(b);
                }
            }
            StmtKind::For { iter, body, .. } => {
                self.expr(iter);
                self.block(body);
            }
            StmtKind::Expr(e) => return self.expr(e),
            // Kinds added later walk nothing until this pass learns them.
            #[allow(unreachable_patterns)]
            _ => {}
        }
        None
    }

    /// A `let`: a declared domain must hold the value; a name rebound later
    /// has its declared domain's interval (or none) from here on.
    fn bind_let(
        &mut self,
        name: &ast::Ident,
        typed: bool,
        value: &ast::Expr,
        iv: Option<Interval>,
    ) {
        if name.is_missing() {
            return;
        }
        let body: &'w Body = self.body;
        let declared = body
            .lets
            .iter()
            .find(|b| b.span == name.span)
            .map(|b| &b.ty);
        let declared_iv = declared
            .filter(|_| typed)
            .and_then(|ty| self.declared_domain(ty));
        if declared_iv.is_some() {
            self.scratch.typed_lets.push((name.name, name.span));
        }
        if let (Some(outer), Some(found), Some(ty)) = (declared_iv, iv, declared) {
            if !found.within(&outer) {
                self.outside_domain(value, found, ty, Place::Let(name.name));
            }
        }
        let kept = if self.scratch.rebound.contains(&name.name) {
            declared_iv.unwrap_or(Interval::REAL)
        } else {
            match (iv, declared_iv) {
                (Some(found), Some(outer)) => found.narrow_to(&outer),
                (Some(found), None) => found,
                (None, Some(outer)) => outer,
                (None, None) => return,
            }
        };
        self.scratch.locals.push((name.span, kept, value.span));
    }

    /// `let (values, ids) = topk(...)`: `values` has the values' interval
    /// (those of `topk`'s argument, `docs/shapescript/ranges.md`), `ids`
    /// its type's; `let (a, b) = split(...)`: each piece has its argument's.
    fn bind_tuple_values(&mut self, names: &[ast::Ident], value: &ast::Expr) {
        let Some(tuple) = self.scratch.last_tuple else {
            return;
        };
        if tuple.span != value.span {
            return;
        }
        for (i, name) in names.iter().enumerate() {
            if tuple.holds(i) && !name.is_missing() && !self.scratch.rebound.contains(&name.name) {
                self.scratch
                    .locals
                    .push((name.span, tuple.values, value.span));
            }
        }
    }

    /// `x = value` for a `let x: T`: the value must lie in `T`'s domain.
    fn fits_rebinding(&mut self, name: &ast::Ident, value: &ast::Expr, iv: Option<Interval>) {
        let Some(&(_, decl)) = self
            .scratch
            .typed_lets
            .iter()
            .rev()
            .find(|(n, _)| *n == name.name)
        else {
            return;
        };
        let body: &'w Body = self.body;
        if let Some(binding) = body.lets.iter().find(|b| b.span == decl) {
            self.fits(value, iv, &binding.ty, Place::Let(name.name));
        }
    }

    /// The returned value must lie in the declared return type's domain.
    fn fits_return(&mut self, e: &ast::Expr, iv: Option<Interval>) {
        let body: &'w Body = self.body;
        self.fits(e, iv, &body.ret, Place::Return);
    }

    /// `e` (with interval `iv`) must lie in `ty`'s domain; a tuple, item by item.
    pub(super) fn fits(&mut self, e: &ast::Expr, iv: Option<Interval>, ty: &Ty, what: Place) {
        match (&e.kind, &ty.kind) {
            (ExprKind::Tuple(items), TyKind::Tuple(tys)) if items.len() == tys.len() => {
                for (item, ty) in items.iter().zip(tys) {
                    let iv = self.interval_at(item.span);
                    self.fits(item, iv, ty, what);
                }
            }
            _ => {
                if let (Some(found), Some(outer)) = (iv, self.declared_domain(ty)) {
                    if !found.within(&outer) {
                        self.outside_domain(e, found, ty, what);
                    }
                }
            }
        }
    }

    /// The interval of a declared domain that narrows values: not `Real`,
    /// not `Index` (told by E0603) nor `Bool` (a dtype's business).
    pub(super) fn declared_domain(&self, ty: &Ty) -> Option<Interval> {
        match &ty.kind {
            TyKind::Tensor(t) => match t.domain.as_ref()? {
                Domain::Real | Domain::Index(_) | Domain::Bool => None,
                d => Some(Interval::of_domain(d, self.env.lowered.dims)),
            },
            _ => None,
        }
    }

    /// The span of the value a `let` declared at `decl` was given.
    pub(super) fn let_value(&self, decl: Span) -> Option<Span> {
        let found = self.scratch.locals.iter().rev().find(|(s, ..)| *s == decl);
        found.map(|(_, _, value)| *value)
    }

    /// The interval recorded for the expression at `span`.
    pub(super) fn interval_at(&self, span: Span) -> Option<Interval> {
        let i = self.body.expr_index(span)?;
        self.scratch
            .found
            .iter()
            .rev()
            .find(|(j, _)| *j == i)
            .map(|(_, iv)| *iv)
    }

    /// The typed record of the expression at `span`, by the span index.
    pub(super) fn typed(&self, span: Span) -> Option<&'w TypedExpr> {
        let body: &'w Body = self.body;
        body.expr(span)
    }

    /// The typed record of the expression at `span`, just walked: near the
    /// cursor (the walk meets records in about the order `body` made them),
    /// else by the span index (not for a `leaf` name).
    fn here(&mut self, span: Span, leaf: bool) -> Option<(usize, &'w TypedExpr)> {
        let body: &'w Body = self.body;
        let exprs = &body.exprs;
        let cursor = self.scratch.cursor.min(exprs.len());
        let ahead = cursor..(cursor + NEAR).min(exprs.len());
        let behind = (cursor.saturating_sub(NEAR)..cursor).rev();
        let near = ahead.chain(behind).find(|&i| exprs[i].span == span);
        let i = match near {
            Some(i) => i,
            // A name far from the cursor is an axis name (`over=n`, `h=H`),
            // which has no record: the index would only say so slower.
            None if leaf => return None,
            None => body.expr_index(span)?,
        };
        self.scratch.cursor = self.scratch.cursor.max(i + 1);
        Some((i, &exprs[i]))
    }

    /// Walks an expression; its interval, recorded for its typed record.
    pub fn expr(&mut self, e: &ast::Expr) -> Option<Interval> {
        self.walk(e).0
    }

    /// Walks an expression: its interval (recorded) and its typed record.
    fn walk(&mut self, e: &ast::Expr) -> (Option<Interval>, Option<&'w TypedExpr>) {
        let (mut iv, at) = self.compute(e);
        let Some((i, typed)) = at else {
            return (None, None);
        };
        if matches!(typed.ty.kind, TyKind::Error) {
            return (None, Some(typed));
        }
        if let (Some(v), Some(bits)) = (iv, grid_bits(typed)) {
            // A float tensor holds its dtype's floats (`Interval::on_grid`),
            // and past its largest finite one, infinities.
            iv = Some(v.on_grid(bits).overflowing(float_max(typed)));
        }
        if let (Some(v), Some(range)) = (iv, integer_range(typed)) {
            // An integer tensor holds its dtype's integers; arithmetic
            // past them wraps around (`x * x` of an i32 50000 is negative).
            if !v.within(&wrap_free(range)) && self.may_wrap(e) {
                iv = Some(range);
            }
        }
        if let Some(iv) = &mut iv {
            // Other operations move or mix the axes: the row's largest
            // value goes with its `softmax`, a name, or `topk(...)[0]`.
            if (iv.row_max_axis.is_some() || iv.row_zero_axis.is_some())
                && !self.keeps_row_max(e, typed)
            {
                iv.row_max_axis = None;
                iv.row_zero_axis = None;
            }
            self.scratch.found.push((i, *iv));
        }
        (iv, Some(typed))
    }

    /// Whether `e` computes integers that may wrap around past its dtype's
    /// range: arithmetic, conversions, sums and products (a sum of values
    /// in [-1, 1] does not: it counts at most as many as a tensor holds).
    /// Names, indexing and selections hold values of their dtype already.
    pub(super) fn may_wrap(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Binary { op, .. } => matches!(
                op,
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Pow | BinaryOp::MatMul
            ),
            ExprKind::Unary { op, .. } => *op == UnaryOp::Neg,
            // A `to` naming a domain clamps again in integers (`cast`).
            ExprKind::Cast { kind, ty, .. } => {
                *kind != ast::CastKind::To
                    || !matches!(
                        &ty.kind,
                        ast::TypeKind::Tensor {
                            domain: Some(_),
                            ..
                        }
                    )
            }
            ExprKind::Call { args, .. } => {
                let Some(ExprInfo::Call(call)) = self.typed(e.span).map(|t| &t.info) else {
                    return false;
                };
                let Callee::Builtin(b) = call.callee else {
                    return false;
                };
                let small = || {
                    arg_expr(args, 0, "x")
                        .and_then(|x| self.interval_at(x.span))
                        .is_some_and(|i| i.within(&Interval::closed(-1.0, 1.0)))
                };
                match b {
                    Builtin::Abs | Builtin::Prod | Builtin::Einsum => true,
                    Builtin::Sum | Builtin::Cumsum => !small(),
                    Builtin::Reduce => match &call.pattern {
                        Some(PatternPlan::Layout(plan)) => {
                            match plan.reduce.as_ref().map(|(op, _)| &**op) {
                                Some("prod") => true,
                                Some("sum") => !small(),
                                _ => false,
                            }
                        }
                        _ => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Whether `e` has the values it was made from along the same axes:
    /// a name, `softmax`, `topk(...)[0]`.
    fn keeps_row_max(&self, e: &ast::Expr, typed: &TypedExpr) -> bool {
        match (&e.kind, &typed.info) {
            (ExprKind::Name(_), _) => true,
            (ExprKind::Index { base, .. }, _) => {
                self.scratch.last_tuple.is_some_and(|t| t.span == base.span)
            }
            (_, ExprInfo::Call(call)) => match &call.callee {
                Callee::Builtin(b) => *b == Builtin::Softmax,
                Callee::Extern { python, .. } => {
                    MathFn::from_python(python).is_some_and(MathFn::keeps_row_max)
                }
                _ => false,
            },
            // `x - max(x, over=n)` (`binary`).
            (ExprKind::Binary { .. }, _) => true,
            _ => false,
        }
    }

    /// The interval of `e` and its typed record, its children walked first.
    fn compute(&mut self, e: &ast::Expr) -> (Option<Interval>, Option<(usize, &'w TypedExpr)>) {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => (Some(Interval::point(*v as f64)), self.here(span, false)),
            ExprKind::Float(v) => (Some(Interval::point(*v)), self.here(span, false)),
            ExprKind::Bool(b) => (
                Some(Interval::point(if *b { 1.0 } else { 0.0 })),
                self.here(span, false),
            ),
            ExprKind::Str(_) | ExprKind::None | ExprKind::Error => (None, None),
            ExprKind::Pattern(_) | ExprKind::Shape(_) | ExprKind::AxisGroup(_) => (None, None),
            ExprKind::Name(_) => {
                let at = self.here(span, true);
                (at.and_then(|(_, t)| self.name(t)), at)
            }
            ExprKind::Field { base, .. } => {
                self.expr(base);
                let at = self.here(span, false);
                (at.and_then(|(_, t)| self.of_ty(&t.ty)), at)
            }
            ExprKind::Call { args, .. } => {
                let vals: ArgVals = args
                    .iter()
                    .map(|a| (a.value.span, self.expr(&a.value)))
                    .collect();
                let at = self.here(span, false);
                let iv = at.and_then(|(_, typed)| match &typed.info {
                    ExprInfo::Call(call) => self.call(e, args, &vals, call, typed),
                    _ => self.of_ty(&typed.ty),
                });
                (iv, at)
            }
            ExprKind::Index { base, indices } => {
                let iv = self.expr(base);
                for index in indices {
                    if let ast::IndexArg::Expr(x) = index {
                        self.expr(x);
                    }
                }
                let at = self.here(span, false);
                if let Some((_, typed)) = at {
                    if matches!(typed.info, ExprInfo::Index(IndexPlan::Basic)) {
                        self.picked_ids(e, base, indices);
                    }
                }
                let iv = iv.or_else(|| self.tuple_values(base, indices));
                (iv.or_else(|| self.of_ty(&at?.1.ty)), at)
            }
            ExprKind::Unary { op, operand } => {
                let iv = self.walk(operand);
                let iv = held(iv.0, iv.1);
                let iv = match op {
                    UnaryOp::Neg => iv.map(|i| i.neg()),
                    UnaryOp::Not => Some(Interval::UNIT),
                };
                (iv, self.here(span, false))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let iv = self.binary(*op, lhs, rhs, span);
                (iv, self.here(span, false))
            }
            ExprKind::Cast { expr, ty, .. } => {
                let iv = self.walk(expr);
                let iv = held(iv.0, iv.1);
                let at = self.here(span, false);
                let iv = at.and_then(|(_, t)| self.cast(iv, ty, t));
                // A float dtype whose least positive value is larger may
                // round tiny values to 0: `x to f32` of an f64 `Pos` value
                // (2^-1074 is 0 in f32), `x to f16` of a bf16 one (1e-30),
                // so an open 0 end is reached; `(x to f64) to bf16` of a
                // bf16 `x` is `x`.
                let to = at.and_then(|(_, t)| float_least_positive(t));
                let underflows = to.is_some_and(|to| to > self.least_positive(expr));
                (iv.map(|i| i.underflowing(underflows)), at)
            }
            ExprKind::Tuple(items) => {
                for item in items {
                    self.expr(item);
                }
                (None, self.here(span, false))
            }
            // Kinds added later walk nothing until this pass learns them.
            #[allow(unreachable_patterns)]
            _ => (None, None),
        }
    }

    /// The least magnitude a nonzero value of `e` may have: its float
    /// dtype's least positive value, the largest along a chain of
    /// conversions (each leaves values on its dtype's numbers); 1 for
    /// integers and booleans.
    fn least_positive(&self, e: &ast::Expr) -> f64 {
        let Some(typed) = self.typed(e.span) else {
            return 0.0;
        };
        let own = float_least_positive(typed).unwrap_or(match &typed.ty.kind {
            TyKind::Tensor(_) | TyKind::Scalar(ScalarKind::Int | ScalarKind::Bool) => 1.0,
            _ => 0.0,
        });
        match &e.kind {
            ExprKind::Cast { expr, .. } => own.max(self.least_positive(expr)),
            _ => own,
        }
    }

    /// A name: a local's interval, a size's value, or its type's domain.
    fn name(&mut self, typed: &TypedExpr) -> Option<Interval> {
        match &typed.info {
            ExprInfo::Local { decl } => {
                let found = self.scratch.locals.iter().rev().find(|(s, ..)| s == decl);
                match found {
                    Some((_, iv, _)) => Some(*iv),
                    None => self
                        .body
                        .params
                        .iter()
                        .chain(self.body.lets.iter())
                        .find(|b| b.span == *decl)
                        .and_then(|b| self.of_ty(&b.ty))
                        .or_else(|| self.of_ty(&typed.ty)),
                }
            }
            ExprInfo::SizeValue { size } => Some(match self.env.lowered.dims.value(&size.poly) {
                Some(v) => Interval::point(v as f64),
                None => Interval::new(1.0, INF, false, true),
            }),
            _ => self.of_ty(&typed.ty),
        }
    }

    /// The interval a type's domain gives: `Real` for a float tensor or
    /// number without one, `[0, 1]` for booleans; none for other types.
    pub(super) fn of_ty(&self, ty: &Ty) -> Option<Interval> {
        match &ty.kind {
            TyKind::Tensor(t) => Some(match &t.domain {
                Some(d) => Interval::of_domain(d, self.env.lowered.dims),
                None if t.dtype == Some(ast::DtypeKind::Bool) => Interval::UNIT,
                None => Interval::REAL,
            }),
            TyKind::Scalar(ScalarKind::Bool) => Some(Interval::UNIT),
            // A Python number has no domain: `Real` until `as` or `to` narrows it.
            TyKind::Scalar(_) => Some(Interval::REAL),
            _ => None,
        }
    }

    /// An operator's interval, with the division's edge check.
    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Interval> {
        let (a, lt) = self.walk(lhs);
        let (b, rt) = self.walk(rhs);
        // A Python number meets a float tensor as that tensor's dtype: on
        // its grid, and in f16 within its range (`1e-8` is 0 there).
        let result = self.typed(span);
        let half = result.is_some_and(
            |t| matches!(&t.ty.kind, TyKind::Tensor(x) if x.dtype == Some(ast::DtypeKind::F16)),
        );
        let bits = result.and_then(grid_bits);
        let floats = result.is_some_and(|t| computes_floats(t, op == BinaryOp::Pow));
        let as_operand = |iv: Option<Interval>, typed: Option<&TypedExpr>| match (typed, bits) {
            (Some(t), Some(bits)) if matches!(t.ty.kind, TyKind::Scalar(_)) => iv.map(|i| {
                let i = if half { i.in_f16() } else { i };
                i.on_grid(bits)
            }),
            _ => iv,
        };
        let (a, b) = (as_operand(a, lt), as_operand(b, rt));
        if op == BinaryOp::Pow {
            self.integer_power(span, rhs, b);
        }
        let (a, b) = (held(a, lt), held(b, rt));
        match op {
            BinaryOp::Or
            | BinaryOp::And
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => return Some(Interval::UNIT),
            _ => {}
        }
        let (mut a, b) = (a?, b?);
        if op == BinaryOp::Pow && floats && a.goes_below(0.0) && !self.whole(rhs, &b) {
            self.fractional_power(lhs, rhs, a);
            // Said once: the rest of the program sees the defined part.
            a = a.narrow_to(&Interval::NON_NEG);
        }
        Some(match op {
            BinaryOp::Add => a.add(&b),
            BinaryOp::Sub => match self.shifted_by_row_max(lhs, rhs) {
                Some(axis) => Interval {
                    row_zero_axis: Some(axis),
                    ..Interval::NON_POS
                },
                None => a.sub(&b),
            },
            BinaryOp::Mul if same_local(lt, rt) => a.square().underflowing(floats),
            BinaryOp::Mul => a.mul(&b).underflowing(floats),
            BinaryOp::Div => {
                if b.contains(0.0) {
                    self.division_by_zero(rhs, b);
                }
                let q = a.div(&b).underflowing(floats);
                match (bits, rt.map(|t| &t.ty.kind)) {
                    // On a GPU, PyTorch multiplies a tensor by a number's
                    // reciprocal instead of dividing: two roundings.
                    (Some(bits), Some(TyKind::Scalar(_))) => {
                        q.moved_out(bits, 2.0, |v| exact_quotient(v, &a, &b))
                    }
                    _ => q,
                }
            }
            BinaryOp::MatMul => a.mul(&b).underflowing(floats).sum_of(),
            BinaryOp::Pow if b.lo == b.hi => {
                let p = a.powf(b.lo).underflowing(floats);
                match bits {
                    Some(bits) => power_rounded(p, &a, b.lo, bits),
                    None => p,
                }
            }
            BinaryOp::Pow if !a.reaches_down_to(0.0) => Interval::POS.underflowing(floats),
            _ => Interval::REAL,
        })
    }

    /// Whether the exponent `e` (of interval `iv`) is a whole number: one
    /// written so, or of an integer type.
    fn whole(&self, e: &ast::Expr, iv: &Interval) -> bool {
        let integer = self.typed(e.span).is_some_and(|t| match &t.ty.kind {
            TyKind::Scalar(ScalarKind::Int) => true,
            TyKind::Tensor(x) => {
                crate::shape::effective_dtype(x).is_some_and(|d| !crate::shape::is_float(d))
            }
            _ => false,
        });
        integer || (iv.lo == iv.hi && iv.lo.fract() == 0.0)
    }

    /// An integer power (`[n] i64 ** e`) whose exponent may be negative:
    /// PyTorch raises `Integers to negative integer powers are not
    /// allowed` (E0607).
    fn integer_power(&mut self, span: Span, exponent: &ast::Expr, b: Option<Interval>) {
        let integral = self.typed(span).is_some_and(|t| match &t.ty.kind {
            TyKind::Tensor(x) => {
                crate::shape::effective_dtype(x).is_some_and(|d| !crate::shape::is_float(d))
            }
            _ => false,
        });
        if integral && b.is_none_or(|b| b.goes_below(0.0)) {
            self.negative_power(exponent, b);
        }
    }

    /// `x - max(x, over=n)`: the same local less its maximum over one axis,
    /// whose rows then hold a 0 as their largest value; that axis.
    fn shifted_by_row_max(&self, lhs: &ast::Expr, rhs: &ast::Expr) -> Option<u8> {
        let ExprKind::Call { args, .. } = &rhs.kind else {
            return None;
        };
        let Some(ExprInfo::Call(call)) = self.typed(rhs.span).map(|t| &t.info) else {
            return None;
        };
        if !matches!(call.callee, Callee::Builtin(Builtin::Max)) {
            return None;
        }
        let x = args.iter().find(|a| a.name.is_none())?;
        self.same_local(lhs, &x.value).then(|| one_axis(call))?
    }

    /// `x * x`: the same local on both sides.
    pub(super) fn same_local(&self, a: &ast::Expr, b: &ast::Expr) -> bool {
        same_local(self.typed(a.span), self.typed(b.span))
    }

    /// `e as T` narrows to `T`'s domain (checked when the program runs);
    /// `e to T` clamps into it.
    fn cast(
        &mut self,
        iv: Option<Interval>,
        written: &ast::Type,
        typed: &TypedExpr,
    ) -> Option<Interval> {
        let names_domain = matches!(
            &written.kind,
            ast::TypeKind::Tensor {
                domain: Some(_),
                ..
            }
        );
        // A number keeps its type; the domain it was narrowed to is the plan's.
        let target = match (&typed.ty.kind, &typed.info) {
            (TyKind::Scalar(_), ExprInfo::As(check)) => check.range.map(Interval::of_range),
            (TyKind::Scalar(_), ExprInfo::To(plan)) => plan.clamp.map(Interval::of_range),
            _ => None,
        };
        let target = target.or_else(|| self.of_ty(&typed.ty));
        match (iv, target) {
            // Into integers, clamped again once converted (pygen's
            // `int_clamp`): whole values of the domain, within the dtype.
            (Some(found), Some(outer)) if names_domain && integer_range(typed).is_some() => {
                let range = integer_range(typed)?;
                let whole = Interval::closed(found.lo.trunc(), found.hi.trunc())
                    .intersect(&range)
                    .unwrap_or(range);
                // The domain's whole numbers: `Pos` is [1, inf).
                let lo =
                    outer.lo.ceil() + f64::from(u8::from(outer.lo_open && outer.lo.fract() == 0.0));
                let hi = outer.hi.floor()
                    - f64::from(u8::from(outer.hi_open && outer.hi.fract() == 0.0));
                let domain = Interval::new(lo, hi, lo.is_infinite(), hi.is_infinite());
                Some(whole.narrow_to(&domain))
            }
            (Some(found), Some(outer)) if names_domain => Some(found.narrow_to(&outer)),
            (Some(found), _) => Some(found),
            (None, target) => target,
        }
    }

    /// A call: built-ins by their rules, externs by their math (or their
    /// return type), with the edge and domain checks of each.
    fn call(
        &mut self,
        e: &ast::Expr,
        args: &[ast::Arg],
        vals: &ArgVals,
        call: &CallInfo,
        typed: &TypedExpr,
    ) -> Option<Interval> {
        match &call.callee {
            Callee::Builtin(b) => self.builtin(*b, e, args, vals, call, typed),
            Callee::Extern { python, .. } => {
                self.check_params(e, &call.callee, vals, call);
                match MathFn::from_python(python) {
                    Some(f) => self
                        .math(f, e, vals, call)
                        .or_else(|| self.of_ty(&typed.ty)),
                    None => self.of_ty(&typed.ty),
                }
            }
            Callee::Fn { .. } | Callee::Method { .. } => {
                self.check_params(e, &call.callee, vals, call);
                self.of_ty(&typed.ty)
            }
            Callee::Record { .. } => {
                self.check_params(e, &call.callee, vals, call);
                self.of_ty(&typed.ty)
            }
        }
    }

    /// The interval of the argument bound to parameter `i`, with its expression's span.
    pub(super) fn bound(
        &self,
        call: &CallInfo,
        i: usize,
        vals: &ArgVals,
    ) -> Option<(Span, Interval)> {
        let BoundArg::Expr { span, .. } = call.args.get(i)? else {
            return None;
        };
        let (_, iv) = vals.iter().find(|(s, _)| s == span)?;
        Some((*span, (*iv)?))
    }

    /// A function whose math the checker knows: its edge checked, its range computed.
    fn math(
        &mut self,
        f: MathFn,
        e: &ast::Expr,
        vals: &ArgVals,
        call: &CallInfo,
    ) -> Option<Interval> {
        let (span, x) = self.bound(call, 0, vals)?;
        if let Some(edge) = f.edge() {
            let outside = match edge {
                Edge::Positive => x.goes_below(0.0) || x.contains(0.0),
                Edge::NonNegative => x.goes_below(0.0),
                Edge::AboveMinusOne => x.reaches_down_to(-1.0),
            };
            if let (true, Some(arg)) = (outside, find_arg(e, span)) {
                self.outside_edge(f, edge, e, arg, x);
            }
        }
        let mut out = f.apply(&x);
        if f.keeps_row_max() {
            out.row_max_axis = x.row_max_axis.or(x.row_zero_axis);
        }
        Some(out)
    }

    /// Arguments given to a `fn`, `extern fn` or method: each within its
    /// parameter's domain, and `Index[N]` ids of the size the parameter's
    /// `Index[V]` has once the call's sizes are known (E0603).
    fn check_params(&mut self, e: &ast::Expr, callee: &Callee, vals: &ArgVals, call: &CallInfo) {
        let (params, name): (SmallVec<[(Name, &'w Ty); 8]>, Name) = match callee {
            Callee::Fn { file, name } | Callee::Extern { file, name, .. } => {
                let signatures: &'w crate::signature::Signatures = self.env.signatures;
                let Some(sig) = signatures.get(&(*file, *name)) else {
                    return;
                };
                (sig.params.iter().map(|p| (p.name, &p.ty)).collect(), *name)
            }
            Callee::Method {
                file,
                model,
                method,
            } => {
                let bodies: &'w crate::typed::Bodies = self.bodies;
                let Some(body) = bodies.method(*file, *model, *method) else {
                    return;
                };
                (
                    body.params.iter().map(|p| (p.name, &p.ty)).collect(),
                    *method,
                )
            }
            // A record's fields, in order, as `body` bound the values.
            Callee::Record { file, name } => {
                let models: &'w crate::model::Models = self.env.models;
                let Some(info) = models.get(*file, *name) else {
                    return;
                };
                (
                    info.def.fields.iter().map(|f| (f.name, &f.ty)).collect(),
                    *name,
                )
            }
            _ => return,
        };
        let is_record = matches!(callee, Callee::Record { .. });
        for (i, (param, ty)) in params.into_iter().enumerate() {
            let Some((span, iv)) = self.bound(call, i, vals) else {
                continue;
            };
            let Some(arg) = find_arg(e, span) else {
                continue;
            };
            if let TyKind::Tensor(t) = &ty.kind {
                if let Some(Domain::Index(v)) = &t.domain {
                    let want = substitute(&v.poly, &call.bindings);
                    self.ids_fit(
                        arg,
                        want.as_ref(),
                        IdsPlace::Param {
                            callee: name,
                            size: v,
                        },
                        e,
                    );
                    continue;
                }
            }
            let place = match is_record {
                true => Place::Field {
                    field: param,
                    record: name,
                },
                false => Place::Arg {
                    param,
                    callee: name,
                },
            };
            self.fits(arg, Some(iv), ty, place);
        }
    }

    /// Ids where `Index[V]` is wanted (`V` is `want`): `Index[N]` ids whose
    /// `N` is `V` (by value, or the same size), or integers whose range lies
    /// in `[0, V - 1]`; anything else may reach past the axis (E0603).
    pub(super) fn ids_fit(
        &mut self,
        ids: &ast::Expr,
        want: Option<&Poly>,
        what: IdsPlace,
        call: &ast::Expr,
    ) {
        let Some(typed) = self.typed(ids.span) else {
            return;
        };
        let TyKind::Tensor(t) = &typed.ty.kind else {
            return;
        };
        let Some(want) = want else {
            return;
        };
        let dims = self.env.lowered.dims;
        let want_value = dims.value(want).or(want.as_constant());
        if let Some(Domain::Index(n)) = &t.domain {
            let have = dims.value(&n.poly).or(n.poly.as_constant());
            match (have, want_value) {
                (Some(have), Some(want)) if have != want => {
                    self.ids_mismatch(ids, (n, have), want, what, call)
                }
                (Some(_), Some(_)) => {}
                _ if dims.same_size(&n.poly, want) => {}
                _ => self.ids_unbounded(ids, None, want, what, call),
            }
            return;
        }
        let fits = want_value.is_some_and(|v| {
            self.interval_at(ids.span)
                .is_some_and(|iv| iv.within(&Interval::closed(0.0, (v - 1) as f64)))
        });
        if !fits {
            let iv = self.interval_at(ids.span);
            self.ids_unbounded(ids, iv, want, what, call);
        }
    }

    /// A built-in's interval, by its typing rule's math.
    fn builtin(
        &mut self,
        b: Builtin,
        e: &ast::Expr,
        args: &[ast::Arg],
        vals: &ArgVals,
        call: &CallInfo,
        typed: &TypedExpr,
    ) -> Option<Interval> {
        use Builtin as B;
        let arg = |pos: usize, name: &str| arg_val(args, vals, pos, name);
        // Arithmetic reads integers within their dtype's range (`held`).
        let x = match b {
            B::Abs | B::Sum | B::Cumsum | B::Prod | B::Reduce => held(
                arg(0, "x"),
                arg_expr(args, 0, "x").and_then(|x| self.typed(x.span)),
            ),
            _ => arg(0, "x"),
        };
        // Products of floats may underflow to 0 (`Interval::underflowing`).
        let floats = computes_floats(typed, false);
        let iv = match b {
            B::Sum | B::Mean | B::Max if over_row_max(x?, call) => {
                let iv = if b == B::Sum { x?.sum_of() } else { x? };
                iv.above_row_max()
            }
            // A sum of no values (a mask's rows may be none) is 0, a
            // product of none 1.
            B::Sum if self.may_be_empty(args, call) => x?.sum_of().union(&Interval::point(0.0)),
            B::Sum | B::Cumsum => x?.sum_of(),
            B::Mean => mean_rounded(x?, grid_bits(typed)),
            B::Max | B::Min | B::Sort | B::Rearrange | B::Repeat => x?,
            B::Prod if self.may_be_empty(args, call) => x?
                .product_of()
                .underflowing(floats)
                .union(&Interval::point(1.0)),
            B::Prod => x?.product_of().underflowing(floats),
            B::Logsumexp => Interval::new(x?.lo, INF, x?.lo_open, true),
            B::Var | B::Std => Interval::NON_NEG,
            B::Any | B::All | B::Eye => Interval::UNIT,
            B::Softmax => Interval {
                row_max_axis: one_axis(call),
                ..Interval::UNIT
            },
            B::LogSoftmax => Interval::NON_POS,
            B::Where => arg(1, "x")?.union(&arg(2, "y")?),
            B::Abs => x?.abs(),
            B::Sign => x?.sign(),
            B::Clamp => {
                let lo = arg(1, "lo").map_or(-INF, |i| i.lo);
                let hi = arg(2, "hi").map_or(INF, |i| i.hi);
                clamp(x?, lo, hi)
            }
            B::Maximum => x?.maximum(&arg(1, "y")?),
            B::Minimum => x?.minimum(&arg(1, "y")?),
            B::Concat => arg(0, "a")?.union(&arg(1, "b")?),
            B::Stack => positional(args, vals).reduce(|a, b| a.union(&b))?,
            B::Take => {
                self.take_ids(e, args, call);
                x?
            }
            B::OneHot => {
                self.one_hot_ids(e, args, typed);
                Interval::UNIT
            }
            B::Zeros => Interval::point(0.0),
            B::Ones => Interval::point(1.0),
            B::Full => arg(1, "value")?,
            B::Tril | B::Triu => x?.union(&Interval::point(0.0)),
            B::Reduce => match &call.pattern {
                Some(PatternPlan::Layout(plan)) => {
                    match plan.reduce.as_ref().map(|(op, _)| &**op) {
                        Some("sum") => x?.sum_of(),
                        Some("prod") => x?.product_of().underflowing(floats),
                        Some("mean") => mean_rounded(x?, grid_bits(typed)),
                        _ => x?,
                    }
                }
                _ => x?,
            },
            B::Einsum => positional(args, vals)
                .reduce(|a, b| a.mul(&b).underflowing(floats))?
                .sum_of(),
            B::Topk => {
                let values = topk_values(x?, call, typed, self.env.lowered.dims);
                self.scratch.last_tuple = Some(LastTuple {
                    span: e.span,
                    values,
                    every_item: false,
                });
                return self.of_ty(&typed.ty);
            }
            B::Split => {
                // Pieces of `x`: its values, though no longer whole rows.
                let values = Interval {
                    row_max_axis: None,
                    row_zero_axis: None,
                    ..x?
                };
                self.scratch.last_tuple = Some(LastTuple {
                    span: e.span,
                    values,
                    every_item: true,
                });
                return self.of_ty(&typed.ty);
            }
            B::Argmax | B::Argmin | B::Arange => return self.of_ty(&typed.ty),
        };
        Some(iv)
    }

    /// `topk(...)[0]` or `split(...)[i]`: the values' interval, when `base`
    /// is the tuple-valued call just walked.
    fn tuple_values(&self, base: &ast::Expr, indices: &[ast::IndexArg]) -> Option<Interval> {
        let tuple = self.scratch.last_tuple?;
        let item = match indices {
            [ast::IndexArg::Expr(i)] => match i.kind {
                ExprKind::Int(n) => usize::try_from(n).ok(),
                _ => None,
            },
            _ => None,
        };
        (tuple.span == base.span && item.is_some_and(|i| tuple.holds(i))).then_some(tuple.values)
    }

    /// `take(x, ids, over=n)`: the ids index axis `n` of `x`.
    fn take_ids(&mut self, e: &ast::Expr, args: &[ast::Arg], call: &CallInfo) {
        let (Some(x), Some(ids)) = (arg_expr(args, 0, "x"), arg_expr(args, 1, "ids")) else {
            return;
        };
        let Some(shape) = self.typed(x.span).and_then(|t| t.ty.shape()) else {
            return;
        };
        let Some(axis) = call.over.first().and_then(|&p| shape.get(p)) else {
            return;
        };
        let size = crate::shape::axis_poly(axis);
        self.ids_fit(ids, size.as_ref(), IdsPlace::TakeAxis, e);
    }

    /// `x[.., ids, ..]`: integer tensor ids pick positions of the axis
    /// they stand at, so they lie in `[0, size)`, as `take`'s do.
    fn picked_ids(&mut self, e: &ast::Expr, base: &ast::Expr, indices: &[ast::IndexArg]) {
        let Some(TyKind::Tensor(t)) = self.typed(base.span).map(|t| &t.ty.kind) else {
            return;
        };
        let Some(shape) = t.shape.as_ref() else {
            return;
        };
        let new_axis = |i: &ast::IndexArg| matches!(i, ast::IndexArg::Expr(x) if matches!(x.kind, ExprKind::None));
        let taking = indices
            .iter()
            .filter(|i| !matches!(i, ast::IndexArg::Ellipsis(_)) && !new_axis(i))
            .count();
        let rest = shape.len().saturating_sub(taking);
        let mut pos = 0;
        for index in indices {
            match index {
                ast::IndexArg::Ellipsis(_) => pos += rest,
                _ if new_axis(index) => {}
                ast::IndexArg::Expr(x) => {
                    let picks = self
                        .typed(x.span)
                        .is_some_and(|t| matches!(t.ty.kind, TyKind::Tensor(_)));
                    if let (true, Some(axis)) = (picks, shape.get(pos)) {
                        let size = crate::shape::axis_poly(axis);
                        self.ids_fit(x, size.as_ref(), IdsPlace::Picked(pos), e);
                    }
                    pos += 1;
                }
                _ => pos += 1,
            }
        }
    }

    /// `one_hot(ids, n)`: the ids count up to `n`.
    fn one_hot_ids(&mut self, e: &ast::Expr, args: &[ast::Arg], typed: &TypedExpr) {
        let Some(ids) = arg_expr(args, 0, "ids") else {
            return;
        };
        let Some(last) = typed.ty.shape().and_then(|s| s.last()) else {
            return;
        };
        let size = crate::shape::axis_poly(last);
        self.ids_fit(ids, size.as_ref(), IdsPlace::Classes, e);
    }
}

/// The one axis of a `softmax` (its position), which holds each row's
/// largest value.
fn one_axis(call: &CallInfo) -> Option<u8> {
    match call.over.as_slice() {
        [p] => u8::try_from(*p).ok(),
        _ => None,
    }
}

/// A sum, `max` or `mean` over the axis along which `x` holds each row's
/// largest `softmax` value.
fn over_row_max(x: Interval, call: &CallInfo) -> bool {
    x.row_max_axis
        .is_some_and(|a| call.over.contains(&usize::from(a)))
}

/// `topk`'s values: some of its argument's, so its interval and exactness;
/// taken over the axis holding each row's largest `softmax` value (and
/// `k` not 0), the largest is among them.
fn topk_values(x: Interval, call: &CallInfo, typed: &TypedExpr, dims: &DimValues) -> Interval {
    let over = one_axis(call);
    let k_axis = match (&typed.ty.kind, over) {
        (TyKind::Tuple(items), Some(p)) => {
            items.first().and_then(|t| t.shape()?.get(usize::from(p)))
        }
        _ => None,
    };
    let k_not_0 = k_axis
        .and_then(crate::shape::axis_poly_ref)
        .is_some_and(|k| dims.value(&k) != Some(0));
    let kept = over.filter(|_| x.row_max_axis == over && k_not_0);
    Interval {
        row_max_axis: kept,
        ..x
    }
}

/// Whether two operands are the same local (`x * x`).
fn same_local(a: Option<&TypedExpr>, b: Option<&TypedExpr>) -> bool {
    match (a.map(|t| &t.info), b.map(|t| &t.info)) {
        (Some(ExprInfo::Local { decl: x }), Some(ExprInfo::Local { decl: y })) => x == y,
        _ => false,
    }
}

/// The values of `x` limited to `[lo, hi]`.
fn clamp(x: Interval, lo: f64, hi: f64) -> Interval {
    if lo > hi {
        return Interval::point(hi);
    }
    let mut out = x;
    if lo > -INF {
        out = out.maximum(&Interval::point(lo));
    }
    if hi < INF {
        out = out.minimum(&Interval::point(hi));
    }
    out
}

impl Walker<'_> {
    /// Whether a reduction's axes (`over=`, or all) may hold no value: an
    /// unknown size, such as a mask's rows, may be 0.
    fn may_be_empty(&self, args: &[ast::Arg], call: &CallInfo) -> bool {
        let Some(x) = arg_expr(args, 0, "x").and_then(|e| self.typed(e.span)) else {
            return true;
        };
        let Some(shape) = x.ty.shape() else {
            return true;
        };
        let reduced: Vec<usize> = match call.over.as_slice() {
            [] => (0..shape.len()).collect(),
            over => over.to_vec(),
        };
        let mut count = Poly::constant(1);
        for p in reduced {
            let Some(size) = shape.get(p).and_then(crate::shape::axis_poly) else {
                return true;
            };
            match count.mul(&size) {
                Ok(c) => count = c,
                Err(_) => return true,
            }
        }
        let count = self.env.lowered.dims.substitute(&count).unwrap_or(count);
        crate::size::least_value(&count).is_none_or(|l| l < 1)
    }
}

/// Whether an operation's result is computed in floats, whose products may
/// underflow to 0: a float tensor (f64 too), a Python `Float`; with
/// `power`, a Python `Int` too (`2 ** -2000` is the float 0.0).
fn computes_floats(typed: &TypedExpr, power: bool) -> bool {
    match &typed.ty.kind {
        TyKind::Tensor(t) => crate::shape::effective_dtype(t).is_none_or(crate::shape::is_float),
        TyKind::Scalar(ScalarKind::Float) => true,
        TyKind::Scalar(ScalarKind::Int) => power,
        _ => false,
    }
}

/// The significand bits of the floats a float tensor's values are (8 for
/// bf16, 11 for f16, 24 for f32, 53 for f64; the call's float dtype may
/// be bf16, the coarsest); `None` for integers, bools and Python numbers.
fn grid_bits(typed: &TypedExpr) -> Option<u32> {
    let TyKind::Tensor(t) = &typed.ty.kind else {
        return None;
    };
    match crate::shape::effective_dtype(t) {
        None | Some(ast::DtypeKind::Bf16) => Some(8),
        Some(ast::DtypeKind::F16) => Some(11),
        Some(ast::DtypeKind::F32) => Some(24),
        // f64 rounds too: `-1 + 1e-17` is -1, so a sum's open end closes.
        Some(ast::DtypeKind::F64) => Some(53),
        Some(_) => None,
    }
}

/// `iv` of a value of `typed`'s type, within its integer dtype's range:
/// an i32 parameter `NonNeg` is at most 2^31 - 1, so `x - 1` of a `Pos`
/// one does not wrap.
fn held(iv: Option<Interval>, typed: Option<&TypedExpr>) -> Option<Interval> {
    match (iv, typed.and_then(integer_range)) {
        (Some(v), Some(range)) => Some(v.intersect(&range).unwrap_or(range)),
        (iv, _) => iv,
    }
}

/// The largest finite value of a float tensor's dtype (65504 in f16); a
/// tensor without a dtype is bf16's or f32's, bf16's the smaller
/// (`docs/shapescript/ranges.md`: a program meant for f16 says so).
fn float_max(typed: &TypedExpr) -> f64 {
    let TyKind::Tensor(t) = &typed.ty.kind else {
        return f64::MAX;
    };
    match crate::shape::effective_dtype(t) {
        Some(ast::DtypeKind::F16) => 65504.0,
        None | Some(ast::DtypeKind::Bf16) => f64::from(half_max_bf16()),
        Some(ast::DtypeKind::F32) => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// bf16's largest finite value, `(2 - 2^-7) 2^127`.
fn half_max_bf16() -> f32 {
    f32::from_bits(0x7f7f_0000)
}

/// Where arithmetic on integers of `range` is known not to have wrapped:
/// inside the range, short of i64's largest value, which an f64 holds only
/// to 1024 (`2^63 - 1024 + 1` is `2^63 - 1024` in f64).
fn wrap_free(range: Interval) -> Interval {
    if range.hi > f64::from(i32::MAX) {
        Interval {
            hi_open: true,
            ..range
        }
    } else {
        range
    }
}

/// The values an integer tensor's dtype holds (`[-2^31, 2^31 - 1]` for
/// i32; for i64, to the largest f64 below 2^63); `None` for floats, bools
/// and Python numbers, which do not wrap.
pub(super) fn integer_range(typed: &TypedExpr) -> Option<Interval> {
    let TyKind::Tensor(t) = &typed.ty.kind else {
        return None;
    };
    match crate::shape::effective_dtype(t) {
        Some(ast::DtypeKind::I32) => {
            Some(Interval::closed(f64::from(i32::MIN), f64::from(i32::MAX)))
        }
        Some(ast::DtypeKind::I64) => {
            Some(Interval::closed(-(2f64.powi(63)), 2f64.powi(63) - 1024.0))
        }
        _ => None,
    }
}

/// The least positive value (the smallest subnormal) of a float tensor's
/// dtype, or of a Python float (an f64); a dtype-less tensor may be f64.
/// `None` for integers and booleans.
fn float_least_positive(typed: &TypedExpr) -> Option<f64> {
    let dtype = match &typed.ty.kind {
        TyKind::Tensor(t) => crate::shape::effective_dtype(t),
        TyKind::Scalar(ScalarKind::Float) => Some(ast::DtypeKind::F64),
        _ => return None,
    };
    match dtype {
        None | Some(ast::DtypeKind::F64) => Some(f64::from_bits(1)),
        Some(ast::DtypeKind::F32) => Some(f64::from(f32::from_bits(1))),
        // 2^-133 and 2^-24.
        Some(ast::DtypeKind::Bf16) => Some(f64::from(f32::from_bits(1 << 16))),
        Some(ast::DtypeKind::F16) => Some(2f64.powi(-24)),
        Some(_) => None,
    }
}

/// Whether `v` is the exact quotient of an end of `a` by an end of `b`
/// (`x / 2.0`, `0 / x`): no rounding moves it.
fn exact_quotient(v: f64, a: &Interval, b: &Interval) -> bool {
    v == 0.0
        || [a.lo, a.hi].iter().any(|&x| {
            [b.lo, b.hi]
                .iter()
                .any(|&y| y.is_finite() && y != 0.0 && x / y == v && v.mul_add(y, -x) == 0.0)
        })
}

/// `x ** p` as PyTorch computes it in a float dtype of `bits` significand
/// bits: a square is one product and a square root rounds once, as the
/// interval's ends do; other powers are repeated products or `pow`, so
/// their ends move out by two spacings, but for 0, ±1 and whole powers of
/// whole numbers up to 2^24 (exact in f32 and f64).
fn power_rounded(p: Interval, base: &Interval, exponent: f64, bits: u32) -> Interval {
    if [0.0, 0.5, 1.0, 2.0].contains(&exponent) {
        return p;
    }
    let whole = |v: f64| !v.is_finite() || v.fract() == 0.0;
    let whole_base = exponent.fract() == 0.0 && whole(base.lo) && whole(base.hi);
    p.moved_out(bits, 2.0, |v| {
        v == 0.0 || v.abs() == 1.0 || (whole_base && whole(v) && v.abs() <= 16_777_216.0)
    })
}

/// A mean's values: within its argument's, but its sum rounds in f32 and
/// f64 (a mean of copies of one value may be a spacing or more above it),
/// so ends other than 0 and powers of two move out by 64 spacings. bf16
/// and f16 sum in f32 and round once to their coarser grid.
fn mean_rounded(x: Interval, bits: Option<u32>) -> Interval {
    match bits {
        Some(bits) if bits >= 24 => x.moved_out(bits, 64.0, |v| {
            const SIGNIFICAND: u64 = (1 << 52) - 1;
            v == 0.0 || (v.is_normal() && v.to_bits() & SIGNIFICAND == 0)
        }),
        _ => x,
    }
}

/// The argument written at position `pos` (among the positional ones) or as `name=`.
fn arg_expr<'e>(args: &'e [ast::Arg], pos: usize, name: &str) -> Option<&'e ast::Expr> {
    args.iter()
        .find(|a| a.name.as_ref().is_some_and(|n| &*n.name == name))
        .or_else(|| args.iter().filter(|a| a.name.is_none()).nth(pos))
        .map(|a| &a.value)
}

/// The interval of the argument `arg_expr` finds.
fn arg_val(args: &[ast::Arg], vals: &ArgVals, pos: usize, name: &str) -> Option<Interval> {
    let e = arg_expr(args, pos, name)?;
    vals.iter().find(|(s, _)| *s == e.span)?.1
}

/// The intervals of the positional arguments that have one (tensors; not patterns).
fn positional<'v>(args: &'v [ast::Arg], vals: &'v ArgVals) -> impl Iterator<Item = Interval> + 'v {
    args.iter()
        .zip(vals.iter())
        .filter(|(a, _)| a.name.is_none())
        .filter_map(|(_, (_, iv))| *iv)
}

/// The argument expression of call `e` at `span`.
pub(super) fn find_arg(e: &ast::Expr, span: Span) -> Option<&ast::Expr> {
    match &e.kind {
        ExprKind::Call { args, .. } => args.iter().map(|a| &a.value).find(|v| v.span == span),
        _ => None,
    }
}

/// A callee's size in the caller's terms: its generic axes replaced by
/// what the call bound them to.
fn substitute(poly: &Poly, bindings: &[(Name, crate::size::Size)]) -> Option<Poly> {
    poly.substitute(&|s| match s {
        Symbol::Generic(n) => bindings
            .iter()
            .find(|(b, _)| b == n)
            .map(|(_, v)| v.poly.clone()),
        _ => None,
    })
    .ok()
}

/// Names a block (or one inside it) rebinds with `x = ...`.
fn collect_rebound(b: &ast::Block, out: &mut Vec<Name>) {
    for stmt in &b.stmts {
        match &stmt.kind {
            StmtKind::Assign { name, .. } => out.push(name.name),
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                collect_rebound(then_block, out);
                if let Some(e) = else_block {
                    collect_rebound(e, out);
                }
            }
            StmtKind::For { body, .. } => collect_rebound(body, out),
            _ => {}
        }
    }
}
