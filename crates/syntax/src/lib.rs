//! ShapeScript lexer, parser and syntax tree. Parsing never fails: it returns
//! a tree and diagnostics. Knows nothing of types, names' meanings or editors.

pub mod ast;
pub mod codes;
mod depth;
pub mod lexer;
mod name;
mod parser;
pub mod print;
// Above the parser and the printer: it checks its result with both.
pub mod format;

pub use depth::{ensure_sufficient_stack, MAX_TREE_DEPTH};
pub use name::Name;

use diag::{Diagnostic, FileId};
use std::cell::Cell;

/// A parsed file and the lexing and parsing diagnostics (E01xx), in source order.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub file: ast::File,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses one `.ss` file. Never fails: a mistake gives one diagnostic and the
/// rest of the file is still parsed.
pub fn parse(file: FileId, text: &str) -> Parsed {
    // The token buffer is the one large allocation of a parse, and the
    // parser's name cache warms up over a file: reusing both per thread spares
    // the allocator (and the kernel a map and unmap per file) and most misses.
    let mut reused = REUSED.with(Cell::take).unwrap_or_default();
    let tokens = std::mem::take(&mut reused.tokens);
    let lexed = lexer::lex_into(file, text, tokens);
    let mut parser = parser::Parser::new(file, text, lexed, reused);
    let tree = parser.parse_file();
    let (mut diagnostics, mut reused) = parser.finish();
    if reused.tokens.capacity() > MAX_CACHED_TOKENS {
        reused.tokens = Vec::new();
    }
    REUSED.with(|cell| cell.set(Some(reused)));
    diagnostics.sort_by_key(|d| d.primary.as_ref().map_or(0, |label| label.span.start));
    Parsed {
        file: tree,
        diagnostics,
    }
}

/// Token buffers larger than this (48 MiB) are freed rather than kept.
const MAX_CACHED_TOKENS: usize = 4 << 20;

thread_local! {
    static REUSED: Cell<Option<Box<parser::Reused>>> = const { Cell::new(None) };
}
