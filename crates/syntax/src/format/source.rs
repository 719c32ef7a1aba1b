//! The formatter's view of a text: its lines, each with its tokens (the
//! lexer's, line ends left out), whether white space came before each, and
//! its comment. Knows nothing of layout.

use crate::lexer::{self, TokenKind};
use diag::FileId;

/// One token as written.
#[derive(Clone, Copy, Debug)]
pub struct Tok<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
    /// White space came before it on its line (false for a line's first token).
    pub spaced: bool,
}

/// One line as written: its tokens and the `#` comment after them, if any.
pub type Line<'a> = diag::formatting::Line<'a, Tok<'a>>;

/// The lines of `text` (a byte-order mark left out). A text that does not
/// lex may give lines with `Error` tokens; the formatter refuses it first.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let lexed = lexer::lex(FileId(0), text);
    let mut tokens = lexed
        .tokens
        .iter()
        .filter(|t| !matches!(t.kind, TokenKind::Newline | TokenKind::Eof))
        .peekable();
    let mut lines = Vec::new();
    let mut start = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let mut line = Line::default();
        let mut code_end = start;
        while let Some(token) = tokens.next_if(|t| (t.start as usize) < end) {
            let (from, to) = (token.start as usize, token.end as usize);
            line.tokens.push(Tok {
                kind: token.kind,
                text: &text[from..to],
                spaced: from > code_end && !line.tokens.is_empty(),
            });
            code_end = to;
        }
        // Strings end on their line, so a `#` after the last token starts the comment.
        if let Some(i) = text[code_end..end].find('#') {
            line.comment = Some(text[code_end + i..end].trim_end());
            line.comment_column = text[start..code_end + i].chars().count();
        }
        lines.push(line);
        start = end + 1;
    }
    lines
}
