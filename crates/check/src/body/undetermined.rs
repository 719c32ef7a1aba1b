//! Generic axes with no size of their own: `fn flat(x: [(a b c)])` gives
//! only the product `a*b*c`, so neither the run-time boundary check nor the
//! generated Python can tell `a` from `b`. Such an axis may be used only
//! inside the same kind of group; used on its own (an axis of the result, a
//! value, a cast's target) it is E0306, so that a program that checks
//! clean also builds (`docs/shapescript/signatures.md`).

use diag::{Diagnostic, Span};
use syntax::Name;

use crate::codes;
use crate::shape::axis_poly;
use crate::signature::Signature;
use crate::size::Symbol;
use crate::typed::GenericSource;
use crate::types::{Axis, AxisKind, Ty};

/// The generic axes the parameters have only as parts of groups, never as
/// an axis of their own (`[n + 1]` is read at the boundary by other means),
/// and that `sources` cannot read either.
pub(super) fn group_only(signature: &Signature, sources: &[GenericSource]) -> Vec<Name> {
    let param_axes = || param_axes(signature);
    unsourced(signature, sources)
        .filter(|g| !param_axes().any(|axis| mentions(axis, **g)))
        .filter(|g| param_axes().any(|axis| group_has(axis, **g)))
        .copied()
        .collect()
}

/// The generic axes some parameter's type has but the entry doesn't read
/// (`GenericSource`): `a` of `[a*b]` or of `[(a b)]`, `c` of `Index[c]`.
/// Their value is not known in the body.
pub(super) fn unread(signature: &Signature, sources: &[GenericSource]) -> Vec<Name> {
    let param_axes = || param_axes(signature);
    unsourced(signature, sources)
        .filter(|g| {
            param_axes().any(|axis| mentions(axis, **g) || group_has(axis, **g))
                || in_domains(signature, **g)
        })
        .copied()
        .collect()
}

/// Every axis of the parameters' shapes.
fn param_axes(signature: &Signature) -> impl Iterator<Item = &Axis> {
    signature
        .params
        .iter()
        .filter_map(|p| p.ty.shape())
        .flatten()
}

/// The generic axes that no `GenericSource` reads.
fn unsourced<'a>(
    signature: &'a Signature,
    sources: &'a [GenericSource],
) -> impl Iterator<Item = &'a Name> {
    signature
        .generics
        .iter()
        .filter(|g| !sources.iter().any(|s| s.name == **g))
}

/// Whether a parameter's domain names the generic axis `g` (`Index[c]`):
/// a size no axis gives.
fn in_domains(signature: &Signature, g: Name) -> bool {
    signature.params.iter().any(|p| match &p.ty.kind {
        crate::types::TyKind::Tensor(t) => match &t.domain {
            Some(crate::types::Domain::Index(n)) => n
                .poly
                .symbols()
                .iter()
                .any(|s| matches!(s, crate::size::Symbol::Generic(x) if *x == g)),
            _ => false,
        },
        _ => false,
    })
}

/// E0306 for the generic axis `name` used as a value at `span` when the
/// entry doesn't read it; `group_only` is what `group_only` found.
pub(super) fn value_diagnostic(
    signature: &Signature,
    group_only: &[Name],
    span: Span,
    name: Name,
) -> Diagnostic {
    if group_only.contains(&name) {
        return diagnostic(signature, group_only, span, name);
    }
    Diagnostic::error(
        codes::E0306,
        format!("the size `{name}` can't be worked out from the parameters"),
    )
    .with_primary(span, format!("`{name}` needs its value here"))
    .with_help(format!(
        "a size used as a value is read from a parameter's axis: give one parameter an axis that is `{name}` itself, or a multiple such as `2*{name}`"
    ))
}

/// The first axis of `types` (not a part of a group) whose size uses one of
/// `unknown`, with that name.
pub(super) fn alone<'t>(
    types: impl Iterator<Item = &'t Ty>,
    unknown: &[Name],
) -> Option<(Span, Name)> {
    if unknown.is_empty() {
        return None;
    }
    types
        .filter_map(|ty| ty.shape())
        .flatten()
        .find_map(|axis| {
            unknown
                .iter()
                .find(|g| mentions(axis, **g))
                .map(|g| (axis.span, *g))
        })
}

/// E0306 for `name`, one of `unknown`, used on its own at `span`: one
/// diagnostic names them all.
pub(super) fn diagnostic(
    signature: &Signature,
    unknown: &[Name],
    span: Span,
    name: Name,
) -> Diagnostic {
    let names: Vec<String> = unknown.iter().map(|g| format!("`{g}`")).collect();
    let group = signature
        .params
        .iter()
        .filter_map(|p| p.ty.shape())
        .flatten()
        .find(|a| group_has(a, name));
    let mut d = Diagnostic::error(
        codes::E0306,
        format!("the size `{name}` can't be worked out from the parameters"),
    )
    .with_primary(span, format!("`{name}` used on its own"))
    .with_help(format!(
        "the parameters give only the product of {}: add a parameter with `{name}` as an axis of its own, or use the group whole",
        names.join(", ")
    ));
    if let Some(group) = group {
        d = d.with_secondary(group.span, "only the product of this group is known");
    }
    d
}

/// Whether `axis` is a size (not a group) that uses the generic axis `g`.
fn mentions(axis: &Axis, g: Name) -> bool {
    match &axis.kind {
        AxisKind::Size { size, .. } => size.poly.symbols().contains(&&Symbol::Generic(g)),
        _ => false,
    }
}

/// Whether `axis` is a group with the generic axis `g` as a part.
fn group_has(axis: &Axis, g: Name) -> bool {
    match &axis.kind {
        AxisKind::Group { parts, .. } => parts.iter().any(|part| {
            axis_poly(part).and_then(|p| p.as_symbol().cloned()) == Some(Symbol::Generic(g))
        }),
        _ => false,
    }
}
