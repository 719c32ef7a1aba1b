//! E0409 for a field or method a model or record lacks: says when a field
//! is a method, suggests the closest member by edit distance (`diag`'s
//! did-you-mean, which the language server turns into a fix), else lists
//! the members there are. Below `callee` and `expr`, which find members.

use diag::Diagnostic;
use syntax::{ast, Name};

use super::FnChecker;
use crate::codes;
use crate::model::ModelInfo;

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// E0409 for `owner.name`, which is no field of `owner` (and, when
    /// `called`, no method either).
    pub(super) fn no_such_member(
        &mut self,
        info: Option<&ModelInfo>,
        owner: Name,
        name: &ast::Ident,
        called: bool,
    ) {
        let is_method = !called && info.is_some_and(|m| m.methods.contains_key(&name.name));
        let (what, label) = match (called, is_method) {
            (true, _) => ("method", "no such method"),
            (false, true) => ("field", "a method, not a field"),
            (false, false) => ("field", "no such field"),
        };
        let mut d = Diagnostic::error(
            codes::E0409,
            format!("`{owner}` has no {what} `{}`", name.name),
        )
        .with_primary(name.span, label);
        if is_method {
            d = d.with_help(format!("call the method: `.{}(...)`", name.name));
        } else if let Some(m) = info {
            d = with_members(d, m, owner, name, called);
        }
        self.diagnostics.push(d);
    }
}

/// The did-you-mean of a missing member, or the list of the members there
/// are: for a call, the methods and then the fields (a field holding a
/// sub-model is called too); otherwise the fields.
fn with_members(
    d: Diagnostic,
    m: &ModelInfo,
    owner: Name,
    name: &ast::Ident,
    called: bool,
) -> Diagnostic {
    let mut methods: Vec<&str> = m.methods.keys().map(|n| n.as_str()).collect();
    methods.sort_unstable();
    let fields: Vec<&str> = m.def.fields.iter().map(|f| &*f.name).collect();
    let best_method = called.then(|| diag::closest(name.name.as_str(), methods.iter().copied()));
    if let Some(Some(best)) = best_method {
        return d.with_help(format!("a method with a similar name exists: `{best}`"));
    }
    if let Some(best) = diag::closest(name.name.as_str(), fields.iter().copied()) {
        return d.with_help(format!("a field with a similar name exists: `{best}`"));
    }
    let mut d = d;
    if called && !methods.is_empty() {
        d = d.with_note(format!("`{owner}` has the methods {}", methods.join(", ")));
    }
    if !fields.is_empty() {
        d = d.with_note(format!("`{owner}` has the fields {}", fields.join(", ")));
    }
    d
}
