//! The formatter's view of a `.sx` text: its lines, each with its tokens
//! (delimiters, atoms, strings, reader prefixes, commas) as written and its
//! comment. Splits the text the way the reader does (`reader.rs`), but keeps
//! what the reader skips. Knows nothing of layout.

/// What a token is, as far as layout cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `(`, `[` or `{`.
    Open(char),
    /// `)`, `]` or `}`.
    Close(char),
    /// A string, which may span lines.
    Str,
    /// `'` `` ` `` `~` `~@`: part of the form after it.
    Prefix,
    /// White space to the reader; kept where written.
    Comma,
    /// A number, symbol, keyword, `nil`, `true`, `false`.
    Atom,
}

/// One token as written.
#[derive(Clone, Copy, Debug)]
pub struct Tok<'a> {
    pub kind: Kind,
    pub text: &'a str,
}

/// One line as written: its tokens and the `;` comment after them, if any.
/// A string spanning lines belongs to the line it starts on.
pub type Line<'a> = diag::formatting::Line<'a, Tok<'a>>;

/// Ends an atom, as the reader's `is_delimiter`.
fn ends_atom(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | '"' | ';' | ',')
}

/// The lines of `text` (a byte-order mark left out).
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut line = Line::default();
    let mut line_start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut pos = line_start;
    while let Some(c) = text[pos..].chars().next() {
        let start = pos;
        let kind = match c {
            '\n' => {
                lines.push(std::mem::take(&mut line));
                pos += 1;
                line_start = pos;
                continue;
            }
            ';' => {
                let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
                line.comment = Some(text[pos..end].trim_end());
                line.comment_column = text[line_start..pos].chars().count();
                pos = end;
                continue;
            }
            c if c.is_whitespace() => {
                pos += c.len_utf8();
                continue;
            }
            '(' | '[' | '{' => Kind::Open(c),
            ')' | ']' | '}' => Kind::Close(c),
            ',' => Kind::Comma,
            '"' => Kind::Str,
            '\'' | '`' | '~' => Kind::Prefix,
            _ => Kind::Atom,
        };
        pos = match kind {
            Kind::Str => string_end(text, pos),
            Kind::Prefix if text[pos..].starts_with("~@") => pos + 2,
            Kind::Atom => {
                let rest = &text[pos..];
                pos + rest.find(ends_atom).unwrap_or(rest.len()).max(c.len_utf8())
            }
            _ => pos + c.len_utf8(),
        };
        line.tokens.push(Tok {
            kind,
            text: &text[start..pos],
        });
    }
    if !line.is_blank() || pos > line_start {
        lines.push(line);
    }
    lines
}

/// Where the string starting at `start` (its `"`) ends: after its closing
/// quote, or at the end of the text.
fn string_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut pos = start + 1;
    while pos < bytes.len() {
        match bytes[pos] {
            b'\\' => pos += 1 + text[pos + 1..].chars().next().map_or(0, char::len_utf8),
            b'"' => return pos + 1,
            _ => pos += 1,
        }
    }
    text.len()
}
