//! The pattern built-ins (`docs/shapescript/patterns.md`): `rearrange`, `reduce`, `repeat` and
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

mod plan;
mod report;
mod sides;

use plan::{einsum_plan, layout_plan};
use report::report;
use sides::read_sides;

use super::{error_ty, FnChecker};
use crate::builtin_names::Builtin;
use crate::codes;
use crate::program::Decl;
use crate::shape::{axis_of, axis_poly, axis_poly_ref, show_ty, tensor};
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Failure, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo, PatternPlan};
use crate::types::{Axis, AxisKind, TensorTy, Ty, TyKind};

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

/// A pattern call's arguments by role. Inline lists throughout: a pattern
/// call has a few tensors, sides, names and axes, and a heap list for each
/// costs more than the checking.
struct Parts<'e> {
    tensors: SmallVec<[&'e ast::Arg; 4]>,
    pattern: Option<&'e ast::Pattern>,
    /// The reduction after a `reduce` pattern.
    op: Option<&'e ast::Arg>,
    keywords: SmallVec<[&'e ast::Arg; 4]>,
}

/// A pattern's sides as read: every elementary axis (left sides, then the
/// right side), and the sides' axes over them.
struct Sides {
    all: Elems,
    lhs: SmallVec<[Side; 2]>,
    rhs: Side,
}

/// A pattern call as read so far, what the later steps look at: the
/// pattern, its elementary axes and sides, the tensors, the variables (one
/// per distinct name) and each elementary axis's variable (`u32::MAX` for a
/// number). Plain slices: they index without the inline check.
#[derive(Clone, Copy)]
struct Read<'s> {
    name: &'s str,
    pattern: &'s ast::Pattern,
    all: &'s [Elem],
    lhs: &'s [Side],
    rhs: &'s [PAxis],
    shapes: &'s [Shaped],
    vars: &'s [Name],
    var_at: &'s [u32],
}

/// Checks a pattern call step by step (each step reports its own mistake
/// and stops the check): the arguments, the sides, the sizes the left sides
/// bind, the name rules between the sides, then the result and its plan.
fn check(
    c: &mut FnChecker,
    e: &ast::Expr,
    name: &str,
    args: &[ast::Arg],
) -> Option<(Ty, PatternPlan)> {
    let parts = split_args(c, name, args)?;
    let tys: SmallVec<[(Ty, Span); 4]> = parts
        .tensors
        .iter()
        .map(|a| (c.expr(&a.value), a.value.span))
        .collect();
    for k in &parts.keywords {
        if c.static_size(&k.value).is_none() {
            c.expr(&k.value);
        }
    }
    let pattern = pattern_for_tensors(c, e, name, &parts)?;
    if tys.iter().any(|(t, _)| matches!(t.kind, TyKind::Error)) {
        return None;
    }
    // The steps fill lists of the caller, built in place: these are inline
    // and large, and returning them would copy them.
    let mut shapes: SmallVec<[Shaped; 4]> = SmallVec::new();
    shaped_args(c, name, &tys, &mut shapes)?;
    let reduction = reduction_of(c, name, parts.op, pattern)?;
    let mut sides = Sides {
        all: SmallVec::new(),
        lhs: SmallVec::new(),
        rhs: Side::new(),
    };
    read_sides(c, name, pattern, &mut sides)?;
    // Declared before the solver, which borrows them. A pattern rarely has
    // more than eight names: no growing on the way.
    let mut vars: Vars = SmallVec::new();
    let mut var_at: SmallVec<[u32; 16]> = SmallVec::with_capacity(sides.all.len());
    let mut solver = Solver::new(c.ctx.env.dims);
    variables(c, &sides.all, &mut solver, &mut vars, &mut var_at);
    let read = Read {
        name,
        pattern,
        all: &sides.all,
        lhs: &sides.lhs,
        rhs: &sides.rhs,
        shapes: &shapes,
        vars: &vars,
        var_at: &var_at,
    };
    keyword_sizes(c, &parts.keywords, read.vars, &mut solver)?;
    let rests = if bind_named_axes(read, &mut solver) {
        read.lhs.iter().map(|_| Vec::new()).collect()
    } else {
        bind_equations(c, read, &mut solver)?
    };
    side_rules(c, read, &solver)?;
    let (out, expand) = output_shape(read, &rests, &solver)?;
    let dtype = pattern_dtype(c, name, &tys, reduction)?;
    let plan = if name == "einsum" {
        einsum_plan(c, read)?
    } else {
        layout_plan(
            read.all,
            &read.lhs[0],
            read.rhs,
            &rests[0],
            &solver,
            read.vars,
            reduction,
            expand,
            &out,
        )
    };
    let domain = if keeps_domain(name, reduction.as_ref()) {
        shapes[0].1.domain.clone()
    } else {
        None
    };
    Some((tensor(Some(out), domain, dtype, e.span), plan))
}

/// Whether a pattern built-in's result keeps its argument's domain: moved
/// values (`rearrange`, `repeat`) and a `reduce` by `max` or `min` do, as the
/// named `max` and `min` do; a sum, product or mean leaves it (a sum of
/// `Unit` values is not `Unit`, a mean of `Pos` floats may round to 0), and
/// `einsum` multiplies and adds.
fn keeps_domain(name: &str, reduction: Option<&Name>) -> bool {
    match (name, reduction) {
        ("einsum", _) => false,
        (_, Some(op)) => matches!(op.as_str(), "max" | "min"),
        (_, None) => true,
    }
}

/// The dtype of a pattern built-in's result: `einsum` multiplies tensors of
/// one float dtype (as `@`), `reduce` by `sum` or `prod` adds integers up in
/// `i64` and by `mean` takes floats only, as PyTorch's reductions do
/// (`docs/shapescript/dtypes.md`); the others move values as they are.
fn pattern_dtype(
    c: &mut FnChecker,
    name: &str,
    tys: &[(Ty, Span)],
    reduction: Option<Name>,
) -> Option<crate::dtype::Dtype> {
    let operands: SmallVec<[(&Ty, Span); 4]> = tys.iter().map(|(t, s)| (t, *s)).collect();
    let first = operands.first().copied()?;
    let own = super::dtypes::tensor_dtype(first.0).flatten();
    if name == "einsum" {
        return c.product_dtype("einsum", &operands);
    }
    match reduction.as_deref() {
        Some("sum" | "prod") => Some(crate::dtype::accumulated(own)),
        Some("mean") => c
            .takes_category("mean", first.0, first.1, crate::dtype::Category::Float)
            .then_some(own),
        _ => Some(own),
    }
}

/// Splits the arguments into tensors, the pattern, the reduction and
/// keyword sizes; E0407 for a positional argument after the pattern.
fn split_args<'e>(c: &mut FnChecker, name: &str, args: &'e [ast::Arg]) -> Option<Parts<'e>> {
    let mut parts = Parts {
        tensors: SmallVec::new(),
        pattern: None,
        op: None,
        keywords: SmallVec::new(),
    };
    for a in args {
        match (&a.name, &a.value.kind) {
            (Some(_), _) => parts.keywords.push(a),
            (None, ast::ExprKind::Pattern(p)) if parts.pattern.is_none() => parts.pattern = Some(p),
            (None, _) if parts.pattern.is_some() && name == "reduce" && parts.op.is_none() => {
                parts.op = Some(a)
            }
            (None, _) if parts.pattern.is_none() => parts.tensors.push(a),
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
    Some(parts)
}

/// The call's pattern, when there is one with a left-hand shape per
/// tensor (one tensor but for `einsum`); E0407 otherwise.
fn pattern_for_tensors<'e>(
    c: &mut FnChecker,
    e: &ast::Expr,
    name: &str,
    parts: &Parts<'e>,
) -> Option<&'e ast::Pattern> {
    let Some(pattern) = parts.pattern else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0407, format!("`{name}` needs a pattern"))
                .with_primary(e.span, "no `[...] -> [...]` argument")
                .with_help(format!(
                    "write the axes before and after, as in `{name}(x, [b n d] -> [b d n])`"
                )),
        );
        return None;
    };
    let tensors = parts.tensors.len();
    let want_tensors = if name == "einsum" {
        pattern.lhs.len()
    } else {
        1
    };
    if tensors != want_tensors || (name != "einsum" && pattern.lhs.len() != 1) {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0407,
                format!(
                    "`{name}` has {tensors} tensors for {} left-hand shapes",
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
    Some(pattern)
}

/// Each tensor argument with its shape apart; E0408 for one without a shape.
fn shaped_args(
    c: &mut FnChecker,
    name: &str,
    tys: &[(Ty, Span)],
    shapes: &mut SmallVec<[Shaped; 4]>,
) -> Option<()> {
    for (ty, at) in tys {
        let Some((t, s)) = ty.shape_apart() else {
            c.diagnostics.push(
                Diagnostic::error(codes::E0408, format!("`{name}` takes tensors with shapes"))
                    .with_primary(*at, format!("this is `{}`", show_ty(ty))),
            );
            return None;
        };
        shapes.push((ty.clone(), t, s, *at));
    }
    Some(())
}

/// The reduction of a `reduce` call (`Some(None)` for the other
/// built-ins); E0406 for one that isn't, E0407 when it is missing.
fn reduction_of(
    c: &mut FnChecker,
    name: &str,
    op: Option<&ast::Arg>,
    pattern: &ast::Pattern,
) -> Option<Option<Name>> {
    match (name, op) {
        ("reduce", Some(a)) => match &a.value.kind {
            ast::ExprKind::Name(n) if REDUCTIONS.contains(&n.name.as_str()) => Some(Some(n.name)),
            _ => {
                c.diagnostics.push(
                    Diagnostic::error(
                        codes::E0406,
                        "`reduce` takes `sum`, `mean`, `max`, `min` or `prod` after the pattern",
                    )
                    .with_primary(a.value.span, "not a reduction"),
                );
                None
            }
        },
        ("reduce", None) => {
            c.diagnostics.push(
                Diagnostic::error(codes::E0407, "`reduce` needs a reduction after the pattern")
                    .with_primary(pattern.span, "which reduction?")
                    .with_help("add `sum`, `mean`, `max`, `min` or `prod`, as in `reduce(x, [b n] -> [b], mean)`"),
            );
            None
        }
        _ => Some(None),
    }
}

/// The pattern's variables, one per distinct name (a dim's is set to the
/// dim), and each elementary axis's variable, found once: `all` holds the
/// sides in order, left then right.
fn variables(
    c: &FnChecker,
    all: &[Elem],
    solver: &mut Solver,
    vars: &mut Vars,
    var_at: &mut SmallVec<[u32; 16]>,
) {
    for el in all {
        let Elem::Name(n, _) = el else {
            var_at.push(u32::MAX);
            continue;
        };
        if let Some(i) = vars.iter().position(|v| v == n) {
            var_at.push(i as u32);
            continue;
        }
        vars.push(*n);
        solver.var(*n);
        let v = vars.len() as u32 - 1;
        var_at.push(v);
        // Looked up once per name: a repeated name was a dim or not before.
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

/// Sets the variables the keyword sizes name (a run-time `Int` gives an
/// unknown size); E0407 for a keyword that is no axis of the pattern,
/// E0406 for one that isn't an `Int`.
fn keyword_sizes(
    c: &mut FnChecker,
    keywords: &[&ast::Arg],
    vars: &[Name],
    solver: &mut Solver,
) -> Option<()> {
    for k in keywords {
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
    Some(())
}

/// The common pattern names each axis of each tensor (`[b h i d]`): each
/// axis binds its name or must equal what it is bound to, in order, as the
/// solver would do with one equation per axis. Whether that bound them
/// all; any trouble leaves the rest to `bind_equations`, which replays the
/// same steps from this state and reports what fails.
fn bind_named_axes<'s>(read: Read<'s>, solver: &mut Solver<'_, 's>) -> bool {
    let simple = read
        .lhs
        .iter()
        .zip(read.shapes)
        .all(|(side, (_, _, shape, _))| {
            side.len() == shape.len()
                && side.iter().all(|a| {
                    !a.rest
                        && a.end - a.start == 1
                        && matches!(read.all[a.start as usize], Elem::Name(..))
                })
        });
    if !simple {
        return false;
    }
    for (side, (_, _, shape, _)) in read.lhs.iter().zip(read.shapes) {
        for (a, axis) in side.iter().zip(shape.iter()) {
            let Some(size) = axis_poly_ref(axis) else {
                continue;
            };
            let v = read.var_at[a.start as usize];
            let fits = match solver.value(v) {
                None if size.as_constant().is_some_and(|n| n < 1) => false,
                None => {
                    solver.set_cow(v, size);
                    true
                }
                Some(known) => solver.dims.same_size(known, &size),
            };
            if !fits {
                return false;
            }
        }
    }
    true
}

/// Binds each left axis to the argument's axis through the solver's
/// equations (E0401 for a side with the wrong number of axes, the solver's
/// failures reported by `report`); returns the axes each `...` stands for.
fn bind_equations<'s>(
    c: &mut FnChecker,
    read: Read<'s>,
    solver: &mut Solver<'_, 's>,
) -> Option<SmallVec<[Vec<Axis>; 2]>> {
    let source = c.ctx.env.map.text(c.file);
    let mut rests: SmallVec<[Vec<Axis>; 2]> = SmallVec::new();
    let mut equations: SmallVec<[Equation; 8]> = SmallVec::new();
    let mut tags: SmallVec<[(usize, usize, usize); 8]> = SmallVec::new();
    for (t, (side, shaped)) in read.lhs.iter().zip(read.shapes).enumerate() {
        let (ty, _, shape, at) = shaped;
        let rest_at = side.iter().position(|a| a.rest);
        let fixed = side.len() - usize::from(rest_at.is_some());
        let fits = if rest_at.is_some() {
            shape.len() >= fixed
        } else {
            shape.len() == fixed
        };
        if !fits {
            let pat = &read.pattern.lhs[t];
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
            tags.push((t, i, j));
            equations.push(Equation {
                callee: axis_product(read, a)?,
                caller: size,
                tag: tags.len() - 1,
            });
        }
        rests.push(rest);
    }
    solve_equations(c, read, solver, equations, &tags)?;
    Some(rests)
}

/// The product of a left axis's elementary axes as the solver's variables.
fn axis_product(read: Read, a: &PAxis) -> Option<Poly> {
    let factor = |k: usize| match &read.all[k] {
        Elem::Name(..) => Poly::symbol(Symbol::Var(read.var_at[k])),
        Elem::Num(v) => Poly::constant(*v),
    };
    // One name is the common axis: its own product, no arithmetic.
    let (first, end) = (a.start as usize, a.end as usize);
    if end - first == 1 {
        return Some(factor(first));
    }
    let mut product = Poly::constant(1);
    for k in first..end {
        product = product.mul(&factor(k)).ok()?;
    }
    Some(product)
}

/// Solves the equations; a group holding an unknown size is checked at run
/// time, so its equation is dropped, and a run-time keyword size makes the
/// rest of its group unknown too (`docs/shapescript/patterns.md`). Any other
/// failure is reported.
fn solve_equations<'s>(
    c: &mut FnChecker,
    read: Read<'s>,
    solver: &mut Solver<'_, 's>,
    mut equations: SmallVec<[Equation<'s>; 8]>,
    tags: &[(usize, usize, usize)],
) -> Option<()> {
    let mut tries = 0;
    while let Err(failure) = solver.solve(&equations) {
        match failure {
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
            } if tries < read.vars.len()
                && divisor
                    .symbols()
                    .iter()
                    .any(|s| matches!(s, Symbol::Unknown { .. })) =>
            {
                let unknown = c.new_unknown(&read.vars[var as usize]);
                solver.set(var, unknown);
                tries += 1;
            }
            failure => {
                let source = c.ctx.env.map.text(c.file);
                report(c, failure, tags, read.lhs, read.shapes, solver, source);
                return None;
            }
        }
    }
    Some(())
}

/// The name rules between the sides (E0410): a name on the right is on the
/// left (or, for `repeat`, given a size), a name on the left is on the
/// right for the built-ins that keep every axis, and `...` is on both sides
/// or neither.
fn side_rules(c: &mut FnChecker, read: Read, solver: &Solver) -> Option<()> {
    let Read {
        name, all, var_at, ..
    } = read;
    // `all` holds the left sides' elementary axes, then the right side's;
    // which side a name is on is a flag per variable.
    let lhs_end = read.rhs.first().map_or(all.len(), |a| a.start as usize);
    let mut on_left: SmallVec<[bool; 16]> = smallvec::smallvec![false; read.vars.len()];
    let mut on_right: SmallVec<[bool; 16]> = smallvec::smallvec![false; read.vars.len()];
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
    if read.lhs.iter().any(|s| s.iter().any(|a| a.rest)) != read.rhs.iter().any(|a| a.rest) {
        c.diagnostics.push(pattern_error(
            read.pattern.span,
            "`...` must be on both sides of the pattern or neither".into(),
            "`...` on one side only".into(),
        ));
        return None;
    }
    Some(())
}

/// The result's axes, from the right side's names as solved (a name stays
/// the axis's name: `docs/shapescript/patterns.md`), and the size
/// of each of its elementary axes, for the plan's `expand`.
fn output_shape(
    read: Read,
    rests: &[Vec<Axis>],
    solver: &Solver,
) -> Option<(Vec<Axis>, Vec<Size>)> {
    let value = |k: usize| -> Poly {
        match &read.all[k] {
            Elem::Name(..) => solver.value(read.var_at[k]).cloned().unwrap_or_default(),
            Elem::Num(v) => Poly::constant(*v),
        }
    };
    let mut out: Vec<Axis> = Vec::with_capacity(read.rhs.len());
    let mut expand: Vec<Size> = Vec::with_capacity(read.rhs.len());
    for a in read.rhs {
        if a.rest {
            for r in rests.first().cloned().unwrap_or_default() {
                expand.push(Size::computed(axis_poly(&r).unwrap_or_default()));
                out.push(r);
            }
            continue;
        }
        let (first, end) = (a.start as usize, a.end as usize);
        if let (1, Elem::Name(name, _)) = (end - first, &read.all[first]) {
            // One name: its value is the axis, no product to work out, and
            // the pattern's name is the axis's name even where the sizes of
            // two axes coincide (`[b h i j]`, both of size `n`).
            let v = value(first);
            expand.push(Size::computed(v.clone()));
            let mut axis = axis_of(v, a.span);
            if let AxisKind::Size { name: n, .. } = &mut axis.kind {
                *n = Some(*name);
            }
            out.push(axis);
            continue;
        }
        let product = if end - first == 1 {
            // One number.
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
    Some((out, expand))
}

fn text(source: &str, span: Span) -> &str {
    source
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
}
