//! What every written name was resolved to: the names of types,
//! signatures, alias declarations and dims' values, as the lowering and the
//! dims' evaluation resolve them, and the names of bodies (values, callees,
//! fields, keyword arguments, assignment targets, pattern axes), as the
//! body checker resolves them, for the language server
//! (`docs/shapescript/signatures.md`, `docs/shapescript/imports.md` and
//! `docs/shapescript/functions.md` say how names are found). Recorded only
//! when `Options::resolutions` is on: plain `check` keeps no table and pays
//! one untaken branch per name.

use std::cell::RefCell;
use std::collections::HashMap;

use diag::{FileId, Span};
use syntax::{ast, Name};

/// What a written name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    /// A top-level declaration (a dim, a shape alias, a function, a model,
    /// a record, an import), by the file whose table holds it and its name
    /// there; its declaring name is `Checked::decl_name_span(file, name)`.
    Decl { file: FileId, name: Name },
    /// A generic axis of the signature, or an alias declaration's own axis
    /// name.
    Generic(Name),
    /// A name of a body declared by the name at this span: a parameter, a
    /// `let`, a loop variable, `self`, a field or method, a callee's
    /// parameter (a keyword argument), or a pattern's axis (its first
    /// occurrence in the pattern, which declares itself).
    Declared(Span),
    /// A built-in operation, which has no declaration in the program.
    Builtin(crate::builtin_names::Builtin),
}

/// The resolutions recorded while checking, by the written name's span.
#[derive(Default)]
pub struct Recorder {
    names: RefCell<Vec<(Span, TypeName)>>,
}

impl Recorder {
    /// Notes that the name written at `span` means `what`.
    pub fn note(&self, span: Span, what: TypeName) {
        if !span.is_empty() {
            self.names.borrow_mut().push((span, what));
        }
    }

    /// Notes that `path`, written in `origin`, was found in `file`'s table
    /// (and that its `file.` part names `origin`'s import).
    #[cold]
    #[inline(never)]
    pub fn note_path(&self, origin: FileId, path: &ast::Path, file: FileId) {
        self.note(
            path.name.span,
            TypeName::Decl {
                file,
                name: path.name.name,
            },
        );
        if let Some(import) = &path.file {
            self.note(
                import.span,
                TypeName::Decl {
                    file: origin,
                    name: import.name,
                },
            );
        }
    }

    /// The table of what was recorded; the first resolution of a span wins
    /// (an alias's axes are lowered again at each use, the same way).
    pub fn finish(self) -> TypeNames {
        let mut map = HashMap::new();
        for (span, what) in self.names.into_inner() {
            map.entry(span).or_insert(what);
        }
        let mut generics: Vec<(Span, Name)> = map
            .iter()
            .filter_map(|(span, what)| match what {
                TypeName::Generic(name) => Some((*span, *name)),
                _ => None,
            })
            .collect();
        // One entry a span (a map key), so an unstable sort is as good and faster.
        generics.sort_unstable_by_key(|(span, _)| (span.file, span.start));
        let mut decls: Vec<(Span, FileId, Name)> = map
            .iter()
            .filter_map(|(span, what)| match what {
                TypeName::Decl { file, name } => Some((*span, *file, *name)),
                _ => None,
            })
            .collect();
        decls.sort_unstable_by_key(|(span, ..)| (span.file, span.start));
        TypeNames {
            map,
            generics,
            decls,
        }
    }
}

/// The recorded resolutions of names in types (empty unless
/// `Options::resolutions` was on).
#[derive(Default, Debug)]
pub struct TypeNames {
    map: HashMap<Span, TypeName>,
    /// The names resolved to generic axes, by place.
    generics: Vec<(Span, Name)>,
    /// The names resolved to top-level declarations, by place, with the
    /// declaring file and name.
    decls: Vec<(Span, FileId, Name)>,
}

impl TypeNames {
    /// What the name written at `span` was resolved to, if recorded.
    pub fn get(&self, span: Span) -> Option<TypeName> {
        self.map.get(&span).copied()
    }

    /// The first name resolved to generic axis `name` in `file` from
    /// `from` to `to`.
    pub fn first_generic(&self, file: FileId, from: u32, to: u32, name: Name) -> Option<Span> {
        let start = self
            .generics
            .partition_point(|(s, _)| (s.file, s.start) < (file, from));
        self.generics[start..]
            .iter()
            .take_while(|(s, _)| s.file == file && s.start < to)
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
    }

    /// The names resolved to top-level declarations in `file` from `from`
    /// to `to`, in order, with the declaring file and name.
    pub fn decls_in(
        &self,
        file: FileId,
        from: u32,
        to: u32,
    ) -> impl Iterator<Item = (Span, FileId, Name)> + '_ {
        let start = self
            .decls
            .partition_point(|(s, ..)| (s.file, s.start) < (file, from));
        self.decls[start..]
            .iter()
            .take_while(move |(s, ..)| s.file == file && s.start < to)
            .copied()
    }
}
