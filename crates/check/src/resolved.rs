//! What the names written in types, signatures, alias declarations and
//! dims' values were resolved to, recorded as the lowering and the dims'
//! evaluation resolve them, for the language server
//! (`docs/shapescript/signatures.md` and `docs/shapescript/imports.md` say
//! how names are found). Recorded only when `Options::resolutions` is on:
//! plain `check` keeps no table and pays one untaken branch per name.

use std::cell::RefCell;
use std::collections::HashMap;

use diag::{FileId, Span};
use syntax::{ast, Name};

/// What a name written in a type refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    /// A top-level declaration (a dim, a shape alias, a model, a record, an
    /// import), by the file whose table holds it and its name there; its
    /// declaring name is `Checked::decl_name_span(file, name)`.
    Decl { file: FileId, name: Name },
    /// A generic axis of the signature, or an alias declaration's own axis
    /// name.
    Generic(Name),
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
                TypeName::Decl { .. } => None,
            })
            .collect();
        // One entry a span (a map key), so an unstable sort is as good and faster.
        generics.sort_unstable_by_key(|(span, _)| (span.file, span.start));
        TypeNames { map, generics }
    }
}

/// The recorded resolutions of names in types (empty unless
/// `Options::resolutions` was on).
#[derive(Default, Debug)]
pub struct TypeNames {
    map: HashMap<Span, TypeName>,
    /// The names resolved to generic axes, by place.
    generics: Vec<(Span, Name)>,
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
}
