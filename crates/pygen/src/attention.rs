//! Attention written out (`einsum` for the scores, a `-inf` causal
//! `where`, `softmax` over the keys, `einsum` with the values) emitted as
//! one `torch.nn.functional.scaled_dot_product_attention` call when, and
//! only when, that computes the same thing (the rule:
//! docs/shapescript/python.md, "What the emitter fuses"). Every fact comes
//! from the checker's records (`check::hir`): which built-in a call is, its
//! einsum equation, its `over=` position, `where`'s operand alignments, the
//! value ranges of the fill and the threshold, and the uses of each `let`.
//! Anything else is emitted as written.

use std::collections::HashMap;

use check::hir::{AxisKind, Builtin, CallInfo, Callee, ExprInfo, PatternPlan, TyKind};
use diag::Span;
use syntax::ast::{self, BinaryOp, Expr, ExprKind, StmtKind};

use crate::expr::{Val, ATOM, MUL};
use crate::fused::{FusedAttention, Groups, Scale};
use crate::scope::Scope;

/// The letters of an einsum equation `ab,cd->ef`, when it has two operands.
struct Equation {
    lhs: Vec<char>,
    rhs: Vec<char>,
    out: Vec<char>,
}

fn equation(info: &CallInfo) -> Option<Equation> {
    let Some(PatternPlan::Einsum { equation }) = &info.pattern else {
        return None;
    };
    let (inputs, out) = equation.split_once("->")?;
    let (lhs, rhs) = inputs.split_once(',')?;
    let letters = |s: &str| -> Option<Vec<char>> {
        let v: Vec<char> = s.chars().collect();
        let distinct = v.iter().enumerate().all(|(i, c)| !v[..i].contains(c));
        (distinct && v.iter().all(char::is_ascii_alphabetic)).then_some(v)
    };
    Some(Equation {
        lhs: letters(lhs)?,
        rhs: letters(rhs)?,
        out: letters(out)?,
    })
}

/// The `let`s of one block: the name's span (what `ExprInfo::Local` points
/// at) to the statement's index and value.
type Lets<'b> = HashMap<Span, (usize, &'b Expr)>;

/// What one match found, before it is recorded.
struct Found {
    fused: FusedAttention,
    /// The `let`s only the attention read: not emitted.
    skipped: Vec<(usize, Span)>,
}

impl<'g, 'a> Scope<'g, 'a> {
    /// Finds the attentions of `block` that are emitted fused, and the
    /// `let`s they make unneeded.
    pub fn plan_attention(&mut self, block: &ast::Block) {
        if self.body.is_none() {
            return;
        }
        let lets: Lets = block
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.kind {
                StmtKind::Let { name, value, .. } => Some((name.span, (i, value))),
                _ => None,
            })
            .collect();
        for (at, stmt) in block.stmts.iter().enumerate() {
            let mut calls = Vec::new();
            for e in stmt_exprs(stmt) {
                self.einsum_calls(e, &mut calls);
            }
            for call in calls {
                let Some(found) = self.match_attention(call, at, block, &lets) else {
                    continue;
                };
                self.fused.insert(call.span, found.fused);
                self.skipped_lets
                    .extend(found.skipped.into_iter().map(|(_, s)| s));
            }
        }
    }

    /// The fused call for the einsum at `span`, if it was planned.
    pub fn fused_attention(&mut self, span: Span) -> Option<Val> {
        let plan = self.fused.remove(&span)?;
        let f = self.use_python("torch.nn.functional.scaled_dot_product_attention");
        let mut q = self.expr(&plan.q);
        if let Some(g) = &plan.groups {
            // The query groups flattened into heads: query head h reads
            // key/value head h // (heads per group), as `enable_gqa` does.
            q = Val::atom(format!("{}.flatten({}, {})", q.at(ATOM), g.first, g.last));
        }
        let k = self.expr(&plan.k);
        let v = self.expr(&plan.v);
        let scale = match &plan.scale {
            Scale::One => Val::atom("1.0".into()),
            Scale::Times(e) => self.expr(e),
            Scale::Over(e) => {
                let s = self.expr(e);
                Val {
                    code: format!("1 / {}", s.at(MUL + 1)),
                    prec: MUL,
                    simple: false,
                }
            }
        };
        let mut args = vec![
            (None, q),
            (None, k),
            (None, v),
            (Some("scale".into()), scale),
        ];
        if plan.causal {
            args.push((Some("is_causal".into()), Val::atom("True".into())));
        }
        if plan.groups.is_some() {
            args.push((Some("enable_gqa".into()), Val::atom("True".into())));
        }
        let call = Val::atom(self.call_code(&f, args));
        Some(match &plan.groups {
            Some(g) => {
                let heads = self.hoist(call);
                Val::atom(format!(
                    "{}.unflatten({}, {})",
                    heads.code,
                    g.first,
                    crate::sizes::tuple(&g.sizes)
                ))
            }
            None => call,
        })
    }

    /// The einsum calls in `e`, outermost first.
    fn einsum_calls<'e>(&self, e: &'e Expr, out: &mut Vec<&'e Expr>) {
        syntax::ensure_sufficient_stack(|| {
            if self.builtin_call(e, Builtin::Einsum).is_some() {
                out.push(e);
            }
            match &e.kind {
                ExprKind::Call { callee, args } => {
                    self.einsum_calls(callee, out);
                    for a in args {
                        self.einsum_calls(&a.value, out);
                    }
                }
                ExprKind::Field { base, .. } => self.einsum_calls(base, out),
                ExprKind::Index { base, .. } => self.einsum_calls(base, out),
                ExprKind::Unary { operand, .. } => self.einsum_calls(operand, out),
                ExprKind::Binary { lhs, rhs, .. } => {
                    self.einsum_calls(lhs, out);
                    self.einsum_calls(rhs, out);
                }
                ExprKind::Cast { expr, .. } => self.einsum_calls(expr, out),
                ExprKind::Tuple(items) => {
                    for i in items {
                        self.einsum_calls(i, out);
                    }
                }
                _ => {}
            }
        });
    }

    /// The call record of `e` when it calls built-in `op`.
    fn builtin_call(&self, e: &Expr, op: Builtin) -> Option<&'a CallInfo> {
        match self.typed(e.span).map(|t| &t.info) {
            Some(ExprInfo::Call(info)) if matches!(info.callee, Callee::Builtin(b) if b == op) => {
                Some(info)
            }
            _ => None,
        }
    }

    /// The value `e` stands for: a `let` of this block is followed to its
    /// value when nothing else reads it (it is then `skipped`), or, with
    /// `shared`, in any case (a mask may be read elsewhere too).
    fn follow<'b>(
        &self,
        e: &'b Expr,
        lets: &Lets<'b>,
        skipped: &mut Vec<(usize, Span)>,
        shared: bool,
    ) -> Option<&'b Expr> {
        let Some(ExprInfo::Local { decl }) = self.typed(e.span).map(|t| &t.info) else {
            return Some(e);
        };
        let (at, value) = lets.get(decl)?;
        if self.uses(*decl) == 1 {
            skipped.push((*at, *decl));
        } else if !shared {
            return None;
        }
        Some(value)
    }

    /// How many expressions of the body read the binding declared at `decl`.
    fn uses(&self, decl: Span) -> usize {
        self.body.map_or(0, |b| {
            b.exprs
                .iter()
                .filter(|t| matches!(t.info, ExprInfo::Local { decl: d } if d == decl))
                .count()
        })
    }

    /// The tensor arguments of a call, in written order (a pattern excluded).
    fn tensor_args<'e>(&self, e: &'e Expr) -> Vec<&'e Expr> {
        match &e.kind {
            ExprKind::Call { args, .. } => args
                .iter()
                .filter(|a| a.name.is_none() && !matches!(a.value.kind, ExprKind::Pattern(_)))
                .map(|a| &a.value)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn rank(&self, e: &Expr) -> Option<usize> {
        self.ty(e.span).and_then(|t| t.shape()).map(|s| s.len())
    }

    fn is_scalar(&self, e: &Expr) -> bool {
        matches!(self.ty(e.span).map(|t| &t.kind), Some(TyKind::Scalar(_)))
    }

    /// The one number a scalar is, from its value range.
    fn constant(&self, e: &Expr) -> Option<f64> {
        if !self.is_scalar(e) {
            return None;
        }
        let r = self.typed(e.span)?.range?;
        (r.lo == r.hi).then_some(r.lo)
    }

    /// `-inf`: the negated float literal infinity, as the checker records it
    /// (a Float scalar with nothing to look up, what `expr` emits as
    /// `math.inf`). The value range cannot say it: an infinite end is open.
    fn is_negative_infinity(&self, e: &Expr) -> bool {
        let ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } = &e.kind
        else {
            return false;
        };
        let ExprKind::Name(id) = &operand.kind else {
            return false;
        };
        id.name == "inf"
            && self.is_scalar(operand)
            && matches!(
                self.typed(operand.span).map(|t| &t.info),
                Some(ExprInfo::Plain)
            )
    }

    /// Whether `final_call`, an einsum, is the end of an attention that is
    /// emitted fused (docs/shapescript/python.md, "What the emitter fuses").
    fn match_attention<'b>(
        &self,
        final_call: &'b Expr,
        at: usize,
        block: &ast::Block,
        lets: &Lets<'b>,
    ) -> Option<Found> {
        let mut skipped = Vec::new();
        let final_info = self.builtin_call(final_call, Builtin::Einsum)?;
        let [weights, v] = self.tensor_args(final_call)[..] else {
            return None;
        };
        let wv = equation(final_info)?;
        let softmax = self.follow(weights, lets, &mut skipped, false)?;
        let softmax_info = self.builtin_call(softmax, Builtin::Softmax)?;
        let [masked] = self.tensor_args(softmax)[..] else {
            return None;
        };
        let masked = self.follow(masked, lets, &mut skipped, false)?;
        let (scaled, causal) = match self.builtin_call(masked, Builtin::Where) {
            Some(info) => (self.causal_where(masked, info, lets, &mut skipped)?, true),
            None => (masked, false),
        };
        let (scores, scale) = self.scaled(scaled, lets, &mut skipped)?;
        let scores_info = self.builtin_call(scores, Builtin::Einsum)?;
        let [q, k] = self.tensor_args(scores)[..] else {
            return None;
        };
        let qk = equation(scores_info)?;
        let groups = self.attention_layout(&qk, &wv, q)?;
        // Softmax over the key axis, the scores' last.
        if softmax_info.over != [qk.out.len() - 1] {
            return None;
        }
        // q and k are read where the fused call is: names, which no
        // statement in between may change.
        let named = |e: &Expr| {
            matches!(
                self.typed(e.span).map(|t| &t.info),
                Some(ExprInfo::Local { .. } | ExprInfo::Field { .. })
            )
        };
        let from = skipped.iter().map(|(i, _)| *i).min().unwrap_or(at);
        let between = block.stmts.get(from..at);
        if !named(q) || !named(k) || between.is_none_or(|s| s.iter().any(assigns)) {
            return None;
        }
        Some(Found {
            fused: FusedAttention {
                q: q.clone(),
                k: k.clone(),
                v: v.clone(),
                scale,
                causal,
                groups,
            },
            skipped,
        })
    }

    /// `where(tril(ones([i j])) > 0.0, scores, -inf)` lined up on the
    /// scores' last two axes: the scores it masks.
    fn causal_where<'b>(
        &self,
        call: &'b Expr,
        info: &CallInfo,
        lets: &Lets<'b>,
        skipped: &mut Vec<(usize, Span)>,
    ) -> Option<&'b Expr> {
        let [mask, scores, fill] = self.tensor_args(call)[..] else {
            return None;
        };
        if !self.is_negative_infinity(fill) {
            return None;
        }
        let rank = self.rank(call)?;
        let (Some(mask_view), Some(scores_view)) = (info.operands.first(), info.operands.get(1))
        else {
            return None;
        };
        if self.rank(scores) != Some(rank) || !scores_view.is_identity() || rank < 2 {
            return None;
        }
        let on_last_two = match &mask_view.positions {
            Some(p) => {
                p.len() == rank
                    && p[..rank - 2].iter().all(Option::is_none)
                    && p[rank - 2] == Some(0)
                    && p[rank - 1] == Some(1)
            }
            None => rank == 2,
        };
        let mask = self.follow(mask, lets, skipped, true)?;
        if !on_last_two || !self.is_lower_triangle(mask, lets) {
            return None;
        }
        self.follow(scores, lets, skipped, false)
    }

    /// `tril(ones([i j])) > c` for a constant `c` that keeps exactly the
    /// ones (`> 0.0`, `>= 1.0`, `== 1`, `!= 0`...): a rank-2 mask.
    fn is_lower_triangle(&self, mask: &Expr, lets: &Lets) -> bool {
        let ExprKind::Binary { op, lhs, rhs } = &mask.kind else {
            return false;
        };
        let Some(c) = self.constant(rhs) else {
            return false;
        };
        let keeps_ones = match op {
            BinaryOp::Gt => (0.0..1.0).contains(&c),
            BinaryOp::Ge => c > 0.0 && c <= 1.0,
            BinaryOp::Eq => c == 1.0,
            BinaryOp::Ne => c == 0.0,
            _ => false,
        };
        let mut unused = Vec::new();
        let Some(tril) = self.follow(lhs, lets, &mut unused, true) else {
            return false;
        };
        let ExprKind::Call { args, .. } = &tril.kind else {
            return false;
        };
        let ones = match args.as_slice() {
            [only] if only.name.is_none() => self.follow(&only.value, lets, &mut unused, true),
            _ => None,
        };
        keeps_ones
            && self.rank(mask) == Some(2)
            && self.builtin_call(tril, Builtin::Tril).is_some()
            && ones.is_some_and(|o| self.builtin_call(o, Builtin::Ones).is_some())
    }

    /// `scores * s`, `s * scores`, `scores / s` for a number `s`, or the
    /// scores alone.
    fn scaled<'b>(
        &self,
        e: &'b Expr,
        lets: &Lets<'b>,
        skipped: &mut Vec<(usize, Span)>,
    ) -> Option<(&'b Expr, Scale)> {
        let (scores, scale) = match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::Mul if self.is_scalar(rhs) => (&**lhs, Scale::Times((**rhs).clone())),
                BinaryOp::Mul if self.is_scalar(lhs) => (&**rhs, Scale::Times((**lhs).clone())),
                BinaryOp::Div if self.is_scalar(rhs) => (&**lhs, Scale::Over((**rhs).clone())),
                _ => return None,
            },
            _ => return Some((e, Scale::One)),
        };
        Some((self.follow(scores, lets, skipped, false)?, scale))
    }

    /// Whether the two einsums line up as SDPA's layout: q `[B.. G.. i d]`,
    /// k `[B.. j d]` to scores `[B.. G.. i j]`, then weights in the scores'
    /// layout with v `[B.. j e]` to `[B.. G.. i e]`. `Some(None)` without
    /// query groups, `Some(Some(groups))` with them (the last of `B` is the
    /// key/value heads).
    fn attention_layout(&self, qk: &Equation, wv: &Equation, q: &Expr) -> Option<Option<Groups>> {
        let (nq, nk) = (qk.lhs.len(), qk.rhs.len());
        if nk < 2 || nq < nk {
            return None;
        }
        let nb = nk - 2;
        let (d, i, j) = (qk.lhs[nq - 1], qk.lhs[nq - 2], qk.rhs[nk - 2]);
        let scores_ok = qk.rhs[nk - 1] == d
            && qk.lhs[..nb] == qk.rhs[..nb]
            && !qk.lhs.contains(&j)
            && !qk.rhs.contains(&i)
            && qk.out[..nq - 1] == qk.lhs[..nq - 1]
            && qk.out.len() == nq
            && qk.out[nq - 1] == j;
        let (w, vv, o) = (&wv.lhs, &wv.rhs, &wv.out);
        let values_ok = w.len() == nq
            && vv.len() == nk
            && vv[..nb] == w[..nb]
            && vv[nk - 2] == w[nq - 1]
            && !w.contains(&vv[nk - 1])
            && o.len() == nq
            && o[..nq - 1] == w[..nq - 1]
            && o[nq - 1] == vv[nk - 1];
        if !scores_ok || !values_ok {
            return None;
        }
        if nq == nk {
            return Some(None);
        }
        if nb == 0 {
            return None;
        }
        let shape = self.ty(q.span)?.shape()?;
        let sizes = shape[nb - 1..nq - 2]
            .iter()
            .map(|axis| match &axis.kind {
                AxisKind::Size { size, .. } => self.size_code(size),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()?;
        Some(Some(Groups {
            first: nb - 1,
            last: nq - 3,
            sizes,
        }))
    }
}

/// The expressions a statement evaluates itself (not those of nested blocks).
pub(crate) fn stmt_exprs(stmt: &ast::Stmt) -> Vec<&Expr> {
    match &stmt.kind {
        StmtKind::Let { value, .. }
        | StmtKind::Assign { value, .. }
        | StmtKind::LetTuple { value, .. }
        | StmtKind::Return(value)
        | StmtKind::Expr(value) => vec![value],
        StmtKind::If { cond, .. } => vec![cond],
        StmtKind::For { iter, .. } => vec![iter],
    }
}

/// Whether a statement, or one nested in it, assigns to a name.
fn assigns(stmt: &ast::Stmt) -> bool {
    match &stmt.kind {
        StmtKind::Assign { .. } => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => {
            then_block.stmts.iter().any(assigns)
                || else_block
                    .as_ref()
                    .is_some_and(|b| b.stmts.iter().any(assigns))
        }
        StmtKind::For { body, .. } => body.stmts.iter().any(assigns),
        _ => false,
    }
}
