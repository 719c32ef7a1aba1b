//! The types of values in the index: the checker's types of parameters,
//! `let`s and fields put on their defs, and the dims each type holds in a
//! size (what a dim's hover lists). Never lowers or checks a type itself.

use std::collections::HashMap;

use check::hir::Symbol;
use check::hir::{Axis, AxisKind, Domain, Ty, TyKind};
use diag::{FileId, Span};
use syntax::Name;

use super::defs::{Def, DefId, DefKind, Index};

/// The dims a type holds in a size, in order, each once.
pub fn dims_in_ty(ty: &Ty, out: &mut Vec<(FileId, Name)>) {
    match &ty.kind {
        TyKind::Tensor(t) => {
            for axis in t.shape.as_deref().unwrap_or_default() {
                dims_in_axis(axis, out);
            }
            if let Some(Domain::Index(size)) = &t.domain {
                dims_in_poly(&size.poly, out);
            }
        }
        TyKind::Named { args, .. } => {
            for arg in args {
                dims_in_poly(&arg.poly, out);
            }
        }
        TyKind::Stack { count, elem } => {
            dims_in_poly(&count.poly, out);
            dims_in_ty(elem, out);
        }
        TyKind::Tuple(items) => {
            for item in items {
                dims_in_ty(item, out);
            }
        }
        TyKind::Axis(size) | TyKind::Axes(size) | TyKind::SizeParam(size) => {
            dims_in_poly(&size.poly, out)
        }
        TyKind::Scalar(_) | TyKind::Error => {}
    }
}

fn dims_in_axis(axis: &Axis, out: &mut Vec<(FileId, Name)>) {
    match &axis.kind {
        AxisKind::Size { size, .. } => dims_in_poly(&size.poly, out),
        AxisKind::Group { parts, .. } => {
            for part in parts {
                dims_in_axis(part, out);
            }
        }
        AxisKind::Rounded { .. } | AxisKind::Rest | AxisKind::Error => {}
    }
}

fn dims_in_poly(poly: &check::hir::Poly, out: &mut Vec<(FileId, Name)>) {
    for symbol in poly.symbols() {
        if let Symbol::Dim { file, name } = symbol {
            let key = (*file, *name);
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
}

/// The defs of one kind by their whole declaration's span (`item_span`).
fn by_item(index: &Index, kind: DefKind) -> HashMap<Span, DefId> {
    index
        .defs
        .values()
        .filter(|d| d.kind == kind)
        .map(|d| (d.item_span, d.span))
        .collect()
}

/// Puts the checker's types of top-level functions' parameters (extern
/// ones included) on their defs.
pub fn add_signature_types(index: &mut Index, signatures: &check::hir::Signatures) {
    let by_item = by_item(index, DefKind::Param);
    for param in signatures.values().flat_map(|s| &s.params) {
        if let Some(def) = by_item.get(&param.span).and_then(|d| index.defs.get_mut(d)) {
            set_type(def, &param.ty);
        }
    }
}

fn set_type(def: &mut Def, ty: &Ty) {
    if matches!(ty.kind, TyKind::Error) {
        return;
    }
    def.ty = Some(ty.to_string());
    def.renamed_axes = ty.renamed_axes();
    def.dims_in_ty.clear();
    dims_in_ty(ty, &mut def.dims_in_ty);
}

/// Puts the checker's types of values on their defs: parameters, `let`s,
/// loop variables and fields. They replace the types lowered here, since
/// the checker also knows the types of `let`s written without one.
pub fn add_body_types(index: &mut Index, bodies: &check::hir::Bodies) {
    let bindings = bodies
        .fns
        .iter()
        .flat_map(|body| body.params.iter().chain(&body.lets))
        .map(|b| (b.span, &b.ty));
    let fields = bodies
        .types
        .iter()
        .flat_map(|t| &t.fields)
        .map(|f| (f.span, &f.ty));
    let by_item = by_item(index, DefKind::Field);
    for (span, ty) in bindings.chain(fields) {
        let key = by_item.get(&span).copied().unwrap_or(span);
        if let Some(def) = index.defs.get_mut(&key) {
            set_type(def, ty);
        }
    }
}
