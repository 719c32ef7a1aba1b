//! ShapeScript lexer, parser and syntax tree. Parsing never fails: it returns
//! a tree and diagnostics. Knows nothing of types, names' meanings or editors.

pub mod ast;
pub mod codes;
pub mod lexer;
mod parser;
pub mod print;

use diag::{Diagnostic, FileId};

/// A parsed file and the lexing and parsing diagnostics (E01xx), in source order.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub file: ast::File,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses one `.ss` file. Never fails: a mistake gives one diagnostic and the
/// rest of the file is still parsed.
pub fn parse(file: FileId, text: &str) -> Parsed {
    let lexed = lexer::lex(file, text);
    let mut parser = parser::Parser::new(file, text, lexed);
    let tree = parser.parse_file();
    let mut diagnostics = parser.diagnostics;
    diagnostics.sort_by_key(|d| d.primary.as_ref().map_or(0, |label| label.span.start));
    Parsed {
        file: tree,
        diagnostics,
    }
}
