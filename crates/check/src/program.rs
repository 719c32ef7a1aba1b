//! The loaded program: one `Module` per `.ss` file with its syntax tree, its
//! imports and its top-level names, and the lookup of a name to the
//! declaration it means. Knows nothing of sizes or types.

use rustc_hash::FxHashMap as HashMap;
use std::path::PathBuf;

use crate::codes;
use diag::{Diagnostic, FileId, Span};
use syntax::ast;
use syntax::Name;

/// One file of the program.
pub struct Module {
    pub file: FileId,
    pub path: PathBuf,
    /// The name importers use: the file's stem (`vision` for `vision.ss`).
    pub name: String,
    pub ast: ast::File,
    /// `import` name to the imported module, for imports that were found.
    pub imports: HashMap<Name, FileId>,
    /// Top-level name to the index of its (first) item in `ast.items`.
    pub names: HashMap<Name, usize>,
    /// Where the parser reported mistakes, so the checker doesn't report
    /// what they left missing a second time.
    pub parse_errors: Vec<Span>,
}

impl Module {
    /// The declaration `name` in this module, without following imports.
    pub fn decl(&self, name: Name) -> Option<Decl<'_>> {
        let item = &self.ast.items[*self.names.get(&name)?];
        Some(match item {
            ast::Item::Dim(d) => match &d.value {
                ast::DimValue::Size(value) => Decl::Dim(d, value),
                ast::DimValue::Alias(list) => Decl::Alias(d, list),
            },
            ast::Item::Fn(f) => Decl::Fn(f),
            ast::Item::ExternFn(f) => Decl::ExternFn(f),
            ast::Item::Model(m) => Decl::Model(m),
            ast::Item::Record(r) => Decl::Record(r),
            ast::Item::Import(i) => Decl::Import(i, self.imports.get(&i.name.name).copied()),
        })
    }

    /// While the result is alive, sizes in messages name another file's dims
    /// as this module imports them (`vis.D`, `docs/shapescript/imports.md`):
    /// every phase that reports on this module's declarations holds it.
    pub fn import_names(&self) -> Option<crate::size::ImportNames> {
        if self.imports.is_empty() {
            return None;
        }
        // Sorted: the map's order is no order, and one name must win when a
        // file is imported twice.
        let mut names: Vec<(FileId, Name)> = self.imports.iter().map(|(n, f)| (*f, *n)).collect();
        names.sort_unstable_by_key(|a| a.1);
        Some(crate::size::ImportNames::enter(names))
    }

    /// Every top-level name of this module, for "did you mean" suggestions.
    pub fn top_level_names(&self) -> impl Iterator<Item = Name> + '_ {
        self.names.keys().copied()
    }

    /// Whether the parser reported a mistake inside `span`.
    pub fn has_parse_error_in(&self, span: Span) -> bool {
        self.parse_errors
            .iter()
            .any(|e| e.start >= span.start && e.start <= span.end)
    }
}

/// What a top-level name means.
#[derive(Clone, Copy, Debug)]
pub enum Decl<'a> {
    /// `dim D = 768`.
    Dim(&'a ast::Dim, &'a ast::SizeExpr),
    /// `dim Images = [b 3 16gh 16gw]`.
    Alias(&'a ast::Dim, &'a ast::ShapeList),
    Fn(&'a ast::Fn),
    ExternFn(&'a ast::ExternFn),
    Model(&'a ast::Model),
    Record(&'a ast::Record),
    /// `import vision`; `None` when the file was not found.
    Import(&'a ast::Import, Option<FileId>),
}

impl Decl<'_> {
    /// What the user would call it, with its article, for messages: "a dim", "an extern function", ...
    pub fn describe(&self) -> &'static str {
        match self {
            Decl::Dim(..) => "a dim",
            Decl::Alias(..) => "a shape alias",
            Decl::Fn(_) => "a function",
            Decl::ExternFn(_) => "an extern function",
            Decl::Model(_) => "a model",
            Decl::Record(_) => "a record",
            Decl::Import(..) => "an imported file",
        }
    }

    /// The span of the declared name.
    pub fn name_span(&self) -> Span {
        match self {
            Decl::Dim(d, _) | Decl::Alias(d, _) => d.name.span,
            Decl::Fn(f) => f.name.span,
            Decl::ExternFn(f) => f.name.span,
            Decl::Model(m) => m.name.span,
            Decl::Record(r) => r.name.span,
            Decl::Import(i, _) => i.name.span,
        }
    }
}

/// How a name failed to resolve.
#[derive(Clone, Debug)]
pub enum LookupError<'p> {
    /// `file.name` where `file` isn't imported here (E0204); holds `file`.
    NotImported(&'p ast::Ident),
    /// No such name (E0301), plain or `file.name`.
    NotFound(&'p ast::Path),
    /// `file.name` where `import file` failed, which was reported already.
    ImportFailed,
}

/// Every module, indexed by `FileId` (modules and source-map files are added together).
#[derive(Default)]
pub struct Program {
    pub modules: Vec<Module>,
    /// `FileId` to index in `modules`, by the id's number; `usize::MAX`
    /// for files in the source map that are not modules.
    pub by_file: Vec<usize>,
}

impl Program {
    pub fn module(&self, file: FileId) -> &Module {
        &self.modules[self.by_file[file.0 as usize]]
    }

    /// The declaration `name` in module `file`, without following imports.
    pub fn decl(&self, file: FileId, name: impl Into<Name>) -> Option<Decl<'_>> {
        self.module(file).decl(name.into())
    }

    /// The module of `file`, when `file` is one.
    pub fn get_module(&self, file: FileId) -> Option<&Module> {
        self.modules.get(*self.by_file.get(file.0 as usize)?)
    }

    /// Resolves `name` or `file.name` as written in module `from`; returns the
    /// module that declares it and the declaration.
    pub fn lookup<'p>(
        &self,
        from: FileId,
        path: &'p ast::Path,
    ) -> Result<(FileId, Decl<'_>), LookupError<'p>> {
        let target = match &path.file {
            None => from,
            Some(file) => match self.module(from).imports.get(&file.name) {
                Some(&target) => target,
                None if matches!(self.decl(from, file.name), Some(Decl::Import(..))) => {
                    return Err(LookupError::ImportFailed)
                }
                None => return Err(LookupError::NotImported(file)),
            },
        };
        match self.decl(target, path.name.name) {
            Some(decl) => Ok((target, decl)),
            None => Err(LookupError::NotFound(path)),
        }
    }

    /// The name module `from` uses for module `target`: its import name, or
    /// the file's own name when `from` reaches it only through another file.
    pub fn import_name(&self, from: FileId, target: FileId) -> String {
        let module = self.module(from);
        let mut names: Vec<&Name> = module
            .imports
            .iter()
            .filter(|(_, &f)| f == target)
            .map(|(n, _)| n)
            .collect();
        names.sort();
        match names.first() {
            Some(name) => name.to_string(),
            None => self.module(target).name.clone(),
        }
    }
}

impl LookupError<'_> {
    /// The diagnostic to report; `None` when the mistake was reported elsewhere.
    pub fn to_diagnostic(&self) -> Option<Diagnostic> {
        Some(match self {
            LookupError::ImportFailed => return None,
            LookupError::NotImported(file) => {
                let file = &file.name;
                Diagnostic::error(codes::E0204, format!("`{file}` is not an imported file"))
                    .with_primary(self.span(), "not imported")
                    .with_help(format!("add `import {file}` at the top of this file"))
            }
            LookupError::NotFound(ast::Path {
                file: Some(file),
                name,
                ..
            }) => {
                let (file, name) = (&file.name, &name.name);
                Diagnostic::error(codes::E0301, format!("cannot find `{name}` in `{file}`"))
                    .with_primary(self.span(), format!("not declared in `{file}.ss`"))
            }
            LookupError::NotFound(path) => Diagnostic::error(
                codes::E0301,
                format!("cannot find `{}` in this file", path.name.name),
            )
            .with_primary(self.span(), "not found"),
        })
    }

    fn span(&self) -> Span {
        match self {
            LookupError::NotImported(file) => file.span,
            LookupError::NotFound(path) => path.name.span,
            LookupError::ImportFailed => Span::new(FileId(0), 0, 0),
        }
    }
}
