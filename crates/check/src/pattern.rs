//! The pattern built-ins (spec 6.5): `rearrange`, `reduce`, `repeat` and
//! `einsum`, with einops' rules. Each left-hand axis is checked against the
//! argument's size through the call solver, keyword sizes (`h=16`, a
//! run-time Int gives an unknown size) and dims fill in what the left side
//! can't, `16gh` is the layout `(gh 16)` and `(16 gh)` the other one, `...`
//! stands for the remaining axes. Builds the lowering plan code generation
//! emits with plain reshape/permute/expand/sum/einsum. Every diagnostic names
//! the pattern axis it is about.

use std::sync::Arc;
use syntax::Name;

use diag::{Diagnostic, Span};
use smallvec::SmallVec;
use syntax::ast::{self, ScalarKind};

use crate::body::shape::{axis_of, axis_poly, axis_poly_ref, show_size, show_ty, tensor};
use crate::body::{error_ty, FnChecker};
use crate::builtin_names::Builtin;
use crate::codes;
use crate::program::Decl;
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Failure, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo, LayoutPlan, PatternPlan};
use crate::types::{Axis, TensorTy, Ty, TyKind};

/// One elementary axis of a pattern: a name or a number.
#[derive(Clone, Debug)]
enum Elem {
    Name(Name, Span),
    Num(i128),
}

/// One axis of a pattern side: a single elementary axis, a group, or `...`.
/// Small and plain: its elementary axes lie in one list for the whole
/// pattern (`Elems`), from `start` to `end`.
#[derive(Clone, Debug)]
struct PAxis {
    start: u32,
    end: u32,
    rest: bool,
    span: Span,
}

impl PAxis {
    fn elems<'e>(&self, all: &'e [Elem]) -> &'e [Elem] {
        &all[self.start as usize..self.end as usize]
    }
}

/// Every elementary axis of one pattern, side after side.
type Elems = SmallVec<[Elem; 16]>;

/// One side of a pattern; inline, as a side has a handful of axes.
type Side = SmallVec<[PAxis; 8]>;

/// A tensor argument: its type, its domain and dtype, its axes, its span.
type Shaped = (Ty, TensorTy, Arc<[Axis]>, Span);

/// A pattern's variables by name, in order of appearance.
type Vars = SmallVec<[Name; 8]>;

const REDUCTIONS: &[&str] = &["sum", "mean", "max", "min", "prod"];

pub(crate) fn call(c: &mut FnChecker, e: &ast::Expr, builtin: Builtin, args: &[ast::Arg]) -> Ty {
    let span = e.span;
    let name = builtin.name();
    match check(c, e, name, args) {
        Some((ty, plan)) => {
            let info = CallInfo {
                callee: Callee::Builtin(builtin),
                args: args
                    .iter()
                    .map(|a| BoundArg::Expr {
                        span: a.value.span,
                        keyword: a.name.is_some(),
                    })
                    .collect(),
                bindings: Vec::new(),
                over: Vec::new(),
                pattern: Some(plan),
                operands: Vec::new(),
            };
            c.record(span, Ty { span, ..ty }, ExprInfo::Call(Box::new(info)))
        }
        None => c.record(span, error_ty(span), ExprInfo::Plain),
    }
}

fn pattern_error(span: Span, message: String, label: String) -> Diagnostic {
    Diagnostic::error(codes::E0410, message).with_primary(span, label)
}

fn check(
    c: &mut FnChecker,
    e: &ast::Expr,
    name: &str,
    args: &[ast::Arg],
) -> Option<(Ty, PatternPlan)> {
    // Split the arguments: tensors, the pattern, the reduction, keyword sizes.
    // Inline lists throughout: a pattern call has a few tensors, sides,
    // names and axes, and a heap list for each cost more than the checking.
    let mut tensors: SmallVec<[&ast::Arg; 4]> = SmallVec::new();
    let mut pattern: Option<&ast::Pattern> = None;
    let mut op: Option<&ast::Arg> = None;
    let mut keywords: SmallVec<[&ast::Arg; 4]> = SmallVec::new();
    for a in args {
        match (&a.name, &a.value.kind) {
            (Some(_), _) => keywords.push(a),
            (None, ast::ExprKind::Pattern(p)) if pattern.is_none() => pattern = Some(p),
            (None, _) if pattern.is_some() && name == "reduce" && op.is_none() => op = Some(a),
            (None, _) if pattern.is_none() => tensors.push(a),
            (None, _) => {
                c.diagnostics.push(
                    Diagnostic::error(
                        codes::E0407,
                        format!("unexpected argument of `{name}` after the pattern"),
                    )
                    .with_primary(a.span, "not expected here")
                    .with_help("sizes after the pattern are keywords, as in `h=12`"),
                );
                return None;
            }
        }
    }
    let tys: SmallVec<[(Ty, Span); 4]> = tensors
        .iter()
        .map(|a| (c.expr(&a.value), a.value.span))
        .collect();
    for k in &keywords {
        if c.static_size(&k.value).is_none() {
            c.expr(&k.value);
        }
    }
    let Some(pattern) = pattern else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0407, format!("`{name}` needs a pattern"))
                .with_primary(e.span, "no `[...] -> [...]` argument")
                .with_help(format!(
                    "write the axes before and after, as in `{name}(x, [b n d] -> [b d n])`"
                )),
        );
        return None;
    };
    let want_tensors = if name == "einsum" {
        pattern.lhs.len()
    } else {
        1
    };
    if tensors.len() != want_tensors || (name != "einsum" && pattern.lhs.len() != 1) {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0407,
                format!(
                    "`{name}` has {} tensors for {} left-hand shapes",
                    tensors.len(),
                    pattern.lhs.len()
                ),
            )
            .with_primary(pattern.span, "one left-hand shape per tensor")
            .with_help(if name == "einsum" {
                "write one shape per tensor: `einsum(a, b, [i k], [k j] -> [i j])`"
            } else {
                "this takes one tensor and one left-hand shape"
            }),
        );
        return None;
    }
    if tys.iter().any(|(t, _)| matches!(t.kind, TyKind::Error)) {
        return None;
    }
    let mut shapes: SmallVec<[Shaped; 4]> = SmallVec::new();
    for (ty, at) in &tys {
        match &ty.kind {
            TyKind::Tensor(TensorTy {
                shape: Some(s),
                domain,
                dtype,
            }) => {
                // The shape is cloned once; the `TensorTy` keeps domain and dtype.
                let t = TensorTy {
                    shape: None,
                    domain: domain.clone(),
                    dtype: *dtype,
                };
                shapes.push((ty.clone(), t, s.clone(), *at))
            }
            _ => {
                c.diagnostics.push(
                    Diagnostic::error(codes::E0408, format!("`{name}` takes tensors with shapes"))
                        .with_primary(*at, format!("this is `{}`", show_ty(ty))),
                );
                return None;
            }
        }
    }
    let reduction = match (name, op) {
        ("reduce", Some(a)) => {
            match &a.value.kind {
                ast::ExprKind::Name(n) if REDUCTIONS.contains(&n.name.as_str()) => Some(n.name),
                _ => {
                    c.diagnostics.push(
                    Diagnostic::error(codes::E0406, "`reduce` takes `sum`, `mean`, `max`, `min` or `prod` after the pattern")
                        .with_primary(a.value.span, "not a reduction"),
                );
                    return None;
                }
            }
        }
        ("reduce", None) => {
            c.diagnostics.push(
                Diagnostic::error(codes::E0407, "`reduce` needs a reduction after the pattern")
                    .with_primary(pattern.span, "which reduction?")
                    .with_help("add `sum`, `mean`, `max`, `min` or `prod`, as in `reduce(x, [b n] -> [b], mean)`"),
            );
            return None;
        }
        _ => None,
    };
    // Parse the sides.
    let source = c.ctx.env.map.text(c.file);
    let mut all: Elems = SmallVec::new();
    let mut lhs: SmallVec<[Side; 2]> = SmallVec::new();
    for l in &pattern.lhs {
        lhs.push(side(c, l, &mut all)?);
    }
    let rhs = side(c, &pattern.rhs, &mut all)?;
    let all = &all[..];
    for s in lhs.iter().chain(std::iter::once(&rhs)) {
        if let Some(second) = s.iter().filter(|a| a.rest).nth(1) {
            c.diagnostics.push(pattern_error(
                second.span,
                "a pattern side can have one `...`".into(),
                "second `...`".into(),
            ));
            return None;
        }
    }
    if name == "einsum"
        && lhs.iter().chain(std::iter::once(&rhs)).flatten().any(|a| {
            let es = a.elems(all);
            a.rest || es.len() != 1 || matches!(es[0], Elem::Num(..))
        })
    {
        c.diagnostics.push(pattern_error(
            pattern.span,
            "an `einsum` pattern names each axis".into(),
            "groups, numbers and `...` are for `rearrange`".into(),
        ));
        return None;
    }
    // Fixed from here on: plain slices index without the inline check.
    let (lhs, rhs, shapes) = (&lhs[..], &rhs[..], &shapes[..]);
    // Variables: one per distinct name; dims and keywords give values.
    let mut solver = Solver::new(c.ctx.env.dims);
    // A pattern rarely has more than eight names: no growing on the way.
    let mut vars: Vars = SmallVec::new();
    fn var_of(vars: &mut Vars, n: &Name, solver: &mut Solver) -> u32 {
        match vars.iter().position(|v| v == n) {
            Some(i) => i as u32,
            None => {
                vars.push(*n);
                solver.var(*n);
                vars.len() as u32 - 1
            }
        }
    }
    // Each elementary axis's variable (`u32::MAX` for a number), found once:
    // `all` holds the sides in order, left then right.
    let mut var_at: SmallVec<[u32; 16]> = SmallVec::with_capacity(all.len());
    for el in all {
        match el {
            Elem::Num(_) => var_at.push(u32::MAX),
            Elem::Name(n, _) => {
                let known = vars.len();
                let v = var_of(&mut vars, n, &mut solver);
                var_at.push(v);
                // Looked up once per name: a repeated name was a dim or not before.
                if vars.len() > known {
                    if let Some(Decl::Dim(d, _)) = c.ctx.env.program.decl(c.file, n) {
                        if let Some((dn, _)) = c.ctx.env.dims.entry(c.file, d.name.name) {
                            solver.set(
                                v,
                                Poly::symbol(Symbol::Dim {
                                    file: c.file,
                                    name: *dn,
                                }),
                            );
                        }
                    }
                }
            }
        }
    }
    // Fixed from here on: plain slices index without the inline check.
    let (vars, var_at) = (&vars[..], &var_at[..]);
    for k in &keywords {
        let key = k.name.as_ref().expect("keyword");
        let Some(v) = vars.iter().position(|n| **n == *key.name) else {
            c.diagnostics.push(
                Diagnostic::error(
                    codes::E0407,
                    format!("`{}` is not an axis of the pattern", key.name),
                )
                .with_primary(key.span, "no such axis in the pattern")
                .with_help("keyword sizes name axes of the pattern"),
            );
            return None;
        };
        let value = match c.static_size(&k.value) {
            Some(p) => p,
            None => {
                let ty = c
                    .body
                    .recent_expr(k.value.span)
                    .map(|t| t.ty.clone())
                    .unwrap_or_else(|| error_ty(k.value.span));
                match ty.kind {
                    TyKind::Scalar(ScalarKind::Int) => c.new_unknown(&key.name),
                    TyKind::Error => return None,
                    _ => {
                        c.diagnostics.push(
                            Diagnostic::error(
                                codes::E0406,
                                format!("the size of `{}` must be an `Int`", key.name),
                            )
                            .with_primary(k.value.span, format!("this is `{}`", show_ty(&ty))),
                        );
                        return None;
                    }
                }
            }
        };
        solver.set(v as u32, value);
    }
    let mut rests: SmallVec<[Vec<Axis>; 2]> = SmallVec::new();
    // The common pattern names each axis of each tensor (`[b h i d]`): each
    // axis binds its name or must equal what it is bound to, in order, as
    // the solver would do with one equation per axis. Any trouble leaves
    // the rest to the equations below, which replay the same steps from
    // this state and report what fails.
    let simple = lhs.iter().zip(shapes).all(|(side, (_, _, shape, _))| {
        side.len() == shape.len()
            && side.iter().all(|a| {
                !a.rest && a.end - a.start == 1 && matches!(all[a.start as usize], Elem::Name(..))
            })
    });
    let mut solved = simple;
    if simple {
        'fast: for (side, (_, _, shape, _)) in lhs.iter().zip(shapes) {
            for (a, axis) in side.iter().zip(shape.iter()) {
                let Some(size) = axis_poly_ref(axis) else {
                    continue;
                };
                let v = var_at[a.start as usize];
                let fits = match solver.value(v) {
                    None if size.as_constant().is_some_and(|n| n < 1) => false,
                    None => {
                        solver.set_cow(v, size);
                        true
                    }
                    Some(known) => solver.dims.same_size(known, &size),
                };
                if !fits {
                    solved = false;
                    break 'fast;
                }
            }
        }
        if solved {
            rests.extend(lhs.iter().map(|_| Vec::new()));
        }
    }
    if !solved {
        // Equations: each left axis against the argument's axis.
        let mut equations: SmallVec<[Equation; 8]> = SmallVec::new();
        let mut tags: SmallVec<[(usize, usize, usize); 8]> = SmallVec::new();
        for (t, (side, (ty, _, shape, at))) in lhs.iter().zip(shapes).enumerate() {
            let rest_at = side.iter().position(|a| a.rest);
            let fixed = side.len() - usize::from(rest_at.is_some());
            let fits = if rest_at.is_some() {
                shape.len() >= fixed
            } else {
                shape.len() == fixed
            };
            if !fits {
                let pat = &pattern.lhs[t];
                c.diagnostics.push(
                    Diagnostic::error(
                        codes::E0401,
                        format!(
                            "the pattern `{}` has {} axes, but the tensor has {}",
                            text(source, pat.span),
                            fixed,
                            shape.len()
                        ),
                    )
                    .with_primary(pat.span, format!("{fixed} axes here"))
                    .with_secondary(*at, format!("this is `{}`", show_ty(ty)))
                    .with_help(if rest_at.is_some() {
                        "".to_string()
                    } else {
                        "name every axis of the tensor, or write `...` for the rest".to_string()
                    }),
                );
                return None;
            }
            let after = rest_at.map_or(0, |r| side.len() - r - 1);
            let mut rest = Vec::new();
            for (i, a) in side.iter().enumerate() {
                if a.rest {
                    rest = shape[i..shape.len() - after].to_vec();
                    continue;
                }
                let j = match rest_at {
                    Some(r) if i > r => shape.len() - (side.len() - i),
                    _ => i,
                };
                let Some(size) = axis_poly_ref(&shape[j]) else {
                    continue;
                };
                let factor = |k: usize| match &all[k] {
                    Elem::Name(..) => Poly::symbol(Symbol::Var(var_at[k])),
                    Elem::Num(v) => Poly::constant(*v),
                };
                // One name is the common axis: its own product, no arithmetic.
                let (first, end) = (a.start as usize, a.end as usize);
                let product = if end - first == 1 {
                    factor(first)
                } else {
                    let mut product = Poly::constant(1);
                    for k in first..end {
                        product = product.mul(&factor(k)).ok()?;
                    }
                    product
                };
                tags.push((t, i, j));
                equations.push(Equation {
                    callee: product,
                    caller: size,
                    tag: tags.len() - 1,
                });
            }
            rests.push(rest);
        }
        // A run-time keyword size makes the rest of its group unknown too (seed 000).
        let mut tries = 0;
        let mut equations = equations;
        while let Err(failure) = solver.solve(&equations) {
            match failure {
                // A group holding an unknown size is checked at run time.
                Failure::Mismatch { tag, ref expected }
                    if tries < 64
                        && expected
                            .symbols()
                            .iter()
                            .any(|s| matches!(s, Symbol::Unknown { .. })) =>
                {
                    equations.retain(|e| e.tag != tag);
                    tries += 1;
                }
                Failure::Inexact {
                    var, ref divisor, ..
                } if tries < vars.len()
                    && divisor
                        .symbols()
                        .iter()
                        .any(|s| matches!(s, Symbol::Unknown { .. })) =>
                {
                    let unknown = c.new_unknown(&vars[var as usize]);
                    solver.set(var, unknown);
                    tries += 1;
                }
                failure => {
                    report(c, failure, &tags, lhs, shapes, &solver, source);
                    return None;
                }
            }
        }
    }
    // Name rules between the sides.
    // `all` holds the left sides' elementary axes, then the right side's;
    // which side a name is on is a flag per variable.
    let lhs_end = rhs.first().map_or(all.len(), |a| a.start as usize);
    let mut on_left: SmallVec<[bool; 16]> = smallvec::smallvec![false; vars.len()];
    let mut on_right: SmallVec<[bool; 16]> = smallvec::smallvec![false; vars.len()];
    for (k, el) in all.iter().enumerate() {
        if let Elem::Name(..) = el {
            let side = if k < lhs_end {
                &mut on_left
            } else {
                &mut on_right
            };
            side[var_at[k] as usize] = true;
        }
    }
    for (k, el) in all.iter().enumerate().skip(lhs_end) {
        let Elem::Name(n, s) = el else { continue };
        if !on_left[var_at[k] as usize] {
            let v = var_at[k];
            let known = solver.value(v).is_some();
            if name == "repeat" && known {
                continue;
            }
            let help = if name == "repeat" {
                format!("give its size as a keyword, as in `{n}=4`")
            } else {
                format!("`{name}` only moves, merges and splits the left side's axes")
            };
            c.diagnostics.push(
                pattern_error(
                    *s,
                    format!("`{n}` is on the right of the pattern but not on the left"),
                    "not on the left side".into(),
                )
                .with_help(help),
            );
            return None;
        }
    }
    if name == "rearrange" || name == "repeat" || name == "einsum" {
        for (k, el) in all[..lhs_end].iter().enumerate() {
            let Elem::Name(n, s) = el else { continue };
            if name != "einsum" && !on_right[var_at[k] as usize] {
                c.diagnostics.push(
                    pattern_error(*s, format!("`{n}` is on the left of the pattern but not on the right"), "not on the right side".into())
                        .with_help(format!("`{name}` keeps every axis; to sum or average it away, use `reduce(x, ..., sum)`")),
                );
                return None;
            }
        }
    }
    if lhs.iter().any(|s| s.iter().any(|a| a.rest)) != rhs.iter().any(|a| a.rest) {
        c.diagnostics.push(pattern_error(
            pattern.span,
            "`...` must be on both sides of the pattern or neither".into(),
            "`...` on one side only".into(),
        ));
        return None;
    }
    // The output shape.
    let value = |k: usize| -> Poly {
        match &all[k] {
            Elem::Name(..) => solver.value(var_at[k]).cloned().unwrap_or_default(),
            Elem::Num(v) => Poly::constant(*v),
        }
    };
    let mut out: Vec<Axis> = Vec::with_capacity(rhs.len());
    let mut expand: Vec<Size> = Vec::with_capacity(rhs.len());
    for a in rhs {
        if a.rest {
            for r in rests.first().cloned().unwrap_or_default() {
                expand.push(Size::computed(axis_poly(&r).unwrap_or_default()));
                out.push(r);
            }
            continue;
        }
        let (first, end) = (a.start as usize, a.end as usize);
        let product = if end - first == 1 {
            // One name: its value is the axis, no product to work out.
            let v = value(first);
            expand.push(Size::computed(v.clone()));
            v
        } else {
            let mut product = Poly::constant(1);
            for k in first..end {
                let v = value(k);
                expand.push(Size::computed(v.clone()));
                product = product.mul(&v).ok()?;
            }
            product
        };
        out.push(axis_of(product, a.span));
    }
    let dtype = shapes[0].1.dtype;
    let plan = if name == "einsum" {
        let mut letters: SmallVec<[Name; 16]> = SmallVec::new();
        // The equation is written straight into one string: `abc,acd->abd`.
        let mut equation = String::with_capacity(32);
        let mut side_text = |side: &[PAxis], equation: &mut String| {
            for a in side {
                equation.push(match &a.elems(all)[0] {
                    Elem::Name(n, _) => {
                        let i = letters.iter().position(|l| l == n).unwrap_or_else(|| {
                            letters.push(*n);
                            letters.len() - 1
                        });
                        // Past 52 letters the pattern is reported below.
                        match i {
                            0..=25 => char::from(b'a' + i as u8),
                            26..=51 => char::from(b'A' + (i - 26) as u8),
                            _ => '?',
                        }
                    }
                    Elem::Num(..) => '?',
                });
            }
        };
        for (k, s) in lhs.iter().enumerate() {
            if k > 0 {
                equation.push(',');
            }
            side_text(s, &mut equation);
        }
        equation.push_str("->");
        side_text(rhs, &mut equation);
        if letters.len() > 52 {
            c.diagnostics.push(pattern_error(
                pattern.span,
                "an `einsum` pattern can name at most 52 axes".into(),
                "too many axes".into(),
            ));
            return None;
        }
        PatternPlan::Einsum { equation }
    } else {
        layout_plan(
            all, &lhs[0], rhs, &rests[0], &solver, vars, reduction, expand, &out,
        )
    };
    let domain = if name == "einsum" {
        None
    } else {
        shapes[0].1.domain.clone()
    };
    Some((tensor(Some(out), domain, dtype, e.span), plan))
}

fn text(source: &str, span: Span) -> &str {
    source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
}

/// Reads one side of a pattern (E0410 for what can't be in one), its
/// elementary axes onto `elems`.
fn side(c: &mut FnChecker, list: &ast::ShapeList, elems: &mut Elems) -> Option<Side> {
    let mut out = Side::new();
    for axis in &list.axes {
        let start = elems.len() as u32;
        let mut rest = false;
        match &axis.kind {
            ast::AxisKind::Rest => rest = true,
            ast::AxisKind::Grouped { factor, name } => {
                elems.push(Elem::Name(name.name, name.span));
                elems.push(Elem::Num(i128::try_from(factor.get()).ok()?));
            }
            ast::AxisKind::Group(parts) => {
                for part in parts {
                    match &part.kind {
                        ast::AxisKind::Grouped { factor, name } => {
                            elems.push(Elem::Name(name.name, name.span));
                            elems.push(Elem::Num(i128::try_from(factor.get()).ok()?));
                        }
                        ast::AxisKind::Size(s) => elems.push(elem(c, s)?),
                        _ => {
                            c.diagnostics.push(pattern_error(
                                part.span,
                                "a pattern group holds names and numbers".into(),
                                "not a name or number".into(),
                            ));
                            return None;
                        }
                    }
                }
            }
            ast::AxisKind::Size(s) => elems.push(elem(c, s)?),
        }
        out.push(PAxis {
            start,
            end: elems.len() as u32,
            rest,
            span: axis.span,
        });
    }
    // A name twice on one side.
    let mut seen: SmallVec<[Name; 8]> = SmallVec::new();
    for a in &out {
        for e in a.elems(elems) {
            if let Elem::Name(n, s) = e {
                if seen.contains(n) {
                    c.diagnostics.push(
                        pattern_error(
                            *s,
                            format!("`{n}` is twice on one side of the pattern"),
                            "named again here".into(),
                        )
                        .with_help("give each axis its own name"),
                    );
                    return None;
                }
                seen.push(*n);
            }
        }
    }
    Some(out)
}

fn elem(c: &mut FnChecker, s: &ast::SizeExpr) -> Option<Elem> {
    match &s.kind {
        ast::SizeExprKind::Name(name) => Some(Elem::Name(name.name, name.span)),
        ast::SizeExprKind::Int(v) if v.get() >= 1 => Some(Elem::Num(i128::try_from(v.get()).ok()?)),
        ast::SizeExprKind::Error => None,
        _ => {
            c.diagnostics.push(
                pattern_error(
                    s.span,
                    "a pattern axis is a name, a number or a group of them".into(),
                    "not an axis name".into(),
                )
                .with_help("give sizes as keywords after the pattern, as in `h=12`"),
            );
            None
        }
    }
}

fn report(
    c: &mut FnChecker,
    failure: Failure,
    tags: &[(usize, usize, usize)],
    lhs: &[Side],
    shapes: &[Shaped],
    solver: &Solver,
    source: &str,
) {
    let dims = c.ctx.env.dims;
    let tag = match &failure {
        Failure::Mismatch { tag, .. }
        | Failure::Inexact { tag, .. }
        | Failure::BelowOne { tag, .. }
        | Failure::Overflow { tag }
        | Failure::Unsolved { tag, .. } => *tag,
    };
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
        Failure::Overflow { .. } => {
            Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
                .with_primary(pax.span, "this size overflows")
        }
        Failure::Unsolved { vars, .. } => {
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
                pax.span,
                format!(
                    "`{}` is {}, but its parts aren't known",
                    pax_text,
                    show_size(dims, &size)
                ),
            )
            .with_help(format!("give a size as a keyword, as in `{first}=...`"))
        }
    };
    c.diagnostics.push(d);
}

#[allow(clippy::too_many_arguments)]
fn layout_plan(
    all: &[Elem],
    lhs: &[PAxis],
    rhs: &[PAxis],
    rest: &[Axis],
    solver: &Solver,
    vars: &[Name],
    reduction: Option<Name>,
    expand: Vec<Size>,
    out: &[Axis],
) -> PatternPlan {
    #[derive(PartialEq)]
    enum Key {
        Name(Name),
        Num(i128, usize),
        Rest(usize),
    }
    // Inline: a side has a handful of elementary axes.
    let keys = |side: &[PAxis]| -> SmallVec<[Key; 8]> {
        let mut counts: SmallVec<[(i128, usize); 4]> = SmallVec::new();
        let mut out = SmallVec::new();
        for a in side {
            if a.rest {
                out.extend((0..rest.len()).map(Key::Rest));
                continue;
            }
            for e in a.elems(all) {
                out.push(match e {
                    Elem::Name(n, _) => Key::Name(*n),
                    Elem::Num(v) => {
                        let k = match counts.iter_mut().find(|(x, _)| x == v) {
                            Some(slot) => {
                                slot.1 += 1;
                                slot.1
                            }
                            None => {
                                counts.push((*v, 0));
                                0
                            }
                        };
                        Key::Num(*v, k)
                    }
                });
            }
        }
        out
    };
    let (left, right) = (keys(lhs), keys(rhs));
    let size = |k: &Key| -> Size {
        Size::computed(match k {
            Key::Name(n) => vars
                .iter()
                .position(|v| v == n)
                .and_then(|i| solver.value(i as u32).cloned())
                .unwrap_or_default(),
            Key::Num(v, _) => Poly::constant(*v),
            Key::Rest(i) => axis_poly(&rest[*i]).unwrap_or_default(),
        })
    };
    let split: Vec<Size> = left.iter().map(size).collect();
    let reduced: Vec<usize> = (0..left.len())
        .filter(|i| !right.contains(&left[*i]))
        .collect();
    let order = right
        .iter()
        .map(|k| left.iter().position(|l| l == k))
        .collect();
    PatternPlan::Layout(LayoutPlan {
        split,
        reduce: reduction.map(|r| (r, reduced)),
        order,
        expand,
        merge: out
            .iter()
            .map(|a| Size::computed(axis_poly(a).unwrap_or_default()))
            .collect(),
    })
}
