//! What a name can mean in the editor: `Def`, one declared thing (a dim, an
//! alias, a function, a parameter, a `let`, a field, a generic axis...), and
//! `Occurrence`, one place a name is written and the `Def` it means. Plain
//! data shared by every editor feature; never walks syntax itself.

use diag::{FileId, Span};

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
    /// The dims its type holds in a size, by declaring file and name.
    pub dims_in_ty: Vec<(FileId, String)>,
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
    pub args: Vec<(Span, Option<String>)>,
}
