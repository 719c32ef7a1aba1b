//! Notes what each name written in a body resolves to, for the language
//! server (`resolved::Recorder`, read through `Checked::name_decl_span`):
//! the body checker's own answers, noted where it resolves a name, and the
//! names of a call that the checker reads without typing them (pattern
//! axes, keyword arguments, `over=` names). Also checks, only for the
//! record, the bodies plain `check` skips: the library's, a file's with a
//! syntax error, one whose signature holds a mistake. Nothing here reports
//! or types anything; with `Options::resolutions` off none of it runs.

use diag::{FileId, Span};
use syntax::{ast, Name};

use super::{FnChecker, Local};
use crate::builtin_names::Builtin;
use crate::program::{Decl, Program};
use crate::resolved::{Recorder, TypeName};
use crate::signature::Signature;
use crate::size::Symbol;
use crate::typed::Bodies;

/// The declaring name of member `member` (a field or a method) of the model
/// or record `owner` declared in `file`.
pub(crate) fn member_span(
    program: &Program,
    file: FileId,
    owner: Name,
    member: Name,
) -> Option<Span> {
    match program.get_module(file)?.decl(owner)? {
        Decl::Model(m) => m
            .fields
            .iter()
            .map(|f| &f.name)
            .chain(m.methods.iter().map(|f| &f.name))
            .find(|n| n.name == member)
            .map(|n| n.span),
        Decl::Record(r) => r
            .fields
            .iter()
            .find(|f| f.name.name == member)
            .map(|f| f.name.span),
        _ => None,
    }
}

impl FnChecker<'_, '_> {
    /// Where names are noted, when they are.
    #[inline]
    pub(crate) fn recorder(&self) -> Option<&Recorder> {
        self.ctx.env.resolutions
    }

    /// Notes, when resolutions are recorded, that the name written at
    /// `span` means `what`.
    #[inline]
    pub(crate) fn note(&self, span: Span, what: TypeName) {
        if let Some(record) = self.recorder() {
            record.note(span, what);
        }
    }

    /// Notes that `name` (written at `span`) is top-level `name` of `file`.
    #[inline]
    pub(crate) fn note_decl(&self, span: Span, file: FileId, name: Name) {
        self.note(span, TypeName::Decl { file, name });
    }

    /// Notes that the name at `span` is member `member` of `owner` (in `file`).
    #[inline]
    pub(crate) fn note_member(&self, span: Span, file: FileId, owner: Name, member: Name) {
        if let Some(record) = self.recorder() {
            note_member(record, self.ctx.env.program, span, (file, owner, member));
        }
    }

    /// Notes a built-in called or named `name` at `span`.
    #[inline]
    pub(crate) fn note_builtin(&self, span: Span, name: Name) {
        if let Some(record) = self.recorder() {
            if let Some(builtin) = Builtin::from_name(&name) {
                record.note(span, TypeName::Builtin(builtin));
            }
        }
    }

    /// Notes the size symbol (a dim or a generic axis) `name` stands for.
    #[inline]
    pub(crate) fn note_size(&self, name: &ast::Ident, symbol: Option<&Symbol>) {
        if let (Some(record), Some(symbol)) = (self.recorder(), symbol) {
            crate::lower::note_symbol(record, name, symbol);
        }
    }

    /// Notes the names of a call's arguments that the call reads without
    /// typing them as values: keyword arguments (the parameters `params`
    /// of the callee, when known, else a pattern's axes), the axes of a
    /// pattern, and the axis names of `over=` and size arguments.
    #[cold]
    #[inline(never)]
    pub(crate) fn note_call_args(&self, params: &[&ast::Ident], args: &[ast::Arg]) {
        let Some(record) = self.recorder() else {
            return;
        };
        for arg in args {
            if let Some(key) = &arg.name {
                if let Some(param) = params.iter().find(|p| p.name == key.name) {
                    record.note(key.span, TypeName::Declared(param.span));
                }
            }
        }
        let mut axes: Vec<&ast::Ident> = Vec::new();
        for arg in args {
            match &arg.value.kind {
                ast::ExprKind::Pattern(pattern) => note_pattern(record, pattern, &mut axes),
                ast::ExprKind::AxisGroup(names) => {
                    for name in names {
                        self.note_axis_name(record, name);
                    }
                }
                ast::ExprKind::Name(name) => self.note_axis_name(record, name),
                _ => {}
            }
        }
        for key in args.iter().filter_map(|a| a.name.as_ref()) {
            if let Some(axis) = axes.iter().find(|a| a.name == key.name) {
                record.note(key.span, TypeName::Declared(axis.span));
            }
        }
    }

    /// A name given as an argument (`over=n`, `k=K`, a tensor `x`): a local,
    /// else the dim or generic axis it names as a size.
    fn note_axis_name(&self, record: &Recorder, name: &ast::Ident) {
        if name.is_missing() {
            return;
        }
        match self.local(name.name) {
            Some(Local { span, .. }) => record.note(name.span, TypeName::Declared(*span)),
            None => {
                let size = self.size_named(name.name);
                if let Some(symbol) = size.as_ref().and_then(|s| s.as_symbol()) {
                    crate::lower::note_symbol(record, name, symbol);
                }
            }
        }
    }
}

/// Notes member `member` of `owner` in `file`, at `span`.
#[cold]
#[inline(never)]
fn note_member(record: &Recorder, program: &Program, span: Span, member: (FileId, Name, Name)) {
    if let Some(decl) = member_span(program, member.0, member.1, member.2) {
        record.note(span, TypeName::Declared(decl));
    }
}

/// A pattern's names are its own axes (`docs/shapescript/patterns.md`): the
/// first occurrence of each declares it, the others mean it. `axes` gets
/// the declaring occurrences.
fn note_pattern<'p>(record: &Recorder, pattern: &'p ast::Pattern, axes: &mut Vec<&'p ast::Ident>) {
    let mut names = Vec::new();
    for list in pattern.lhs.iter().chain(std::iter::once(&pattern.rhs)) {
        ast::axis_names(&list.axes, &mut names);
    }
    for name in names {
        let decl = match axes.iter().find(|a| a.name == name.name) {
            Some(first) => first.span,
            None => {
                axes.push(name);
                name.span
            }
        };
        record.note(name.span, TypeName::Declared(decl));
    }
}

/// Checks the body of `f` only for the names it notes: its diagnostics and
/// typed body are dropped. For the bodies plain `check` skips (the
/// library's, a file's with a syntax error, one whose signature holds a
/// reported mistake), whose names the language server still needs.
#[cold]
#[inline(never)]
pub(super) fn note_names_only(
    ctx: &super::Ctx,
    file: FileId,
    owner: Option<Name>,
    signature: &Signature,
    f: &ast::Fn,
) {
    let mut dropped = Vec::new();
    let mut checker = FnChecker::new(ctx, file, owner, signature, &mut dropped);
    checker.names_only = true;
    checker.check(f, &mut Vec::new());
}

/// Checks, only for the names they note, the bodies of `module`, which
/// plain `check` skips (the library's, a file's with a syntax error).
#[cold]
#[inline(never)]
pub(super) fn note_module_names(ctx: &super::Ctx, module: &crate::program::Module) {
    let mut bodies = Bodies::default();
    let mut dropped = Vec::new();
    super::check_module(ctx, module, &mut bodies, &mut Vec::new(), &mut dropped);
}
