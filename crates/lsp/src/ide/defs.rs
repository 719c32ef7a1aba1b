//! What a name can mean in the editor: `Def`, one declared thing (a dim, an
//! alias, a function, a parameter, a `let`, a field, a generic axis...),
//! `Occurrence`, one place a name is written and the `Def` it means, and the
//! `Index` holding them all, with its lookups. Plain data shared by every
//! editor feature (`register` and `index` fill it); never walks syntax itself.

use std::collections::HashMap;

use diag::{FileId, Span};
use syntax::{ast, Name};

/// A declared thing, identified by the span of its declaring name.
pub type DefId = Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Dim,
    Alias,
    Fn,
    ExternFn,
    Model,
    Record,
    /// `import vision`, with the file it found.
    Import(Option<FileId>),
    Param,
    /// A `let`, a name of `let (a, b)`, or a `for` variable.
    Local,
    Field,
    Method,
    /// A model's size parameter `model Mlp(Din, Dh)`.
    SizeParam,
    /// A generic axis a signature introduces (`b`, the `gh` of `16gh`), or a
    /// record's or alias's own axis name.
    Generic,
    /// An axis name inside a pattern `[b (h 2)] -> [b h]`.
    PatternAxis,
}

impl DefKind {
    /// What the user calls it, for hover titles.
    pub fn word(self) -> &'static str {
        match self {
            DefKind::Dim => "dim",
            DefKind::Alias => "shape alias",
            DefKind::Fn => "fn",
            DefKind::ExternFn => "extern fn",
            DefKind::Model => "model",
            DefKind::Record => "record",
            DefKind::Import(_) => "import",
            DefKind::Param => "parameter",
            DefKind::Local => "let",
            DefKind::Field => "field",
            DefKind::Method => "method",
            DefKind::SizeParam => "size parameter",
            DefKind::Generic => "generic axis",
            DefKind::PatternAxis => "pattern axis",
        }
    }

    /// A value whose type may hold a dim (a dim's hover lists these).
    pub fn is_value(self) -> bool {
        matches!(self, DefKind::Param | DefKind::Local | DefKind::Field)
    }
}

#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// The declaring name.
    pub span: Span,
    /// The whole declaration (an item, a field, a parameter, a `let`).
    pub item_span: Span,
    /// The function, model or record it is in, as the dim hover groups by it:
    /// `fn attention`, `model Block`, `fn Block.forward`, `record Stats`.
    pub container: Option<String>,
    pub doc: Option<String>,
    /// Its type as the checker shows it (`[b n D]`), where known.
    pub ty: Option<String>,
    /// The axes its type's pattern named apart from their sizes, as the
    /// checker shows them (`` `j` (size `n`) ``), where there are some.
    pub renamed_axes: Option<String>,
    /// The dims its type holds in a size, by declaring file and name.
    pub dims_in_ty: Vec<(FileId, Name)>,
    /// For a value whose type names a model or record: that declaration.
    pub named_ty: Option<DefId>,
    /// Where a function's or model's body starts: its header ends before.
    pub body_start: Option<u32>,
}

/// One place a name is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The name as written (only the name of `vision.Images`).
    pub span: Span,
    pub def: DefId,
    /// The declaration itself, not a use.
    pub is_decl: bool,
}

/// A name visible in a region of a file (for completion).
#[derive(Clone, Copy, Debug)]
pub struct Visible {
    pub file: FileId,
    pub from: u32,
    pub to: u32,
    pub def: DefId,
}

/// A call written in the source, for signature help.
#[derive(Clone, Debug)]
pub struct CallSite {
    /// From the callee's end (the `(`) to the call's end.
    pub args_span: Span,
    pub callee: Option<DefId>,
    /// Each argument's span and keyword.
    pub args: Vec<(Span, Option<Name>)>,
}

/// A file the index walks: a program module or a library file.
pub struct Source<'a> {
    pub file: FileId,
    pub ast: &'a ast::File,
    /// `import` name to file, for `vision.Images`.
    pub imports: HashMap<Name, FileId>,
}

#[derive(Default)]
pub struct Index {
    pub defs: HashMap<DefId, Def>,
    /// Per file, sorted by position.
    pub occurrences: HashMap<FileId, Vec<Occurrence>>,
    pub visible: Vec<Visible>,
    pub calls: HashMap<FileId, Vec<CallSite>>,
    /// Top-level names of each file (the first declaration of a name).
    pub top: HashMap<FileId, HashMap<Name, DefId>>,
    /// Fields and methods of each model and record.
    pub members: HashMap<DefId, Vec<(Name, DefId)>>,
    /// Parameters of each function and method, in order.
    pub params: HashMap<DefId, Vec<DefId>>,
    /// The `let`s of each file without a written type, for inlay hints.
    pub untyped_lets: HashMap<FileId, Vec<DefId>>,
}

impl Index {
    /// The occurrence under `offset` in `file`, touching either end.
    pub fn occurrence_at(&self, file: FileId, offset: u32) -> Option<Occurrence> {
        let list = self.occurrences.get(&file)?;
        let i = list.partition_point(|o| o.span.end < offset);
        list[i..]
            .iter()
            .take_while(|o| o.span.start <= offset)
            .min_by_key(|o| o.span.len())
            .copied()
    }

    /// Every occurrence of `def`, in every file.
    pub fn occurrences_of(&self, def: DefId) -> Vec<Occurrence> {
        let mut out: Vec<Occurrence> = self
            .occurrences
            .values()
            .flatten()
            .filter(|o| o.def == def)
            .copied()
            .collect();
        out.sort_by_key(|o| (o.span.file, o.span.start));
        out
    }
}
