//! `sexpgpu fmt`: `.sx` text in its one canonical layout, the one Clojure's
//! cljfmt and Emacs give Lisp (`docs/sexpgpu/formatting.md`). The line
//! breaks are the writer's, except that a closer never starts a line and a
//! line over `MAX_WIDTH` is broken; indentation, spacing and blank lines are
//! the formatter's. Comments and commas are kept where they are written.
//!
//! Safe by construction and by check: a text with any reader diagnostic is
//! refused, and a result is returned only when it has the same tokens and
//! comments and reads to the same forms as the input. Never does I/O.

mod layout;
mod tokens;

#[cfg(test)]
mod tests;

use crate::reader::{self, Form, FormKind};
use diag::FileId;
pub use diag::FormatError;

/// The longest line the formatter makes, in characters, where it can.
pub const MAX_WIDTH: usize = 100;

/// `text` in the canonical layout, or why it is left as it is.
pub fn format(text: &str) -> Result<String, FormatError> {
    let read = reader::read(FileId(0), text);
    if !read.diagnostics.is_empty() {
        return Err(FormatError::Syntax(read.diagnostics));
    }
    let out = layout::layout(&tokens::lines(text));
    verify(text, &out, &read.forms)?;
    Ok(out)
}

/// The lexical content of a text: its tokens (commas included) and its
/// comments without trailing white space, in order. Formatting never
/// changes it (`format`'s check, and the property tests').
pub fn lexical_content(text: &str) -> Vec<String> {
    tokens::lines(text)
        .iter()
        .flat_map(|line| {
            let tokens = line.tokens.iter().map(|t| t.text.to_string());
            tokens.chain(line.comment.map(str::to_string))
        })
        .collect()
}

/// Refuses a layout that changed the program or lost a comment.
fn verify(before: &str, after: &str, forms: &[Form]) -> Result<(), FormatError> {
    if lexical_content(before) != lexical_content(after) {
        return Err(FormatError::Unsafe(
            "the layout changed the tokens or the comments".to_string(),
        ));
    }
    let reread = reader::read(FileId(0), after);
    if let Some(first) = reread.diagnostics.first() {
        return Err(FormatError::Unsafe(format!(
            "the layout does not read: {}",
            first.message
        )));
    }
    if !same_forms(forms, &reread.forms) {
        return Err(FormatError::Unsafe(
            "the layout reads as different forms".to_string(),
        ));
    }
    Ok(())
}

/// Whether two lists of forms are the same, spans aside (floats by their bits).
fn same_forms(a: &[Form], b: &[Form]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_form(x, y))
}

fn same_form(a: &Form, b: &Form) -> bool {
    use FormKind::*;
    match (&a.kind, &b.kind) {
        (Float(x), Float(y)) => x.to_bits() == y.to_bits(),
        (List(x), List(y)) | (Vector(x), Vector(y)) | (Map(x), Map(y)) => same_forms(x, y),
        (List(_) | Vector(_) | Map(_), _) => false,
        (x, y) => x == y,
    }
}
