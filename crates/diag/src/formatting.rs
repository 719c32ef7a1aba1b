//! What both languages' formatters share below their layouts (each
//! formatter's `FormatError` is `crate::FormatError`): a line as written,
//! its tokens and the comment after them, and where a kept comment goes
//! when the line is written again.

/// One line as written: its tokens (`T`, each formatter's own) and the
/// comment after them, if any.
#[derive(Clone, Debug)]
pub struct Line<'a, T> {
    pub tokens: Vec<T>,
    /// From the comment's mark (`#`, `;`) to the end of the line, trailing
    /// white space left out.
    pub comment: Option<&'a str>,
    /// The column (in characters) where the comment starts.
    pub comment_column: usize,
}

impl<T> Default for Line<'_, T> {
    fn default() -> Self {
        Line {
            tokens: Vec::new(),
            comment: None,
            comment_column: 0,
        }
    }
}

impl<T> Line<'_, T> {
    pub fn is_blank(&self) -> bool {
        self.tokens.is_empty() && self.comment.is_none()
    }
}

/// Appends `comment`, written at `column`, to a line whose code ends at
/// column `code_end` (`None`: the line has no code). A comment keeps its
/// column while the code fits before it, so comments aligned by hand stay
/// aligned; else one space follows the code.
pub fn push_comment(out: &mut String, comment: &str, column: usize, code_end: Option<usize>) {
    if let Some(end) = code_end {
        let pad = column.saturating_sub(end).max(1);
        out.extend(std::iter::repeat_n(' ', pad));
    }
    out.push_str(comment);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_keeps_its_column_while_the_code_fits_before_it() {
        let cases = [
            (Some(3), 8, "abc     # c"),
            (Some(10), 8, "abc # c"),
            (Some(8), 8, "abc # c"),
            (None, 8, "abc# c"),
        ];
        for (code_end, column, want) in cases {
            let mut out = String::from("abc");
            push_comment(&mut out, "# c", column, code_end);
            assert_eq!(out, want, "{code_end:?} {column}");
        }
        let line: Line<'_, u8> = Line::default();
        assert!(line.is_blank());
    }
}
