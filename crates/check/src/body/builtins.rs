//! The typing rules of the built-in operations (the list is `crate::builtins`):
//! reductions and axis-wise operations with `over=` by name (E0405, E0411 for
//! a name that matches several axes), `topk`,
//! `where` and the elementwise ones, `concat`, `stack`, `take`, `one_hot`,
//! the constructors (`zeros`, `ones`, `full`, `arange`, `eye`, `tril`,
//! `triu`), and the pattern built-ins (handed to `pattern`). Never resolves
//! user names.

use std::sync::Arc;

use syntax::Name;

use diag::{Diagnostic, Span};
use syntax::ast::{self, ScalarKind};

use super::{error_ty, FnChecker};
use crate::builtin_names::Builtin;
use crate::codes;
use crate::dtype::{self, Category};
use crate::shape::{
    axis_name, axis_of, axis_poly, axis_poly_ref, describe_matches, effective_dtype, find_axis,
    shared_tensor, show_ty, tell_apart, tensor, Found,
};
use crate::size::{Poly, Size};
use crate::typed::{Alignment, CallInfo, Callee, ExprInfo};
use crate::types::{Axis, Domain, DtypeKind, TensorTy, Ty, TyKind};

/// How a reduction treats its result's values.
#[derive(Clone, Copy, PartialEq)]
enum Reduction {
    Plain,
    NonNeg,
    Bool,
    ArgIndex,
    KeepDomain,
}

/// Types the call of built-in `name`.
pub(crate) fn call(c: &mut FnChecker, e: &ast::Expr, called: Name, args: &[ast::Arg]) -> Ty {
    let span = e.span;
    let Some(builtin) = Builtin::from_name(called.as_str()) else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0408, "`range` only goes after `for ... in`")
                .with_primary(span, "not a value")
                .with_help("loop with `for i in range(n) { ... }`"),
        );
        return c.record(span, error_ty(span), ExprInfo::Plain);
    };
    let name = builtin.name();
    let mut operands = Vec::new();
    use Builtin as B;
    let ty = match builtin {
        B::Sum | B::Mean | B::Prod | B::Logsumexp => reduce(c, e, name, args, Reduction::Plain),
        B::Max | B::Min => reduce(c, e, name, args, Reduction::KeepDomain),
        B::Var | B::Std => reduce(c, e, name, args, Reduction::NonNeg),
        B::Any | B::All => reduce(c, e, name, args, Reduction::Bool),
        B::Argmax | B::Argmin => reduce(c, e, name, args, Reduction::ArgIndex),
        B::Softmax | B::LogSoftmax | B::Cumsum | B::Sort => keep(c, e, name, args),
        B::Topk => topk(c, e, args),
        B::Where | B::Maximum | B::Minimum => elementwise(c, e, name, args, &mut operands),
        B::Abs | B::Sign | B::Tril | B::Triu | B::Clamp => unary(c, e, name, args),
        B::Concat => concat(c, e, args),
        B::Stack => stack(c, e, args),
        B::Take => take(c, e, args),
        B::Split => split(c, e, args),
        B::OneHot => one_hot(c, e, args),
        B::Zeros | B::Ones | B::Full => filled(c, e, name, args),
        B::Arange | B::Eye => counted(c, e, name, args),
        B::Rearrange | B::Reduce | B::Repeat | B::Einsum => {
            return super::pattern::call(c, e, builtin, args)
        }
    };
    match ty {
        Some((ty, over)) => {
            let info = CallInfo {
                callee: Callee::Builtin(builtin),
                args: args
                    .iter()
                    .map(|a| crate::typed::BoundArg::Expr {
                        span: a.value.span,
                        keyword: a.name.is_some(),
                    })
                    .collect(),
                bindings: Vec::new(),
                over,
                pattern: None,
                operands,
            };
            c.record(span, Ty { span, ..ty }, ExprInfo::Call(Box::new(info)))
        }
        None => c.record(span, error_ty(span), ExprInfo::Plain),
    }
}

type Typed = Option<(Ty, Vec<usize>)>;

/// Binds a built-in's arguments; `None` after a reported mistake.
fn bind<'e>(
    c: &mut FnChecker,
    name: &str,
    names: &[&str],
    required: &[bool],
    args: &'e [ast::Arg],
) -> Option<crate::body::Slots<'e>> {
    let slots = c.bind_args(name, names, required, args, None);
    if slots.is_none() {
        for a in args {
            if !matches!(
                a.value.kind,
                ast::ExprKind::AxisGroup(_) | ast::ExprKind::Pattern(_) | ast::ExprKind::Shape(_)
            ) {
                c.expr(&a.value);
            }
        }
    }
    slots
}

/// A tensor argument with a shape; reports (E0408) anything else.
fn shaped(c: &mut FnChecker, arg: &ast::Arg, what: &str) -> Option<(Ty, TensorTy, Arc<[Axis]>)> {
    let ty = c.expr(&arg.value);
    if let Some((t, s)) = ty.shape_apart() {
        return Some((ty, t, s));
    }
    match &ty.kind {
        TyKind::Error => None,
        _ => {
            c.diagnostics.push(
                Diagnostic::error(
                    codes::E0408,
                    format!("`{what}` takes a tensor with a shape"),
                )
                .with_primary(arg.value.span, format!("this is `{}`", show_ty(&ty))),
            );
            None
        }
    }
}

/// The positions of the axes `over=` names in `shape` (E0405, E0406).
fn over(
    c: &mut FnChecker,
    arg: &ast::Arg,
    shape: &[Axis],
    x: &Ty,
    x_span: Span,
) -> Option<Vec<usize>> {
    let names: Vec<&ast::Ident> = match &arg.value.kind {
        ast::ExprKind::Name(n) => vec![n],
        ast::ExprKind::AxisGroup(ns) => ns.iter().collect(),
        ast::ExprKind::Error => return None,
        ast::ExprKind::Int(_)
        | ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            ..
        } => return over_position(c, arg, shape, x),
        _ => {
            c.diagnostics.push(
                Diagnostic::error(codes::E0406, "`over=` takes axis names")
                    .with_primary(arg.value.span, "not an axis name")
                    .with_help("name the axis, as in `over=n`, or several, as in `over=(n D)`; the generated code passes positions"),
            );
            return None;
        }
    };
    let mut out = Vec::new();
    for (k, n) in names.iter().enumerate() {
        if names[..k].iter().any(|m| m.name == n.name) {
            c.diagnostics.push(
                Diagnostic::error(
                    codes::E0406,
                    format!("`{}` is named twice in `over=`", n.name),
                )
                .with_primary(n.span, "named again here")
                .with_secondary(
                    names[..k]
                        .iter()
                        .find(|m| m.name == n.name)
                        .map_or(n.span, |m| m.span),
                    "first named here",
                )
                .with_help("name each axis once"),
            );
            return None;
        }
        match find_axis(shape, &n.name) {
            Found::One(p) if !out.contains(&p) => out.push(p),
            Found::One(_) => {}
            Found::Many(hits) => {
                c.diagnostics
                    .push(ambiguous_axis(c, n, shape, &hits, x, x_span, "over="));
                return None;
            }
            Found::None => {
                let axes: Vec<String> = shape
                    .iter()
                    .filter(|a| axis_name(a).is_some())
                    .map(Axis::describe)
                    .collect();
                let mut d = Diagnostic::error(
                    codes::E0405,
                    format!("`{}` is not an axis of the argument", n.name),
                )
                .with_primary(n.span, format!("not an axis of `{}`", show_ty(x)))
                .with_secondary(x_span, format!("this is `{}`", show_ty(x)));
                if !axes.is_empty() {
                    d = d.with_note(format!("its named axes are {}", axes.join(", ")));
                }
                c.diagnostics.push(d);
                return None;
            }
        }
    }
    out.sort_unstable();
    Some(out)
}

/// E0411: `name` matches the axes `hits` of `x`; the help says how to tell
/// them apart (`what` is how the name was given: `over=`, `dims=`).
pub(crate) fn ambiguous_axis(
    c: &FnChecker,
    name: &ast::Ident,
    shape: &[Axis],
    hits: &[usize],
    x: &Ty,
    x_span: Span,
    what: &str,
) -> Diagnostic {
    let source = c.ctx.env.map.text(c.file);
    let value = source
        .get(x_span.start as usize..x_span.end as usize)
        .filter(|t| t.len() <= 24 && !t.contains('\n'))
        .unwrap_or("x");
    Diagnostic::error(
        codes::E0411,
        format!("`{}` matches more than one axis of the argument", name.name),
    )
    .with_primary(
        name.span,
        format!("matches {}", describe_matches(shape, hits)),
    )
    .with_secondary(x_span, format!("this is `{}`", show_ty(x)))
    .with_help(tell_apart(shape, hits, &name.name, what, value))
}

/// `over=-1`: an axis by position, as PyTorch's `dim=-1`, for an axis no
/// name fits (`n1 + n2`, `3*n`); a named axis is asked for by its name.
fn over_position(c: &mut FnChecker, arg: &ast::Arg, shape: &[Axis], x: &Ty) -> Option<Vec<usize>> {
    let value = match &arg.value.kind {
        ast::ExprKind::Int(v) => i128::try_from(*v).ok(),
        ast::ExprKind::Unary { operand, .. } => match operand.kind {
            ast::ExprKind::Int(v) => i128::try_from(v).ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    };
    let rank = shape.len() as i128;
    let position = value
        .map(|v| if v < 0 { v + rank } else { v })
        .filter(|p| (0..rank).contains(p));
    let Some(p) = position.and_then(|p| usize::try_from(p).ok()) else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0405, "no axis at this position")
                .with_primary(
                    arg.value.span,
                    format!("`{}` has {} axes", show_ty(x), shape.len()),
                )
                .with_help(format!(
                    "a position is from 0 to {}, or from -1 back to -{} counting from the end",
                    rank - 1,
                    rank
                )),
        );
        return None;
    };
    if let Some(name) = axis_name(&shape[p]) {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, format!("axis {} is named `{name}`", p + 1))
                .with_primary(
                    arg.value.span,
                    format!("the axis `{name}` of `{}`", show_ty(x)),
                )
                .with_help(format!(
                    "name it: `over={name}`; positions are for axes no name fits, as `n1 + n2`"
                )),
        );
        return None;
    }
    Some(vec![p])
}

fn reduce(
    c: &mut FnChecker,
    e: &ast::Expr,
    name: &str,
    args: &[ast::Arg],
    kind: Reduction,
) -> Typed {
    let statistic = matches!(name, "var" | "std");
    let (names, required): (&[&str], &[bool]) = match (statistic, kind == Reduction::ArgIndex) {
        (true, _) => (&["x", "over", "correction"], &[true, false, false]),
        (false, arg) => (
            &["x", "over"],
            if arg { &[true, true] } else { &[true, false] },
        ),
    };
    let slots = bind(c, name, names, required, args)?;
    let x = slots[0]?;
    let (ty, t, shape) = shaped(c, x, name)?;
    let least = match name {
        "mean" | "var" | "std" => Category::Float,
        "argmax" | "argmin" => Category::Int,
        _ => Category::Bool,
    };
    if !c.takes_category(name, &ty, x.value.span, least) {
        return None;
    }
    let positions = match slots[1] {
        Some(o) => over(c, o, &shape, &ty, x.value.span)?,
        None => (0..shape.len()).collect(),
    };
    let correction = match slots.get(2).copied().flatten() {
        Some(a) => Some(correction(c, a)?),
        None => None,
    };
    let least = match name {
        "var" | "std" => correction.unwrap_or(1) + 1,
        "mean" | "max" | "min" | "argmax" | "argmin" | "logsumexp" => 1,
        _ => 0,
    };
    if least > 0 && !enough_values(c, name, (&shape, &positions), least, x.value.span) {
        return None;
    }
    let kept: Vec<Axis> = shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !positions.contains(i))
        .map(|(_, a)| a.clone())
        .collect();
    let dtype = effective_dtype(&t);
    let (domain, dtype) = match kind {
        Reduction::Plain if matches!(name, "sum" | "prod") => (None, dtype::accumulated(dtype)),
        // A log-sum-exp of integers is PyTorch's default float.
        Reduction::Plain if dtype::is_integral(dtype) => (None, Some(DtypeKind::F32)),
        Reduction::Plain => (None, t.dtype),
        Reduction::KeepDomain => (t.domain.clone(), t.dtype),
        Reduction::NonNeg => (Some(Domain::NonNeg), t.dtype),
        Reduction::Bool => (Some(Domain::Bool), None),
        Reduction::ArgIndex => {
            let mut n = Poly::constant(1);
            for p in &positions {
                n = n.mul(&axis_poly(&shape[*p]).unwrap_or_default()).ok()?;
            }
            (
                Some(Domain::Index(Box::new(Size::computed(n)))),
                Some(DtypeKind::I64),
            )
        }
    };
    Some((tensor(Some(kept), domain, dtype, e.span), positions))
}

/// `correction=c` of `var` and `std`: a whole number before the program
/// runs, as PyTorch's (1, Bessel's, by default; 0 for the population's).
fn correction(c: &mut FnChecker, arg: &ast::Arg) -> Option<i128> {
    let ty = c.expr(&arg.value);
    let value = c
        .static_size(&arg.value)
        .and_then(|p| c.ctx.env.dims.value(&p));
    match value {
        Some(v) if v >= 0 && matches!(ty.kind, TyKind::Scalar(ScalarKind::Int)) => Some(v),
        _ => {
            c.diagnostics.push(
                Diagnostic::error(codes::E0406, "`correction=` is a whole number known before the program runs")
                    .with_primary(arg.value.span, format!("this is `{}`", show_ty(&ty)))
                    .with_help("write `correction=0` for the population's statistic, or leave it out for PyTorch's unbiased one"),
            );
            None
        }
    }
}

/// Whether the axes `positions` of `shape` that `name` reduces hold at
/// least `least` values for every size they may have (E0415 otherwise):
/// PyTorch's `mean` of no value is NaN, its `max` raises, and its unbiased
/// `var` of one value is NaN.
fn enough_values(
    c: &mut FnChecker,
    name: &str,
    (shape, positions): (&[Axis], &[usize]),
    least: i128,
    at: Span,
) -> bool {
    let dims = c.ctx.env.dims;
    let mut count = Poly::constant(1);
    for p in positions {
        let Some(next) = axis_poly(&shape[*p]).and_then(|a| count.mul(&a).ok()) else {
            return true;
        };
        count = next;
    }
    let Ok(count) = dims.substitute(&count) else {
        return true;
    };
    let fewest = super::expr::least_value(&count);
    if fewest.is_some_and(|f| f >= least) {
        return true;
    }
    let (what, help) = match name {
        "var" | "std" => (
            format!("`{name}` with `correction={}` of fewer than {least} values is NaN", least - 1),
            "give `correction=0` for the population's statistic, or reduce an axis known to hold more values".to_string(),
        ),
        "max" | "min" | "argmax" | "argmin" => (
            format!("PyTorch's `{name}` of no value raises"),
            "state the number of values with `as`, checked when the program runs, or reduce an axis of a known size".to_string(),
        ),
        _ => (
            format!("PyTorch's `{name}` of no value is NaN"),
            "state the number of values with `as`, checked when the program runs, or reduce an axis of a known size".to_string(),
        ),
    };
    let shown = match fewest {
        Some(f) => format!("`{count}` values, as few as {f}"),
        None => format!("`{count}` values"),
    };
    c.diagnostics.push(
        Diagnostic::error(codes::E0415, format!("`{name}` may reduce too few values"))
            .with_primary(at, format!("{shown} here"))
            .with_note(format!("{what}; an axis has at least one element, and an unknown size such as a mask's rows may have none (`docs/shapescript/sizes.md`)"))
            .with_help(help),
    );
    false
}

fn keep(c: &mut FnChecker, e: &ast::Expr, name: &str, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, name, &["x", "over"], &[true, true], args)?;
    let x = slots[0]?;
    let (ty, t, shape) = shaped(c, x, name)?;
    let least = match name {
        "softmax" | "log_softmax" => Category::Float,
        _ => Category::Bool,
    };
    if !c.takes_category(name, &ty, x.value.span, least) {
        return None;
    }
    let positions = over(c, slots[1]?, &shape, &ty, x.value.span)?;
    let domain = match name {
        "softmax" => Some(Domain::Unit),
        "log_softmax" => Some(Domain::NonPos),
        "sort" => t.domain.clone(),
        _ => None,
    };
    let dtype = match name {
        "cumsum" => dtype::accumulated(effective_dtype(&t)),
        "sort" => t.dtype,
        _ => effective_dtype(&t),
    };
    Some((shared_tensor(Some(shape), domain, dtype, e.span), positions))
}

/// A count argument, `k` of `topk` or `n` of `arange`: its size when known
/// statically, else a new unknown size named `unknown` for a run-time
/// `Int`; E0406 (`message`) for anything else, then `None`. `Some(None)`
/// for an argument whose mistake was already reported.
fn count_arg(
    c: &mut FnChecker,
    arg: &ast::Arg,
    unknown: &str,
    message: impl FnOnce() -> String,
) -> Option<Option<Poly>> {
    if let Some(n) = c.static_size(&arg.value) {
        c.expr(&arg.value);
        return Some(Some(n));
    }
    let ty = c.expr(&arg.value);
    match ty.kind {
        TyKind::Scalar(ScalarKind::Int) => Some(Some(c.new_unknown(unknown))),
        TyKind::Error => Some(None),
        _ => {
            c.diagnostics.push(
                Diagnostic::error(codes::E0406, message())
                    .with_primary(arg.value.span, format!("this is `{}`", show_ty(&ty))),
            );
            None
        }
    }
}

fn topk(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, "topk", &["x", "k", "over"], &[true, true, true], args)?;
    let x = slots[0]?;
    let (ty, t, shape) = shaped(c, x, "topk")?;
    if !c.takes_category("topk", &ty, x.value.span, Category::Int) {
        return None;
    }
    let k_arg = slots[1]?;
    let k = count_arg(c, k_arg, "k", || "`topk` takes an `Int` for `k`".to_owned())?;
    // After a mistake in `k`, already reported: an unknown number of values.
    let k = k.unwrap_or_else(|| c.new_unknown("k"));
    let positions = over(c, slots[2]?, &shape, &ty, x.value.span)?;
    let [p] = positions.as_slice() else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, "`topk` takes one axis in `over=`")
                .with_primary(slots[2]?.value.span, "several axes")
                .with_help("merge them first with `rearrange`"),
        );
        return None;
    };
    let n = axis_poly(&shape[*p]).unwrap_or_default();
    let room = n
        .sub(&k)
        .ok()
        .and_then(|r| c.ctx.env.dims.substitute(&r).ok());
    let has_unknown = k
        .symbols()
        .iter()
        .any(|s| matches!(s, crate::size::Symbol::Unknown { .. }));
    let fits = room
        .as_ref()
        .and_then(super::expr::least_value)
        .is_some_and(|r| r >= 0);
    if !has_unknown && !fits {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0415,
                "`topk` may take more values than the axis holds",
            )
            .with_primary(k_arg.value.span, format!("`k` is `{k}`"))
            .with_secondary(x.value.span, format!("the axis holds `{n}`"))
            .with_note(
                "PyTorch's `topk` raises `selected index k out of range` for a `k` past the axis",
            )
            .with_help("take at most as many as the axis holds for every size it may have"),
        );
        return None;
    }
    let mut out = shape.to_vec();
    out[*p] = axis_of(k, e.span);
    let values = tensor(Some(out.clone()), t.domain.clone(), t.dtype, e.span);
    let ids = tensor(
        Some(out),
        Some(Domain::Index(Box::new(Size::computed(n)))),
        Some(DtypeKind::I64),
        e.span,
    );
    Some((
        Ty {
            kind: TyKind::Tuple(vec![values, ids]),
            span: e.span,
        },
        positions,
    ))
}

/// `where`, `maximum`, `minimum`; `alignments` gets how each operand lines up.
fn elementwise(
    c: &mut FnChecker,
    e: &ast::Expr,
    name: &str,
    args: &[ast::Arg],
    alignments: &mut Vec<Alignment>,
) -> Typed {
    let names: &[&str] = if name == "where" {
        &["condition", "x", "y"]
    } else {
        &["x", "y"]
    };
    let slots = bind(c, name, names, &vec![true; names.len()], args)?;
    let mut operands = Vec::new();
    for slot in &slots {
        let a = (*slot)?;
        let ty = c.expr(&a.value);
        if matches!(ty.kind, TyKind::Error) {
            return None;
        }
        operands.push((ty, a.value.span));
    }
    let refs: Vec<(&Ty, Span)> = operands.iter().map(|(t, s)| (t, *s)).collect();
    let values = if name == "where" {
        &refs[1..]
    } else {
        &refs[..]
    };
    if name == "where" && !c.is_condition(refs[0]) {
        return None;
    }
    let (shape, _, aligned) = c.elementwise(&refs, e.span, name)?;
    let dtype = c.promoted(values, name)?;
    *alignments = aligned;
    let domain = match values.iter().map(|(t, _)| t).collect::<Vec<_>>().as_slice() {
        [a, b] => match (&a.kind, &b.kind) {
            (TyKind::Tensor(x), TyKind::Tensor(y)) if same_domain(x, y) => x.domain.clone(),
            _ => None,
        },
        _ => None,
    };
    // Numbers only (`where(c, 1.0, 0.0)`): a float one makes a tensor of the
    // body's float dtype, as `zeros` does; whole numbers alone are torch's
    // i64.
    let numbers_only = values
        .iter()
        .all(|(t, _)| matches!(t.kind, TyKind::Scalar(_)));
    let dtype = match numbers_only {
        true if values
            .iter()
            .all(|(t, _)| matches!(t.kind, TyKind::Scalar(ScalarKind::Int))) =>
        {
            Some(DtypeKind::I64)
        }
        true => c.body.made_dtype,
        false => dtype,
    };
    let shape = shape.or_else(|| Some(Vec::new().into()));
    Some((shared_tensor(shape, domain, dtype, e.span), Vec::new()))
}

fn same_domain(a: &TensorTy, b: &TensorTy) -> bool {
    format!("{:?}", a.domain) == format!("{:?}", b.domain)
}

fn unary(c: &mut FnChecker, e: &ast::Expr, name: &str, args: &[ast::Arg]) -> Typed {
    let (names, required): (&[&str], &[bool]) = match name {
        "clamp" => (&["x", "lo", "hi"], &[true, false, false]),
        "tril" | "triu" => (&["x", "diagonal"], &[true, false]),
        _ => (&["x"], &[true]),
    };
    let slots = bind(c, name, names, required, args)?;
    let mut bounds = Vec::new();
    for slot in slots.iter().skip(1).flatten() {
        let ty = c.expr(&slot.value);
        bounds.push((ty.clone(), slot.value.span));
        // `diagonal=k` is a Python Int, as torch's.
        let int = matches!(ty.kind, TyKind::Scalar(ScalarKind::Int) | TyKind::Error);
        if names[1] == "diagonal" && !int {
            c.diagnostics.push(
                Diagnostic::error(codes::E0408, format!("`diagonal` of `{name}` is an `Int`"))
                    .with_primary(slot.value.span, format!("this is `{}`", show_ty(&ty)))
                    .with_help("count diagonals above the main one, as `diagonal=1`, or below it, as `diagonal=-1`"),
            );
            return None;
        }
    }
    let x = slots[0]?;
    let ty = c.expr(&x.value);
    if name == "clamp" && slots.iter().skip(1).all(Option::is_none) {
        // torch.clamp raises a RuntimeError without a bound.
        c.diagnostics.push(
            Diagnostic::error(codes::E0407, "`clamp` needs at least one bound")
                .with_primary(e.span, "no `lo=` or `hi=`")
                .with_help("give a bound: `clamp(x, lo=0.0)`, `clamp(x, hi=1.0)` or both"),
        );
        return None;
    }
    let TyKind::Tensor(t) = &ty.kind else {
        if !matches!(ty.kind, TyKind::Error) {
            c.diagnostics.push(
                Diagnostic::error(codes::E0408, format!("`{name}` takes a tensor"))
                    .with_primary(x.value.span, format!("this is `{}`", show_ty(&ty))),
            );
        }
        return None;
    };
    if matches!(name, "tril" | "triu") && t.shape.as_ref().is_some_and(|s| s.len() < 2) {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0401,
                format!("`{name}` takes a tensor of at least two axes"),
            )
            .with_primary(x.value.span, format!("this is `{}`", show_ty(&ty))),
        );
        return None;
    }
    if name == "abs" && !c.takes_category(name, &ty, x.value.span, Category::Int) {
        return None;
    }
    let domain = match (name, &t.domain) {
        ("abs", _) => Some(Domain::NonNeg),
        ("clamp", Some(d)) if !clamp_keeps(c, d, slots[1], slots[2]) => None,
        ("sign", _) => Some(Domain::Signed),
        // `tril` and `triu` put zeros in: a positive domain takes 0 in.
        ("tril" | "triu", Some(Domain::Pos)) => Some(Domain::NonNeg),
        ("tril" | "triu", Some(Domain::Neg)) => Some(Domain::NonPos),
        _ => t.domain.clone(),
    };
    let dtype = match name {
        // `torch.clamp` promotes with its bounds: a bool clamped to whole
        // numbers is `i64`, an integer to a float one `f32`.
        "clamp" => {
            let mut operands = vec![(&ty, x.value.span)];
            operands.extend(bounds.iter().map(|(t, s)| (t, *s)));
            c.promoted(&operands, name)?
        }
        _ => t.dtype,
    };
    let domain = if dtype != t.dtype && dtype != effective_dtype(t) {
        None
    } else {
        domain
    };
    Some((
        shared_tensor(t.shape.clone(), domain, dtype, e.span),
        Vec::new(),
    ))
}

/// Whether `clamp(x, lo, hi)` of values in `domain` stays in it. Values
/// only move to a bound: a `lo` no higher than the domain's top and a `hi`
/// no lower than its bottom keep it (whole ones for `Index` and `Bool`); a
/// bound the checker does not know as a number does not. `clamp(ids, 3,
/// 9)` of `Index[n]` ids may be 3 where `n` is 2.
fn clamp_keeps(
    c: &FnChecker,
    domain: &Domain,
    lo: Option<&ast::Arg>,
    hi: Option<&ast::Arg>,
) -> bool {
    let whole = matches!(domain, Domain::Index(_) | Domain::Bool);
    let known = |a: Option<&ast::Arg>| match a {
        None => Some(None),
        Some(a) => literal(&a.value)
            .filter(|v| !whole || v.fract() == 0.0)
            .map(Some),
    };
    let (Some(lo), Some(hi)) = (known(lo), known(hi)) else {
        return false;
    };
    let (bottom, top) = match domain {
        Domain::Real => (None, None),
        Domain::NonNeg => (Some((0.0, false)), None),
        Domain::Pos => (Some((0.0, true)), None),
        Domain::NonPos => (None, Some((0.0, false))),
        Domain::Neg => (None, Some((0.0, true))),
        Domain::Unit | Domain::Bool => (Some((0.0, false)), Some((1.0, false))),
        Domain::Signed => (Some((-1.0, false)), Some((1.0, false))),
        // `n - 1` where the size is known; at least 0 in any case.
        Domain::Index(n) => {
            let n = c.ctx.env.dims.value(&n.poly).or(n.poly.as_constant());
            let top = n.map_or(0.0, |n| (n - 1).max(0) as f64);
            (Some((0.0, false)), Some((top, false)))
        }
    };
    let lo_keeps = match (lo, top) {
        (Some(v), Some((t, open))) => v < t || (v == t && !open),
        _ => true,
    };
    let hi_keeps = match (hi, bottom) {
        (Some(v), Some((b, open))) => v > b || (v == b && !open),
        _ => true,
    };
    lo_keeps && hi_keeps
}

/// A number literal's value, negated or not.
fn literal(e: &ast::Expr) -> Option<f64> {
    match &e.kind {
        ast::ExprKind::Int(v) => Some(*v as f64),
        ast::ExprKind::Float(v) => Some(*v),
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } => literal(operand).map(|v| -v),
        _ => None,
    }
}

fn concat(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, "concat", &["a", "b", "over"], &[true, true, true], args)?;
    let (a, b) = (slots[0]?, slots[1]?);
    let (aty, _, ashape) = shaped(c, a, "concat")?;
    let (bty, _, bshape) = shaped(c, b, "concat")?;
    let operands = [(&aty, a.value.span), (&bty, b.value.span)];
    c.unify_dtypes(&operands, "concat")?;
    let dtype = c.promoted(&operands, "concat")?;
    let positions = over(c, slots[2]?, &ashape, &aty, a.value.span)?;
    let [p] = positions.as_slice() else {
        return None;
    };
    let dims = c.ctx.env.dims;
    if ashape.len() != bshape.len() {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0401,
                format!(
                    "`concat` of tensors of {} and {} axes",
                    ashape.len(),
                    bshape.len()
                ),
            )
            .with_primary(b.value.span, format!("this is `{}`", show_ty(&bty)))
            .with_secondary(a.value.span, format!("this is `{}`", show_ty(&aty)))
            .with_note("the tensors must have the same axes except the one they are joined along"),
        );
        return None;
    }
    for (i, (x, y)) in ashape.iter().zip(bshape.iter()).enumerate() {
        if i == *p {
            continue;
        }
        if let (Some(px), Some(py)) = (axis_poly_ref(x), axis_poly_ref(y)) {
            if !dims.same_size(&px, &py) {
                let joined = &ashape[*p];
                c.diagnostics.push(
                    Diagnostic::error(codes::E0401, format!("`concat` over `{joined}`: axis {} differs", i + 1))
                        .with_primary(b.value.span, format!("axis {} is {} here", i + 1, crate::body::shape::show_size(dims, &py)))
                        .with_secondary(a.value.span, format!("axis {} is {} here", i + 1, crate::body::shape::show_size(dims, &px)))
                        .with_note(format!("`concat` joins `{}` and `{}` along axis {} (`{joined}`); every other axis must match", show_ty(&aty), show_ty(&bty), p + 1))
                        .with_help("concatenate along the axis that differs, or make the other axes equal first (`repeat`)"),
                );
                return None;
            }
        }
    }
    let mut out = ashape.to_vec();
    let sum = axis_poly(&ashape[*p])
        .unwrap_or_default()
        .add(&axis_poly(&bshape[*p]).unwrap_or_default())
        .ok()?;
    out[*p] = axis_of(sum, e.span);
    Some((tensor(Some(out), None, dtype, e.span), positions))
}

fn stack(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let mut first: Option<(Ty, TensorTy, Arc<[Axis]>, Span)> = None;
    let mut at: Option<&ast::Arg> = None;
    let mut count = 0;
    let mut stacked = Vec::new();
    for a in args {
        if a.name.as_ref().is_some_and(|k| k.name.as_str() == "over") && at.is_none() {
            at = Some(a);
            continue;
        }
        count += 1;
        if let Some(key) = &a.name {
            c.diagnostics.push(
                Diagnostic::error(
                    codes::E0407,
                    format!("`stack` has no parameter `{}`", key.name),
                )
                .with_primary(key.span, "unknown keyword")
                .with_note("`stack` takes the tensors to stack, by position, and `over=` the new axis's position"),
            );
            return None;
        }
        let (ty, t, shape) = shaped(c, a, "stack")?;
        stacked.push((ty.clone(), a.value.span));
        match &first {
            None => first = Some((ty, t, shape, a.value.span)),
            Some((fty, _, fshape, fspan)) => {
                if let Some(detail) =
                    crate::body::shape::shape_mismatch(c.ctx.env.dims, &shape, fshape)
                {
                    c.diagnostics.push(
                        Diagnostic::error(codes::E0401, "`stack` takes tensors of one shape")
                            .with_primary(a.value.span, format!("this is `{}`", show_ty(&ty)))
                            .with_secondary(*fspan, format!("this is `{}`", show_ty(fty)))
                            .with_note(detail),
                    );
                    return None;
                }
            }
        }
    }
    let Some((_, t, shape, _)) = first else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0407, "`stack` takes at least one tensor")
                .with_primary(e.span, "nothing to stack"),
        );
        return None;
    };
    let operands: Vec<(&Ty, Span)> = stacked.iter().map(|(t, s)| (t, *s)).collect();
    c.unify_dtypes(&operands, "stack")?;
    let dtype = c.promoted(&operands, "stack")?;
    // The operands' one domain, when they share it (`stack(u, s)` of a
    // `Unit` and a `Signed` tensor holds both's values; found by
    // shapescript-gen, campaign 9000, program 6672).
    let shared = stacked
        .iter()
        .all(|(ty, _)| matches!(&ty.kind, TyKind::Tensor(x) if same_domain(x, &t)));
    let domain = if dtype == effective_dtype(&t) && shared {
        t.domain
    } else {
        None
    };
    let new = axis_of(Poly::constant(count as i128), e.span);
    let mut out = shape.to_vec();
    let Some(a) = at else {
        out.insert(0, new);
        return Some((tensor(Some(out), domain, dtype, e.span), Vec::new()));
    };
    let p = stack_position(c, a, shape.len())?;
    out.insert(p, new);
    Some((tensor(Some(out), domain, dtype, e.span), vec![p]))
}

/// Where `stack(..., over=p)` puts its new axis: from 0 to the rank, or
/// counted from the end as PyTorch's `dim=-1` (E0406 for anything else).
fn stack_position(c: &mut FnChecker, a: &ast::Arg, rank: usize) -> Option<usize> {
    let value = match &a.value.kind {
        ast::ExprKind::Int(v) => i128::try_from(*v).ok(),
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } => match operand.kind {
            ast::ExprKind::Int(v) => i128::try_from(v).ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    };
    let slots = rank as i128 + 1;
    let p = value
        .map(|v| if v < 0 { v + slots } else { v })
        .filter(|p| (0..slots).contains(p))
        .and_then(|p| usize::try_from(p).ok());
    if p.is_none() {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, "`over=` of `stack` is the new axis's position")
                .with_primary(a.value.span, "not a position for the new axis")
                .with_help(format!("a position from 0 to {rank}, or from -1 back to -{slots} counting from the end, as `over=-1`")),
        );
    }
    p
}

fn split(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let slots = bind(
        c,
        "split",
        &["x", "parts", "over"],
        &[true, true, true],
        args,
    )?;
    let x = slots[0]?;
    let (ty, t, shape) = shaped(c, x, "split")?;
    let parts_arg = slots[1]?;
    let parts = size_arg(c, parts_arg, "split")?;
    let positions = over(c, slots[2]?, &shape, &ty, x.value.span)?;
    let [p] = positions.as_slice() else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, "`split` takes one axis in `over=`")
                .with_primary(slots[2]?.value.span, "several axes"),
        );
        return None;
    };
    let dims = c.ctx.env.dims;
    let count = dims.substitute(&parts).ok().and_then(|q| q.as_constant());
    let Some(count) = count.filter(|k| (1..=64).contains(k)) else {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, "`split` takes a number of parts from 1 to 64")
                .with_primary(parts_arg.value.span, "not a number of parts")
                .with_help("write the number, as in `split(qkv, 3, over=n)`"),
        );
        return None;
    };
    let whole = axis_poly(&shape[*p]).unwrap_or_default();
    let piece = whole
        .div_exact(&parts)
        .or_else(|_| dims.substitute(&whole)?.div_exact(&Poly::constant(count)));
    let Ok(piece) = piece else {
        c.diagnostics.push(
            Diagnostic::error(
                codes::E0402,
                format!("`split` of `{}` into {count} parts is not exact", shape[*p]),
            )
            .with_primary(
                parts_arg.value.span,
                format!(
                    "{} is not a multiple of {count}",
                    crate::body::shape::show_size(dims, &whole)
                ),
            )
            .with_secondary(x.value.span, format!("this is `{}`", show_ty(&ty))),
        );
        return None;
    };
    let mut out = shape.to_vec();
    out[*p] = axis_of(piece, e.span);
    let one = tensor(Some(out), t.domain, t.dtype, e.span);
    let items = (0..count).map(|_| one.clone()).collect();
    Some((
        Ty {
            kind: TyKind::Tuple(items),
            span: e.span,
        },
        positions,
    ))
}

fn take(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, "take", &["x", "ids", "over"], &[true, true, true], args)?;
    let x = slots[0]?;
    let (ty, t, shape) = shaped(c, x, "take")?;
    let (ids_ty, _, ids) = shaped(c, slots[1]?, "take")?;
    if !c.are_ids("take", &ids_ty, slots[1]?.value.span) {
        return None;
    }
    let positions = over(c, slots[2]?, &shape, &ty, x.value.span)?;
    let [p] = positions.as_slice() else {
        return None;
    };
    let mut out: Vec<Axis> = shape[..*p].to_vec();
    out.extend(ids.iter().cloned());
    out.extend(shape[p + 1..].iter().cloned());
    Some((tensor(Some(out), t.domain, t.dtype, e.span), positions))
}

fn one_hot(c: &mut FnChecker, e: &ast::Expr, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, "one_hot", &["ids", "n"], &[true, true], args)?;
    let (ids, _, shape) = shaped(c, slots[0]?, "one_hot")?;
    if !c.are_ids("one_hot", &ids, slots[0]?.value.span) {
        return None;
    }
    let n_arg = slots[1]?;
    let n = size_arg(c, n_arg, "one_hot")?;
    let mut out = shape.to_vec();
    out.push(axis_of(n, n_arg.value.span));
    Some((
        tensor(Some(out), None, Some(DtypeKind::I64), e.span),
        Vec::new(),
    ))
}

/// A size argument known before the program runs (E0406 otherwise).
fn size_arg(c: &mut FnChecker, arg: &ast::Arg, what: &str) -> Option<Poly> {
    let ty = c.expr(&arg.value);
    match c.static_size(&arg.value) {
        Some(n) => Some(n),
        None if matches!(ty.kind, TyKind::Error) => None,
        None => {
            c.diagnostics.push(
                Diagnostic::error(
                    codes::E0406,
                    format!("`{what}` takes a size known before the program runs"),
                )
                .with_primary(arg.value.span, format!("this is `{}`", show_ty(&ty)))
                .with_help("a size is a number, a dim or an axis name"),
            );
            None
        }
    }
}

fn filled(c: &mut FnChecker, e: &ast::Expr, name: &str, args: &[ast::Arg]) -> Typed {
    let (names, required): (&[&str], &[bool]) = if name == "full" {
        (&["shape", "value"], &[true, true])
    } else {
        (&["shape"], &[true])
    };
    let slots = bind(c, name, names, required, args)?;
    if let Some(v) = slots.get(1).copied().flatten() {
        c.expr(&v.value);
    }
    let shape_arg = slots[0]?;
    let ast::ExprKind::Shape(list) = &shape_arg.value.kind else {
        let ty = c.expr(&shape_arg.value);
        if !matches!(ty.kind, TyKind::Error) {
            c.diagnostics.push(
                Diagnostic::error(codes::E0406, format!("`{name}` takes a shape"))
                    .with_primary(shape_arg.value.span, "not a shape")
                    .with_help(format!("write the shape in brackets: `{name}([n D])`")),
            );
        }
        return None;
    };
    let written = ast::Type {
        kind: ast::TypeKind::Tensor {
            shape: Some(ast::Shape::List(list.clone())),
            domain: None,
            dtype: None,
        },
        span: list.span,
    };
    let ty = c.lower_body_type(&written);
    // A tensor made at run time needs each size's value.
    if let Some((at, size)) = c.unread_in(&ty) {
        c.report_unread(at, size);
        return None;
    }
    let TyKind::Tensor(t) = ty.kind else {
        return None;
    };
    // A written `?k` is a new unknown size: nothing gives it a value to make.
    let unknown = t.shape.iter().flat_map(|s| s.iter()).find(|a| {
        axis_poly(a).is_some_and(|p| {
            p.symbols()
                .iter()
                .any(|s| matches!(s, crate::size::Symbol::Unknown { .. }))
        })
    });
    if let Some(axis) = unknown {
        c.diagnostics.push(
            Diagnostic::error(codes::E0406, format!("`{name}` needs sizes known when the program runs"))
                .with_primary(shape_arg.value.span, format!("`{axis}` is an unknown size here"))
                .with_note("a `?k` written in a type is a new unknown size, which no value gives (`docs/shapescript/sizes.md`)")
                .with_help("make it the size of a value that has it, as `zeros_like`: `x * 0.0`"),
        );
        return None;
    }
    // The body's float dtype (`Body::made_dtype`), so `x + ones(...)` in a
    // bf16 body stays bf16.
    Some((
        shared_tensor(t.shape, None, c.body.made_dtype, e.span),
        Vec::new(),
    ))
}

fn counted(c: &mut FnChecker, e: &ast::Expr, name: &str, args: &[ast::Arg]) -> Typed {
    let slots = bind(c, name, &["n"], &[true], args)?;
    let n = count_arg(c, slots[0]?, "n", || format!("`{name}` takes an `Int`"))??;
    let axis = axis_of(n.clone(), e.span);
    Some(match name {
        "arange" => (
            tensor(
                Some(vec![axis]),
                Some(Domain::Index(Box::new(Size::computed(n)))),
                Some(DtypeKind::I64),
                e.span,
            ),
            Vec::new(),
        ),
        _ => (
            tensor(
                Some(vec![axis.clone(), axis]),
                None,
                c.body.made_dtype,
                e.span,
            ),
            Vec::new(),
        ),
    })
}
