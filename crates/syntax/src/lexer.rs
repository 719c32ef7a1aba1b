//! The ShapeScript lexer: text to tokens with byte spans, `##` doc lines on
//! the side, and E0101/E0102/E0106/E0108 for bad characters, strings and
//! numbers. Never fails and never looks at the meaning of names.

use crate::codes;
use diag::{Diagnostic, FileId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Ident,
    Int,
    Float,
    Str,
    /// `16gh`: a whole number touching a name.
    Grouped,
    /// `?k`.
    Unknown,
    KwImport,
    KwDim,
    KwExtern,
    KwFn,
    KwModel,
    KwRecord,
    KwLet,
    KwReturn,
    KwIf,
    KwElse,
    KwFor,
    KwIn,
    KwAs,
    KwTo,
    KwNone,
    KwTrue,
    KwFalse,
    KwAnd,
    KwOr,
    KwNot,
    Ellipsis,
    Plus,
    Minus,
    Star,
    StarStar,
    Slash,
    At,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Arrow,
    Colon,
    Comma,
    Dot,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    /// The end of a statement or field; never emitted after an operator, `,` or `->`.
    Newline,
    /// Text the lexer already reported (E0101, E0106): the parser stays quiet about it.
    Error,
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected X, found Y" messages.
    pub fn describe(self) -> &'static str {
        use TokenKind::*;
        match self {
            Ident => "a name",
            Int => "an integer",
            Float => "a float",
            Str => "a string",
            Grouped => "a grouped size",
            Unknown => "an unknown size",
            KwImport => "`import`",
            KwDim => "`dim`",
            KwExtern => "`extern`",
            KwFn => "`fn`",
            KwModel => "`model`",
            KwRecord => "`record`",
            KwLet => "`let`",
            KwReturn => "`return`",
            KwIf => "`if`",
            KwElse => "`else`",
            KwFor => "`for`",
            KwIn => "`in`",
            KwAs => "`as`",
            KwTo => "`to`",
            KwNone => "`none`",
            KwTrue => "`true`",
            KwFalse => "`false`",
            KwAnd => "`and`",
            KwOr => "`or`",
            KwNot => "`not`",
            Ellipsis => "`...`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            StarStar => "`**`",
            Slash => "`/`",
            At => "`@`",
            EqEq => "`==`",
            NotEq => "`!=`",
            Lt => "`<`",
            Le => "`<=`",
            Gt => "`>`",
            Ge => "`>=`",
            Eq => "`=`",
            Arrow => "`->`",
            Colon => "`:`",
            Comma => "`,`",
            Dot => "`.`",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            LBrace => "`{`",
            RBrace => "`}`",
            Semi => "`;`",
            Newline => "a newline",
            Error => "an invalid token",
            Eof => "end of file",
        }
    }

    pub fn is_keyword(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            KwImport
                | KwDim
                | KwExtern
                | KwFn
                | KwModel
                | KwRecord
                | KwLet
                | KwReturn
                | KwIf
                | KwElse
                | KwFor
                | KwIn
                | KwAs
                | KwTo
                | KwNone
                | KwTrue
                | KwFalse
                | KwAnd
                | KwOr
                | KwNot
        )
    }

    /// Tokens after which a line break does not end the statement: binary
    /// operators (`as`/`to` included), `=`, `,` and `->` (spec 2).
    fn continues_line(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            Plus | Minus
                | Star
                | StarStar
                | Slash
                | At
                | EqEq
                | NotEq
                | Lt
                | Le
                | Gt
                | Ge
                | Eq
                | Arrow
                | Comma
                | KwAnd
                | KwOr
                | KwAs
                | KwTo
        )
    }
}

fn keyword(text: &str) -> Option<TokenKind> {
    use TokenKind::*;
    Some(match text {
        "import" => KwImport,
        "dim" => KwDim,
        "extern" => KwExtern,
        "fn" => KwFn,
        "model" => KwModel,
        "record" => KwRecord,
        "let" => KwLet,
        "return" => KwReturn,
        "if" => KwIf,
        "else" => KwElse,
        "for" => KwFor,
        "in" => KwIn,
        "as" => KwAs,
        "to" => KwTo,
        "none" => KwNone,
        "true" => KwTrue,
        "false" => KwFalse,
        "and" => KwAnd,
        "or" => KwOr,
        "not" => KwNot,
        _ => return None,
    })
}

/// One token: its kind and byte range; its text is `&source[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
}

/// The lexer's output. `tokens` always ends with one `Eof`.
#[derive(Debug)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    /// The byte ranges of `##` comments (from `##` to the end of the line), in order.
    pub docs: Vec<(u32, u32)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Characters that start no token (and are not white space).
fn is_unexpected(c: char) -> bool {
    !c.is_ascii()
        || (c.is_ascii_control() && !matches!(c, '\n' | '\r' | '\t'))
        || matches!(c, '$' | '%' | '^' | '&' | '|' | '~' | '`' | '\'' | '\\')
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

struct Lexer<'a> {
    file: FileId,
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Lexed,
}

/// Splits `text` into tokens. Spans are byte offsets into `text`.
pub fn lex(file: FileId, text: &str) -> Lexed {
    lex_into(file, text, Vec::new())
}

/// Like `lex`, but fills `tokens` (cleared first), so a caller can reuse its allocation.
pub fn lex_into(file: FileId, text: &str, mut tokens: Vec<Token>) -> Lexed {
    tokens.clear();
    // About one token per three bytes in real files; growing past it is fine.
    tokens.reserve(text.len() / 3 + 1);
    let mut lexer = Lexer {
        file,
        text,
        bytes: text.as_bytes(),
        pos: 0,
        out: Lexed {
            tokens,
            docs: Vec::new(),
            diagnostics: Vec::new(),
        },
    };
    lexer.run();
    lexer.out
}

impl Lexer<'_> {
    fn peek_at(&self, offset: usize) -> u8 {
        self.bytes.get(self.pos + offset).copied().unwrap_or(0)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.out.tokens.push(Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
        });
    }

    fn newline(&mut self, start: usize) {
        let continues = match self.out.tokens.last() {
            None => true,
            Some(last) => last.kind == TokenKind::Newline || last.kind.continues_line(),
        };
        if !continues {
            self.push(TokenKind::Newline, start);
        }
    }

    fn run(&mut self) {
        // Some editors start files with a byte-order mark; it is not text.
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let b = self.bytes[self.pos];
            match b {
                b' ' | b'\t' | b'\r' => {
                    self.pos += 1;
                    while matches!(self.peek_at(0), b' ' | b'\t' | b'\r') {
                        self.pos += 1;
                    }
                }
                b'\n' => {
                    self.pos += 1;
                    self.newline(start);
                }
                b'#' => self.comment(),
                b'"' => self.string(),
                b'0'..=b'9' => self.number(),
                b'?' if is_ident_start(self.peek_at(1)) => {
                    self.pos += 1;
                    self.ident_tail();
                    self.push(TokenKind::Unknown, start);
                }
                _ if is_ident_start(b) => {
                    self.ident_tail();
                    let kind = keyword(&self.text[start..self.pos]).unwrap_or(TokenKind::Ident);
                    self.push(kind, start);
                }
                _ => self.punct(),
            }
        }
        let end = self.bytes.len();
        self.out.tokens.push(Token {
            kind: TokenKind::Eof,
            start: end as u32,
            end: end as u32,
        });
    }

    fn ident_tail(&mut self) {
        while is_ident_continue(self.peek_at(0)) {
            self.pos += 1;
        }
    }

    fn comment(&mut self) {
        let start = self.pos;
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.bytes.len(), |i| start + i);
        if self.peek_at(1) == b'#' {
            self.out.docs.push((start as u32, line_end as u32));
        }
        self.pos = line_end;
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            if self.pos >= self.bytes.len() || self.bytes[self.pos] == b'\n' {
                let span = self.span(start, self.pos);
                self.out.diagnostics.push(
                    Diagnostic::error(codes::UNTERMINATED_STRING, "unterminated string")
                        .with_primary(span, "this string has no closing `\"`"),
                );
                break;
            }
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => self.escape(),
                _ => self.pos += 1,
            }
        }
        self.push(TokenKind::Str, start);
    }

    /// Skips a `\x` escape in a string, reporting an unknown one.
    fn escape(&mut self) {
        match self.peek_at(1) {
            b'\\' | b'"' | b'n' | b't' => self.pos += 2,
            // A backslash at the end of the line leaves the string unterminated.
            b'\n' => self.pos += 1,
            _ if self.pos + 1 >= self.bytes.len() => self.pos += 1,
            _ => {
                let len = self.text[self.pos + 1..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                let span = self.span(self.pos, self.pos + 1 + len);
                self.out.diagnostics.push(
                    Diagnostic::error(codes::UNKNOWN_ESCAPE, "unknown escape in string")
                        .with_primary(span, "unknown escape")
                        .with_help("the escapes are `\\\\`, `\\\"`, `\\n` and `\\t`"),
                );
                self.pos += 1 + len;
            }
        }
    }

    fn digits(&mut self) {
        while self.peek_at(0).is_ascii_digit() {
            self.pos += 1;
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        self.digits();
        let mut kind = TokenKind::Int;
        if self.peek_at(0) == b'.' && self.peek_at(1).is_ascii_digit() {
            self.pos += 1;
            self.digits();
            kind = TokenKind::Float;
        }
        let e = self.peek_at(0);
        let exponent_digits = match self.peek_at(1) {
            b'+' | b'-' => self.peek_at(2).is_ascii_digit(),
            d => d.is_ascii_digit(),
        };
        if (e == b'e' || e == b'E') && exponent_digits {
            self.pos += 2;
            self.digits();
            kind = TokenKind::Float;
        }
        if is_ident_start(self.peek_at(0)) {
            self.ident_tail();
            if kind == TokenKind::Int {
                kind = TokenKind::Grouped;
            } else {
                let span = self.span(start, self.pos);
                self.out.diagnostics.push(
                    Diagnostic::error(codes::INVALID_NUMBER, "invalid number")
                        .with_primary(span, "a float cannot touch a name")
                        .with_help("a grouped size such as `16gh` needs a whole number"),
                );
                kind = TokenKind::Error;
            }
        }
        self.push(kind, start);
    }

    fn punct(&mut self) {
        use TokenKind::*;
        let start = self.pos;
        let (kind, len) = match (self.peek_at(0), self.peek_at(1)) {
            (b'.', b'.') if self.peek_at(2) == b'.' => (Ellipsis, 3),
            (b'*', b'*') => (StarStar, 2),
            (b'=', b'=') => (EqEq, 2),
            (b'!', b'=') => (NotEq, 2),
            (b'<', b'=') => (Le, 2),
            (b'>', b'=') => (Ge, 2),
            (b'-', b'>') => (Arrow, 2),
            (b'+', _) => (Plus, 1),
            (b'-', _) => (Minus, 1),
            (b'*', _) => (Star, 1),
            (b'/', _) => (Slash, 1),
            (b'@', _) => (At, 1),
            (b'<', _) => (Lt, 1),
            (b'>', _) => (Gt, 1),
            (b'=', _) => (Eq, 1),
            (b':', _) => (Colon, 1),
            (b',', _) => (Comma, 1),
            (b'.', _) => (Dot, 1),
            (b'(', _) => (LParen, 1),
            (b')', _) => (RParen, 1),
            (b'[', _) => (LBracket, 1),
            (b']', _) => (RBracket, 1),
            (b'{', _) => (LBrace, 1),
            (b'}', _) => (RBrace, 1),
            (b';', _) => (Semi, 1),
            _ => {
                let ch = self.text[start..].chars().next().unwrap_or('\u{fffd}');
                self.pos += ch.len_utf8();
                // A run of such characters (`$$$`, a pasted `→`) is one mistake.
                let mut run = 1;
                while let Some(next) = self.text[self.pos..].chars().next() {
                    if !is_unexpected(next) {
                        break;
                    }
                    self.pos += next.len_utf8();
                    run += 1;
                }
                let span = self.span(start, self.pos);
                let message = if run == 1 {
                    format!("unexpected character `{}`", ch.escape_debug())
                } else {
                    format!(
                        "unexpected characters `{}`",
                        self.text[start..self.pos].escape_debug()
                    )
                };
                self.out.diagnostics.push(
                    Diagnostic::error(codes::UNEXPECTED_CHARACTER, message)
                        .with_primary(span, "no token starts with this"),
                );
                self.push(Error, start);
                return;
            }
        };
        self.pos += len;
        self.push(kind, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(src: &str, expect: Expect) {
        let lexed = lex(FileId(0), src);
        let mut out = String::new();
        for token in &lexed.tokens {
            let text = &src[token.start as usize..token.end as usize];
            out.push_str(&format!("{:?} {:?}\n", token.kind, text));
        }
        for (start, end) in &lexed.docs {
            out.push_str(&format!("doc {:?}\n", &src[*start as usize..*end as usize]));
        }
        for d in &lexed.diagnostics {
            let span = d
                .primary
                .as_ref()
                .map(|l| l.span)
                .expect("lexer diagnostics have spans");
            out.push_str(&format!(
                "{} {} @{}..{}\n",
                d.code, d.message, span.start, span.end
            ));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn grouped_sizes_touch_and_spaces_separate() {
        check(
            "[b 16gh 16 gh ?k ...]",
            expect![[r#"
                LBracket "["
                Ident "b"
                Grouped "16gh"
                Int "16"
                Ident "gh"
                Unknown "?k"
                Ellipsis "..."
                RBracket "]"
                Eof ""
            "#]],
        );
    }

    #[test]
    fn numbers_and_floats() {
        check(
            "0.5 1e-6 2E3 768 1.x 3e",
            expect![[r#"
                Float "0.5"
                Float "1e-6"
                Float "2E3"
                Int "768"
                Int "1"
                Dot "."
                Ident "x"
                Grouped "3e"
                Eof ""
            "#]],
        );
    }

    #[test]
    fn newlines_end_lines_except_after_operators() {
        check(
            "let x = a +\n  b\n\n\nlet y = f(a,\n b) ->\n c",
            expect![[r#"
                KwLet "let"
                Ident "x"
                Eq "="
                Ident "a"
                Plus "+"
                Ident "b"
                Newline "\n"
                KwLet "let"
                Ident "y"
                Eq "="
                Ident "f"
                LParen "("
                Ident "a"
                Comma ","
                Ident "b"
                RParen ")"
                Arrow "->"
                Ident "c"
                Eof ""
            "#]],
        );
    }

    #[test]
    fn comments_and_doc_comments() {
        check(
            "# plain\n## The doc.\n##  indented\ndim D = 768 # trailing",
            expect![[r###"
                KwDim "dim"
                Ident "D"
                Eq "="
                Int "768"
                Eof ""
                doc "## The doc."
                doc "##  indented"
            "###]],
        );
    }

    #[test]
    fn byte_order_mark_and_crlf_line_ends() {
        check(
            "\u{feff}dim D = 1\r\n\r\ndim E = 2\r\n",
            expect![[r#"
                KwDim "dim"
                Ident "D"
                Eq "="
                Int "1"
                Newline "\n"
                KwDim "dim"
                Ident "E"
                Eq "="
                Int "2"
                Newline "\n"
                Eof ""
            "#]],
        );
    }

    #[test]
    fn operators_and_keywords() {
        check(
            "** * == != <= >= < > -> @ : ; not and or as to none",
            expect![[r#"
                StarStar "**"
                Star "*"
                EqEq "=="
                NotEq "!="
                Le "<="
                Ge ">="
                Lt "<"
                Gt ">"
                Arrow "->"
                At "@"
                Colon ":"
                Semi ";"
                KwNot "not"
                KwAnd "and"
                KwOr "or"
                KwAs "as"
                KwTo "to"
                KwNone "none"
                Eof ""
            "#]],
        );
    }

    #[test]
    fn bad_characters_strings_and_numbers() {
        check(
            "\"torch.exp\" \"a\\qb\" é $ 0.5x $$é \"open\nx",
            expect![[r#"
                Str "\"torch.exp\""
                Str "\"a\\qb\""
                Error "é"
                Error "$"
                Error "0.5x"
                Error "$$é"
                Str "\"open"
                Newline "\n"
                Ident "x"
                Eof ""
                E0108 unknown escape in string @14..16
                E0101 unexpected character `é` @19..21
                E0101 unexpected character `$` @22..23
                E0106 invalid number @24..28
                E0101 unexpected characters `$$é` @29..33
                E0102 unterminated string @34..39
            "#]],
        );
    }
}
