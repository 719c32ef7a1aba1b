//! ShapeScript lexer, parser and syntax tree. Parsing never fails: it returns a tree and diagnostics. Knows nothing of types or editors.

pub mod ast;
pub mod codes;
pub mod lexer;
