//! `shapescript fmt`: ShapeScript text in its one canonical layout
//! (`docs/shapescript/formatting.md`). Works on the lexer's tokens, line by
//! line: the line breaks are the writer's (newlines end statements, so they
//! are the program's), indentation, spacing, blank lines and over-long
//! lines are the formatter's. Comments are kept where they are written.
//!
//! Safe by construction and by check: a file with any syntax diagnostic is
//! refused, and a result is returned only when it lexes to the same tokens,
//! has the same comments and parses to the same tree as the input, so a
//! bug here can refuse a file but never change a program. Never does I/O.

mod layout;
mod source;
mod spacing;

#[cfg(test)]
mod tests;

use crate::lexer::TokenKind;
use crate::{parse, print};
use diag::FileId;
pub use diag::FormatError;

/// The longest line the formatter makes, in characters: a longer line is
/// broken after the commas of its outermost bracket that has any.
pub const MAX_WIDTH: usize = 100;

/// Columns per level of indentation.
pub const INDENT: usize = 2;

/// `text` in the canonical layout, or why it is left as it is.
pub fn format(text: &str) -> Result<String, FormatError> {
    let parsed = parse(FileId(0), text);
    if !parsed.diagnostics.is_empty() {
        return Err(FormatError::Syntax(parsed.diagnostics));
    }
    let lines = source::lines(text);
    let out = layout::layout(&lines);
    verify(text, &out, &print::dump(&parsed.file))?;
    Ok(out)
}

/// Whether `text` is already in the canonical layout (a text that does not
/// parse is an error, as in `format`).
pub fn is_formatted(text: &str) -> Result<bool, FormatError> {
    format(text).map(|out| out == text)
}

/// The lexical content of a text: its tokens other than line ends, with
/// their text, and its comments (without trailing white space, as the
/// token kind `Error`, which no token of a file that lexes has) in their
/// places among them. Formatting never changes it (`format`'s check, and
/// the property tests').
pub fn lexical_content(text: &str) -> Vec<(TokenKind, String)> {
    source::lines(text)
        .iter()
        .flat_map(|line| {
            let tokens = line.tokens.iter().map(|t| (t.kind, t.text.to_string()));
            let comment = line.comment.map(|c| (TokenKind::Error, c.to_string()));
            tokens.chain(comment)
        })
        .collect()
}

/// Refuses a layout that changed the program or lost a comment.
fn verify(before: &str, after: &str, tree: &str) -> Result<(), FormatError> {
    if lexical_content(before) != lexical_content(after) {
        return Err(FormatError::Unsafe(
            "the layout changed the tokens or the comments".to_string(),
        ));
    }
    let reparsed = parse(FileId(0), after);
    if let Some(first) = reparsed.diagnostics.first() {
        return Err(FormatError::Unsafe(format!(
            "the layout does not parse: {}",
            first.message
        )));
    }
    if print::dump(&reparsed.file) != tree {
        return Err(FormatError::Unsafe(
            "the layout parses to a different tree".to_string(),
        ));
    }
    Ok(())
}
