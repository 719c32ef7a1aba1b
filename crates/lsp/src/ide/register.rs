//! The index's first pass: registers every top-level declaration, and the
//! fields, methods and parameters inside them, so that a use anywhere (in
//! any file, before or after the declaration) finds them. Never resolves uses.

use diag::Span;
use syntax::{ast, Name};

use super::defs::{Def, DefId, DefKind, Index, Source};

fn doc_text(doc: Option<&ast::Doc>) -> Option<String> {
    doc.map(|d| d.text.clone())
}

pub(super) fn new_def(
    name: &ast::Ident,
    kind: DefKind,
    item_span: Span,
    container: Option<String>,
) -> Def {
    Def {
        name: name.name.to_string(),
        kind,
        span: name.span,
        item_span,
        container,
        doc: None,
        ty: None,
        renamed_axes: None,
        dims_in_ty: Vec::new(),
        named_ty: None,
        body_start: None,
    }
}

/// Where a declaration's body starts, so hovers can show its header alone.
fn body_start(item: &ast::Item) -> Option<u32> {
    match item {
        ast::Item::Fn(f) => Some(fn_body_start(f)),
        ast::Item::Model(m) => Some(members_start(&m.fields, &m.methods, m.span)),
        ast::Item::Record(r) => Some(members_start(&r.fields, &[], r.span)),
        _ => None,
    }
}

fn fn_body_start(f: &ast::Fn) -> u32 {
    match &f.body {
        ast::FnBody::Block(block) => block.span.start,
        ast::FnBody::Expr(expr) => expr.span.start,
    }
}

fn members_start(fields: &[ast::Field], methods: &[ast::Fn], span: Span) -> u32 {
    let first = fields
        .iter()
        .map(|f| f.span.start)
        .chain(methods.iter().map(|m| m.span.start))
        .min();
    first.unwrap_or(span.end)
}

/// First pass: top-level names, members and parameters, so uses anywhere find them.
pub(super) fn register_items(index: &mut Index, source: &Source) {
    let top = index.top.entry(source.file).or_default();
    for item in &source.ast.items {
        let name = item.name();
        if name.is_missing() {
            continue;
        }
        let kind = match item {
            ast::Item::Import(i) => DefKind::Import(source.imports.get(&i.name.name).copied()),
            ast::Item::Dim(d) => match d.value {
                ast::DimValue::Size(_) => DefKind::Dim,
                ast::DimValue::Alias(_) => DefKind::Alias,
            },
            ast::Item::ExternFn(_) => DefKind::ExternFn,
            ast::Item::Fn(_) => DefKind::Fn,
            ast::Item::Model(_) => DefKind::Model,
            ast::Item::Record(_) => DefKind::Record,
        };
        top.entry(name.name).or_insert(name.span);
        let mut def = new_def(name, kind, item.span(), None);
        def.doc = doc_text(item.doc());
        def.body_start = body_start(item);
        index.defs.insert(name.span, def);
    }
    for item in &source.ast.items {
        match item {
            ast::Item::Fn(f) => register_params(
                index,
                f.name.span,
                &f.params,
                &format!("fn {}", f.name.name),
            ),
            ast::Item::ExternFn(f) => register_params(
                index,
                f.name.span,
                &f.params,
                &format!("extern fn {}", f.name.name),
            ),
            ast::Item::Model(m) => {
                let label = format!("model {}", m.name.name);
                let mut members = Vec::new();
                for field in &m.fields {
                    register_field(index, field, &label, &mut members);
                }
                for method in &m.methods {
                    let member = (&method.name, DefKind::Method, method.span);
                    let doc = method.doc.as_deref();
                    let Some(def) = register_member(index, member, doc, &label, &mut members)
                    else {
                        continue;
                    };
                    def.body_start = Some(fn_body_start(method));
                    let label = format!("fn {}.{}", m.name.name, method.name.name);
                    register_params(index, method.name.span, &method.params, &label);
                }
                index.members.insert(m.name.span, members);
            }
            ast::Item::Record(r) => {
                let label = format!("record {}", r.name.name);
                let mut members = Vec::new();
                for field in &r.fields {
                    register_field(index, field, &label, &mut members);
                }
                index.members.insert(r.name.span, members);
            }
            _ => {}
        }
    }
}

fn register_field(
    index: &mut Index,
    field: &ast::Field,
    label: &str,
    members: &mut Vec<(Name, DefId)>,
) {
    let member = (&field.name, DefKind::Field, field.span);
    register_member(index, member, field.doc.as_deref(), label, members);
}

/// Registers a field or a method of the model or record `label` (a name,
/// its kind and the whole member) with its doc; `None` for a missing name.
fn register_member<'i>(
    index: &'i mut Index,
    (name, kind, span): (&ast::Ident, DefKind, Span),
    doc: Option<&ast::Doc>,
    label: &str,
    members: &mut Vec<(Name, DefId)>,
) -> Option<&'i mut Def> {
    if name.is_missing() {
        return None;
    }
    let mut def = new_def(name, kind, span, Some(label.to_string()));
    def.doc = doc_text(doc);
    members.push((name.name, name.span));
    index.defs.insert(name.span, def);
    index.defs.get_mut(&name.span)
}

fn register_params(index: &mut Index, owner: DefId, params: &[ast::Param], label: &str) {
    let mut ids = Vec::new();
    for param in params {
        if param.name.is_missing() {
            continue;
        }
        let def = new_def(
            &param.name,
            DefKind::Param,
            param.span,
            Some(label.to_string()),
        );
        index.defs.insert(param.name.span, def);
        ids.push(param.name.span);
    }
    index.params.insert(owner, ids);
}
