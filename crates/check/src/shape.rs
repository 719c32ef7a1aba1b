//! Types as values have them: groups flattened into one axis whose size is
//! the product, axes named by their size when it is one symbol, comparing two
//! types (shape, dtype, kind) and showing them. Plain functions over
//! `types::Ty`; never reports diagnostics.

use smallvec::SmallVec;
use std::borrow::Cow;
use std::sync::Arc;
use syntax::Name;

use diag::Span;
use syntax::ast::ScalarKind;

use crate::dims::DimValues;
use crate::size::{Poly, Size, Symbol};
use crate::typed::Range;
use crate::types::{show_shape, Axis, AxisKind, Domain, DtypeKind, TensorTy, Ty, TyKind};

/// An axis of a value of size `poly`, named when the size is one generic or dim.
pub(crate) fn axis_of(poly: Poly, span: Span) -> Axis {
    let name = match poly.as_symbol() {
        Some(Symbol::Generic(n) | Symbol::Dim { name: n, .. }) => Some(*n),
        _ => None,
    };
    Axis {
        kind: AxisKind::Size {
            size: Size::computed(poly),
            name,
        },
        span,
    }
}

/// The size of an axis as one polynomial (a group's is the product).
/// Borrowed for a plain axis (the common case, asked for on every
/// comparison), computed only for a group.
// Inline: called for every axis compared, and mostly just borrows.
#[inline]
pub(crate) fn axis_poly_ref(axis: &Axis) -> Option<Cow<'_, Poly>> {
    match &axis.kind {
        AxisKind::Size { size, .. } => Some(Cow::Borrowed(&size.poly)),
        AxisKind::Group { parts, .. } => group_poly(parts).map(Cow::Owned),
        _ => None,
    }
}

/// The product of a group's parts.
fn group_poly(parts: &[Axis]) -> Option<Poly> {
    let mut out = Poly::constant(1);
    for part in parts {
        out = out.mul(&*axis_poly_ref(part)?).ok()?;
    }
    Some(out)
}

/// `axis_poly_ref`, owned, for callers that keep the size.
pub(crate) fn axis_poly(axis: &Axis) -> Option<Poly> {
    axis_poly_ref(axis).map(Cow::into_owned)
}

/// The same type with groups replaced by one axis of their product size.
/// `flatten_ty` without a copy when there is nothing to flatten.
pub(crate) fn flatten_cow(ty: &Ty) -> Cow<'_, Ty> {
    match &ty.kind {
        TyKind::Tensor(t)
            if !t
                .shape
                .as_ref()
                .is_some_and(|s| s.iter().any(|a| matches!(a.kind, AxisKind::Group { .. }))) =>
        {
            Cow::Borrowed(ty)
        }
        TyKind::Tensor(_) | TyKind::Tuple(_) | TyKind::Stack { .. } => Cow::Owned(flatten_ty(ty)),
        _ => Cow::Borrowed(ty),
    }
}

pub(crate) fn flatten_ty(ty: &Ty) -> Ty {
    let grouped = |t: &TensorTy| {
        t.shape
            .as_ref()
            .is_some_and(|s| s.iter().any(|a| matches!(a.kind, AxisKind::Group { .. })))
    };
    if let TyKind::Tensor(t) = &ty.kind {
        if !grouped(t) {
            return ty.clone();
        }
    }
    let kind = match &ty.kind {
        TyKind::Tensor(t) => TyKind::Tensor(TensorTy {
            shape: t.shape.as_ref().map(|axes| {
                axes.iter()
                    .map(|a| match &a.kind {
                        AxisKind::Group { written, .. } => match axis_poly(a) {
                            Some(poly) => Axis {
                                kind: AxisKind::Size {
                                    size: Size {
                                        poly,
                                        written: Some(*written),
                                    },
                                    name: None,
                                },
                                span: a.span,
                            },
                            None => Axis {
                                kind: AxisKind::Error,
                                span: a.span,
                            },
                        },
                        _ => a.clone(),
                    })
                    .collect()
            }),
            domain: t.domain.clone(),
            dtype: t.dtype,
        }),
        TyKind::Tuple(items) => TyKind::Tuple(items.iter().map(flatten_ty).collect()),
        TyKind::Stack { count, elem } => TyKind::Stack {
            count: count.clone(),
            elem: Box::new(flatten_ty(elem)),
        },
        other => other.clone(),
    };
    Ty {
        kind,
        span: ty.span,
    }
}

/// Applies `f` to every size polynomial in the type (shapes, `Index[N]`,
/// model arguments), keeping names where the size stays one symbol.
pub(crate) fn map_sizes(ty: &Ty, f: &mut dyn FnMut(&Poly) -> Poly) -> Ty {
    let kind = match &ty.kind {
        TyKind::Tensor(t) => TyKind::Tensor(TensorTy {
            shape: t.shape.as_ref().map(|axes| {
                axes.iter()
                    .map(|a| match axis_poly(a) {
                        Some(p) => {
                            let new = f(&p);
                            if new == p {
                                a.clone()
                            } else {
                                axis_of(new, a.span)
                            }
                        }
                        None => a.clone(),
                    })
                    .collect()
            }),
            domain: match &t.domain {
                Some(Domain::Index(n)) => Some(Domain::Index(Box::new(Size::computed(f(&n.poly))))),
                other => other.clone(),
            },
            dtype: t.dtype,
        }),
        TyKind::Tuple(items) => TyKind::Tuple(items.iter().map(|t| map_sizes(t, f)).collect()),
        TyKind::Stack { count, elem } => TyKind::Stack {
            count: Size::computed(f(&count.poly)),
            elem: Box::new(map_sizes(elem, f)),
        },
        TyKind::Named { file, name, args } => TyKind::Named {
            file: *file,
            name: *name,
            args: args.iter().map(|a| Size::computed(f(&a.poly))).collect(),
        },
        other => other.clone(),
    };
    Ty {
        kind,
        span: ty.span,
    }
}

/// Whether any size in the type has an unknown size `?k`.
pub(crate) fn has_unknowns(ty: &Ty) -> bool {
    let poly_has = |p: &Poly| {
        p.terms().iter().any(|t| {
            t.mono
                .factors()
                .iter()
                .any(|(s, _)| matches!(s, Symbol::Unknown { .. }))
        })
    };
    match &ty.kind {
        TyKind::Tensor(t) => {
            t.shape.as_ref().is_some_and(|s| {
                s.iter()
                    .any(|a| axis_poly_ref(a).is_some_and(|p| poly_has(&p)))
            }) || matches!(&t.domain, Some(Domain::Index(n)) if poly_has(&n.poly))
        }
        TyKind::Tuple(items) => items.iter().any(has_unknowns),
        TyKind::Stack { elem, .. } => has_unknowns(elem),
        _ => false,
    }
}

/// The dtype a tensor type has or implies: `Index[N]` is integer, `Bool` bool.
pub(crate) fn effective_dtype(t: &TensorTy) -> Option<DtypeKind> {
    t.dtype.or(match t.domain {
        Some(Domain::Index(_)) => Some(DtypeKind::I64),
        Some(Domain::Bool) => Some(DtypeKind::Bool),
        _ => None,
    })
}

/// Whether a parameter type is a tuple of sizes, `(Size[A], Size[B])`
/// (`docs/shapescript/externs.md`).
pub(crate) fn is_size_tuple(items: &[Ty]) -> bool {
    !items.is_empty() && items.iter().all(|t| matches!(t.kind, TyKind::SizeParam(_)))
}

pub(crate) fn is_float(d: DtypeKind) -> bool {
    matches!(
        d,
        DtypeKind::F64 | DtypeKind::F32 | DtypeKind::F16 | DtypeKind::Bf16
    )
}

/// The value range a type's domain gives.
pub(crate) fn range_of(ty: &Ty) -> Option<Range> {
    let domain = match &ty.kind {
        TyKind::Tensor(t) => t.domain.as_ref()?,
        _ => return None,
    };
    let inf = f64::INFINITY;
    let (lo, hi) = match domain {
        Domain::Real => (-inf, inf),
        Domain::NonNeg => (0.0, inf),
        Domain::Pos => (0.0, inf),
        Domain::NonPos => (-inf, 0.0),
        Domain::Neg => (-inf, 0.0),
        Domain::Unit => (0.0, 1.0),
        Domain::Signed => (-1.0, 1.0),
        Domain::Bool => (0.0, 1.0),
        Domain::Index(n) => (0.0, n.poly.as_constant().map_or(inf, |n| (n - 1) as f64)),
    };
    let open_zero = matches!(domain, Domain::Pos | Domain::Neg);
    Some(Range {
        lo,
        hi,
        lo_open: lo == -inf || (open_zero && lo == 0.0),
        hi_open: hi == inf || (open_zero && hi == 0.0),
    })
}

/// Shows a type for messages; `[]` for a tensor of no axes.
pub(crate) fn show_ty(ty: &Ty) -> String {
    match &ty.kind {
        TyKind::Tensor(TensorTy {
            shape: Some(axes),
            domain: None | Some(Domain::Real),
            dtype: None,
        }) => show_shape(axes),
        _ => ty.to_string(),
    }
}

/// What kind of value a type is, in words, for messages.
pub(crate) fn kind_of(ty: &Ty) -> &'static str {
    match &ty.kind {
        TyKind::Tensor(_) => "a tensor",
        TyKind::Scalar(ScalarKind::Int) => "a Python `Int`",
        TyKind::Scalar(ScalarKind::Float) => "a Python `Float`",
        TyKind::Scalar(ScalarKind::Bool) => "a Python `Bool`",
        TyKind::Named { .. } => "a model or record",
        TyKind::Stack { .. } => "a stack of models",
        TyKind::Tuple(_) => "a tuple",
        TyKind::Axis(_) | TyKind::Axes(_) => "an axis name",
        TyKind::SizeParam(_) => "a size",
        TyKind::Error => "a value",
    }
}

/// How two types differ.
pub(crate) enum Mismatch {
    Shape(String),
    Dtype(String),
    Kind,
}

/// Whether `found` fits `expected`: equal shapes axis by axis (dims by
/// value), dtypes that agree where both are given, the same kind.
pub(crate) fn same_ty(dims: &DimValues, found: &Ty, expected: &Ty) -> Option<Mismatch> {
    match (&found.kind, &expected.kind) {
        (TyKind::Error, _) | (_, TyKind::Error) => None,
        (TyKind::Tensor(f), TyKind::Tensor(e)) => {
            if let (Some(fs), Some(es)) = (&f.shape, &e.shape) {
                if let Some(detail) = shape_mismatch(dims, fs, es) {
                    return Some(Mismatch::Shape(detail));
                }
            }
            let (want, got) = (effective_dtype(e), effective_dtype(f));
            (want != got).then(|| {
                Mismatch::Dtype(format!(
                    "the value is {}, the type says {}",
                    crate::dtype::show(got),
                    crate::dtype::show(want)
                ))
            })
        }
        (TyKind::Scalar(a), TyKind::Scalar(b)) => {
            let fits = a == b || (*a == ScalarKind::Int && *b == ScalarKind::Float);
            (!fits).then_some(Mismatch::Kind)
        }
        // A Python number where a tensor is expected is broadcast by torch.
        (TyKind::Scalar(ScalarKind::Int | ScalarKind::Float), TyKind::Tensor(e)) => {
            (e.shape.as_ref().is_some_and(|s| !s.is_empty())).then_some(Mismatch::Kind)
        }
        (TyKind::Tuple(a), TyKind::Tuple(b)) if a.len() == b.len() => {
            a.iter().zip(b).find_map(|(x, y)| same_ty(dims, x, y))
        }
        (
            TyKind::Named {
                name: a, file: fa, ..
            },
            TyKind::Named {
                name: b, file: fb, ..
            },
        ) => (a != b || fa != fb).then_some(Mismatch::Kind),
        (TyKind::Stack { elem: a, .. }, TyKind::Stack { elem: b, .. }) => same_ty(dims, a, b),
        _ => Some(Mismatch::Kind),
    }
}

/// The first difference between two shapes, in words.
pub(crate) fn shape_mismatch(
    dims: &DimValues,
    found: &[Axis],
    expected: &[Axis],
) -> Option<String> {
    // The same axes (a value of a parameter's own type): nothing to compare.
    if std::ptr::eq(found, expected) {
        return None;
    }
    // A shape with an error axis fits anything (its mistake was told); it
    // is looked for only once a difference is found, as most shapes fit.
    let has_error = || {
        found
            .iter()
            .chain(expected)
            .any(|a| matches!(a.kind, AxisKind::Error))
    };
    if found.len() != expected.len() {
        if has_error() {
            return None;
        }
        return Some(format!(
            "expected {} axes, found {}",
            expected.len(),
            found.len()
        ));
    }
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        // Two plain axes (nearly all) compare their sizes in place: mostly
        // the same polynomial, and the dims only when they differ.
        if let (AxisKind::Size { size: a, .. }, AxisKind::Size { size: b, .. }) = (&f.kind, &e.kind)
        {
            if a.poly == b.poly || dims.same_size(&a.poly, &b.poly) {
                continue;
            }
        }
        let (Some(fp), Some(ep)) = (axis_poly_ref(f), axis_poly_ref(e)) else {
            continue;
        };
        if !dims.same_size(&fp, &ep) {
            if has_error() {
                return None;
            }
            return Some(format!(
                "axis {} is {}, but {} is expected",
                i + 1,
                show_size(dims, &fp),
                show_size(dims, &ep)
            ));
        }
    }
    swapped_names(found, expected).map(|(i, j, name)| {
        format!(
            "axis {} is `{name}`, which the type puts at axis {}: the sizes are equal, but names find axes, so this would swap them without moving any value",
            i + 1,
            j + 1
        )
    })
}

/// An axis whose size agrees but whose name the other shape has at
/// another position (`[A B]` against `[B A]`, with `A = B`): names find
/// axes (`over=`, broadcasting), so passing it by value would swap two
/// axes without moving a value. Its position in `found`, the other
/// position, and the name.
pub(crate) fn swapped_names(found: &[Axis], expected: &[Axis]) -> Option<(usize, usize, Name)> {
    for (i, f) in found.iter().enumerate() {
        let Some(name) = axis_name(f) else {
            continue;
        };
        if axis_name(&expected[i]) == Some(name) {
            continue;
        }
        if let Some(j) = expected.iter().position(|e| axis_name(e) == Some(name)) {
            return Some((i, j, *name));
        }
    }
    None
}

/// A size for messages: `D (768)` when dims give it a value.
pub(crate) fn show_size(dims: &DimValues, poly: &Poly) -> String {
    let shown = format!("`{poly}`");
    match dims.substitute(poly).ok().and_then(|p| p.as_constant()) {
        Some(v) if poly.as_constant().is_none() => format!("{shown} ({v})"),
        _ => shown,
    }
}

/// The name an axis is found by (`over=`, broadcasting, `Axis` arguments).
pub(crate) fn axis_name(axis: &Axis) -> Option<&Name> {
    match &axis.kind {
        AxisKind::Size { name, .. } => name.as_ref(),
        _ => None,
    }
}

/// The axes a name finds in a shape (`over=`, `Axis` arguments): those it
/// names, else those whose size is that one generic axis or dim (`n` finds
/// the axes `i` and `j` of size `n` a pattern named). More than one is
/// E0411: an axis is never picked silently.
pub(crate) enum Found {
    None,
    One(usize),
    Many(SmallVec<[usize; 4]>),
}

/// Looks a name up among a shape's axes; see `Found`.
pub(crate) fn find_axis(shape: &[Axis], name: &str) -> Found {
    let by_name = |a: &Axis| axis_name(a).is_some_and(|n| **n == *name);
    let by_size = |a: &Axis| a.size_name().is_some_and(|n| *n == *name);
    let mut hits: SmallVec<[usize; 4]> = (0..shape.len()).filter(|&i| by_name(&shape[i])).collect();
    if hits.is_empty() {
        hits = (0..shape.len()).filter(|&i| by_size(&shape[i])).collect();
    }
    match hits.as_slice() {
        [] => Found::None,
        [one] => Found::One(*one),
        _ => Found::Many(hits),
    }
}

/// The axes a name matched, for E0411: `` `i` (size `n`) and `j` (size
/// `n`) `` when a pattern named them, else `axes 2 and 3`.
pub(crate) fn describe_matches(shape: &[Axis], hits: &[usize]) -> String {
    if hits.iter().any(|&p| shape[p].renamed()) {
        let named: Vec<String> = hits.iter().map(|&p| shape[p].describe()).collect();
        join_and(&named)
    } else {
        let positions: Vec<String> = hits.iter().map(|p| (p + 1).to_string()).collect();
        format!("axes {}", join_and(&positions))
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The names of `shape`'s axes `hits`, when each has a plain name of its
/// own and no two are alike.
pub(crate) fn distinct_names(shape: &[Axis], hits: &[usize]) -> Option<Vec<Name>> {
    let names: Vec<Name> = hits
        .iter()
        .filter_map(|&p| axis_name(&shape[p]).copied())
        .collect();
    let distinct = names.len() == hits.len()
        && names
            .iter()
            .enumerate()
            .all(|(i, n)| !names[..i].contains(n));
    distinct.then_some(names)
}

/// E0411's help: how to tell the axes a name matched apart. Axes a pattern
/// named apart are found by those names; axes of one name get new names
/// from a pattern, as in `rearrange(s, [b n1 n2] -> [b n1 n2])`.
pub(crate) fn tell_apart(
    shape: &[Axis],
    hits: &[usize],
    name: &str,
    what: &str,
    value: &str,
) -> String {
    if let Some(names) = distinct_names(shape, hits) {
        let options: Vec<String> = names.iter().map(|n| format!("`{what}{n}`")).collect();
        return format!("say which axis by its own name: {}", options.join(" or "));
    }
    let mut k = 0;
    let axes: Vec<String> = shape
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if hits.contains(&i) {
                k += 1;
                format!("{name}{k}")
            } else {
                match axis_name(a) {
                    Some(n) if !n.contains('.') => n.to_string(),
                    _ => format!("a{}", i + 1),
                }
            }
        })
        .collect();
    let pattern = axes.join(" ");
    format!(
        "name the axes apart with a pattern, as in `rearrange({value}, [{pattern}] -> [{pattern}])`, then use `{what}{name}1` or `{what}{name}2`"
    )
}

/// A tensor type of the given axes.
pub(crate) fn tensor(
    shape: Option<Vec<Axis>>,
    domain: Option<Domain>,
    dtype: Option<DtypeKind>,
    span: Span,
) -> Ty {
    shared_tensor(shape.map(Into::into), domain, dtype, span)
}

/// A tensor type of an existing shape, shared rather than copied.
pub(crate) fn shared_tensor(
    shape: Option<Arc<[Axis]>>,
    domain: Option<Domain>,
    dtype: Option<DtypeKind>,
    span: Span,
) -> Ty {
    Ty {
        kind: TyKind::Tensor(TensorTy {
            shape,
            domain,
            dtype,
        }),
        span,
    }
}
