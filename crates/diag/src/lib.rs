//! Shared diagnostics for ShapeScript and SexpGPU: the `Diagnostic` model and
//! the `SourceMap` it points into. Renderers live in `render`; this module
//! never formats text for a terminal and never does I/O.

mod code;
pub mod formatting;
pub mod render;
mod source_map;
mod suggest;

pub use code::{
    assert_sorted, error_page, examples, lookup, run_examples, Code, Example, ExampleKind,
    ExampleRun,
};
pub use source_map::{FileId, LineCol, SourceMap, Span};
pub use suggest::closest;

/// How serious a diagnostic is. Errors fail `check`; hints only with `--deny-hints`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Hint,
}

impl Severity {
    /// The word rustc prints before the code: `error`, `warning`, `hint`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Hint => "hint",
        }
    }
}

/// Why a formatter left a text as it was: what both languages' formatters
/// return, and what the `fmt` commands, the language servers and the
/// formatting tests read.
#[derive(Debug)]
pub enum FormatError {
    /// The text does not read: its diagnostics (in file 0).
    Syntax(Vec<Diagnostic>),
    /// The layout would have changed the tokens, the comments or the
    /// program: a formatter bug, described for a bug report.
    Unsafe(String),
}

/// A span with an optional message drawn under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One mistake found in the user's program. Independent of any renderer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable code such as `E0402` or `E-DIM-001`, from its language's
    /// table; never reused for another mistake.
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// Where the mistake is. `None` only for problems with no place in a file.
    pub primary: Option<Label>,
    /// Other places that explain it, possibly in other files.
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Vec<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }

    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    pub fn hint(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Hint, code, message)
    }

    /// Sets the primary span; `label` may be empty (carets only).
    pub fn with_primary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.primary = Some(Label {
            span,
            message: label.into(),
        });
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: label.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help.push(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
