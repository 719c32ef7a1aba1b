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
    /// operators (`as`/`to` included), `=`, `,` and `->` (`docs/shapescript/README.md`).
    pub(crate) fn continues_line(self) -> bool {
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

/// The keywords, found by a perfect hash of their bytes read as a
/// little-endian number (all have at most six): a multiply, one table load
/// and one comparison, where a `match` on the text compares strings.
const KEYWORDS: [(&str, TokenKind); 20] = {
    use TokenKind::*;
    [
        ("import", KwImport),
        ("dim", KwDim),
        ("extern", KwExtern),
        ("fn", KwFn),
        ("model", KwModel),
        ("record", KwRecord),
        ("let", KwLet),
        ("return", KwReturn),
        ("if", KwIf),
        ("else", KwElse),
        ("for", KwFor),
        ("in", KwIn),
        ("as", KwAs),
        ("to", KwTo),
        ("none", KwNone),
        ("true", KwTrue),
        ("false", KwFalse),
        ("and", KwAnd),
        ("or", KwOr),
        ("not", KwNot),
    ]
};

/// The keywords' texts, in the order of `KEYWORDS` (for fuzzers' word lists).
pub fn keywords() -> impl Iterator<Item = &'static str> {
    KEYWORDS.iter().map(|(word, _)| *word)
}

/// Found by trying random odd numbers until the keywords' slots differ;
/// building `KEYWORD_TABLE` fails to compile if they ever share one.
const KEYWORD_HASH: u64 = 0x84f4_6aa7_09dc_edd3;

/// A word of at most eight bytes as a number; never 0 for a name.
const fn word_key(word: &[u8]) -> u64 {
    let mut key = 0;
    let mut i = word.len();
    while i > 0 {
        i -= 1;
        key = key << 8 | word[i] as u64;
    }
    key
}

const fn keyword_slot(key: u64) -> usize {
    (key.wrapping_mul(KEYWORD_HASH) >> 59) as usize
}

/// Each keyword's key at its slot; 0 (no name) in the free slots.
static KEYWORD_TABLE: [(u64, TokenKind); 32] = {
    let mut table = [(0, TokenKind::Ident); 32];
    let mut i = 0;
    while i < KEYWORDS.len() {
        let key = word_key(KEYWORDS[i].0.as_bytes());
        let slot = keyword_slot(key);
        assert!(
            table[slot].0 == 0,
            "two keywords share a slot: change KEYWORD_HASH"
        );
        table[slot] = (key, KEYWORDS[i].1);
        i += 1;
    }
    table
};

/// The keyword whose `word_key` is `key`, or `Ident`.
fn keyword_by_key(key: u64) -> TokenKind {
    let (keyword, kind) = KEYWORD_TABLE[keyword_slot(key)];
    if keyword == key {
        kind
    } else {
        TokenKind::Ident
    }
}

/// The letters that start a keyword, as bits from `a`.
const KEYWORD_FIRST: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < KEYWORDS.len() {
        bits |= 1 << (KEYWORDS[i].0.as_bytes()[0] - b'a');
        i += 1;
    }
    bits
};

/// A cheap test that rules out most names before the hash: a keyword has
/// two to six letters, and `KEYWORD_FIRST` has its first.
fn may_be_keyword(first: u8, len: usize) -> bool {
    let letter = first.wrapping_sub(b'a');
    (2..=6).contains(&len) && letter < 26 && KEYWORD_FIRST >> letter & 1 != 0
}

/// The keyword spelled by `word`, or `Ident`.
fn keyword(word: &[u8]) -> TokenKind {
    if word.len() > 6 {
        return TokenKind::Ident;
    }
    keyword_by_key(word_key(word))
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
    /// How many `import dim fn model record` keywords there are: at least the
    /// number of top-level declarations (methods count too), to size the
    /// item list up front. Counted where keywords are recognised, which is
    /// cheaper than a second pass over the tokens.
    pub declarations: usize,
}

/// The keywords that start a declaration, as bits by `TokenKind`.
const DECLARES: u64 = 1 << TokenKind::KwImport as u8
    | 1 << TokenKind::KwDim as u8
    | 1 << TokenKind::KwFn as u8
    | 1 << TokenKind::KwModel as u8
    | 1 << TokenKind::KwRecord as u8;

/// 1 when `kind` starts a declaration, else 0.
#[inline]
fn declares(kind: TokenKind) -> usize {
    ((DECLARES >> (kind as u8 & 63)) & 1) as usize
}

/// What a byte starts, so that the main loop dispatches on one table load
/// and one jump instead of a chain of comparisons. A one-byte token's class
/// holds its kind, so its arm needs no second lookup.
#[derive(Clone, Copy)]
enum Class {
    /// Starts no token: reported as an unexpected character (`$`, control
    /// characters, the first byte of a non-ASCII character).
    Other,
    /// ` `, `\t`, `\r`.
    Space,
    Newline,
    Hash,
    Quote,
    Digit,
    /// `a`–`z`, `A`–`Z`, `_`: the start of a name or keyword.
    Letter,
    /// `?k`, or an unexpected `?`.
    Question,
    // Bytes that start a longer token too: `...`, `**`, `==`, `!=`, `<=`, `>=`, `->`.
    Dot,
    Star,
    Equals,
    Bang,
    Less,
    Greater,
    Minus,
    /// A byte that is a whole token (`+ / @ : , ( ) [ ] { } ;`).
    Whole(TokenKind),
}

// One byte, as a plain enum: the other classes are kept in the values no
// token kind takes.
const _: () = assert!(std::mem::size_of::<Class>() == 1);

const fn class_of(b: u8) -> Class {
    match b {
        b' ' | b'\t' | b'\r' => Class::Space,
        b'\n' => Class::Newline,
        b'#' => Class::Hash,
        b'"' => Class::Quote,
        b'0'..=b'9' => Class::Digit,
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => Class::Letter,
        b'?' => Class::Question,
        b'.' => Class::Dot,
        b'*' => Class::Star,
        b'=' => Class::Equals,
        b'!' => Class::Bang,
        b'<' => Class::Less,
        b'>' => Class::Greater,
        b'-' => Class::Minus,
        b'+' => Class::Whole(TokenKind::Plus),
        b'/' => Class::Whole(TokenKind::Slash),
        b'@' => Class::Whole(TokenKind::At),
        b':' => Class::Whole(TokenKind::Colon),
        b',' => Class::Whole(TokenKind::Comma),
        b'(' => Class::Whole(TokenKind::LParen),
        b')' => Class::Whole(TokenKind::RParen),
        b'[' => Class::Whole(TokenKind::LBracket),
        b']' => Class::Whole(TokenKind::RBracket),
        b'{' => Class::Whole(TokenKind::LBrace),
        b'}' => Class::Whole(TokenKind::RBrace),
        b';' => Class::Whole(TokenKind::Semi),
        _ => Class::Other,
    }
}

static CLASS: [Class; 256] = {
    let mut table = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
};

/// The bytes that continue a name: letters, digits and `_`.
static IDENT_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = matches!(class_of(b as u8), Class::Letter | Class::Digit);
        b += 1;
    }
    table
};

/// The bytes that stop the scan of a string's plain text: `"`, `\\`, a line break.
static ENDS_STRING_RUN: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[b'\n' as usize] = true;
    table
};

fn is_letter(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| matches!(CLASS[b as usize], Class::Letter))
}

fn is_digit(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_digit)
}

/// Characters that start no token (and are not white space).
fn is_unexpected(c: char) -> bool {
    !c.is_ascii()
        || (c.is_ascii_control() && !matches!(c, '\n' | '\r' | '\t'))
        || matches!(c, '$' | '%' | '^' | '&' | '|' | '~' | '`' | '\'' | '\\')
}

/// The end of the name whose bytes continue at `from`.
fn ident_end(bytes: &[u8], mut from: usize) -> usize {
    // Eight bytes at a time where the text is long enough: a fixed-size
    // chunk needs no bounds check per byte.
    while let Some(chunk) = bytes.get(from..from + 8) {
        let chunk: &[u8; 8] = chunk.try_into().expect("eight bytes");
        match chunk.iter().position(|&b| !IDENT_CONTINUE[b as usize]) {
            Some(n) => return from + n,
            None => from += 8,
        }
    }
    while let Some(&b) = bytes.get(from) {
        if !IDENT_CONTINUE[b as usize] {
            break;
        }
        from += 1;
    }
    from
}

/// The end of the digits that continue at `from`.
fn digits_end(bytes: &[u8], from: usize) -> usize {
    match bytes[from..].iter().position(|b| !b.is_ascii_digit()) {
        Some(n) => from + n,
        None => bytes.len(),
    }
}

/// Where diagnostics go; the hot loop keeps its position and tokens in locals.
struct Lexer<'a> {
    file: FileId,
    text: &'a str,
    diagnostics: Vec<Diagnostic>,
    declarations: usize,
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
    let mut docs = Vec::new();
    let mut lexer = Lexer {
        file,
        text,
        diagnostics: Vec::new(),
        declarations: 0,
    };
    lexer.run(&mut tokens, &mut docs);
    Lexed {
        tokens,
        docs,
        diagnostics: lexer.diagnostics,
        declarations: lexer.declarations,
    }
}

/// Whether a line break after the tokens so far does not end a statement:
/// at the start of the file, after a `Newline` or after an operator.
/// `chunk` holds the latest tokens, `tokens` those before. Kept out of line:
/// the main loop runs it once a line, and inlined it costs registers there.
#[inline(never)]
fn continues_line(chunk: &[Token], tokens: &[Token]) -> bool {
    match chunk.last().or(tokens.last()) {
        None => true,
        Some(last) => last.kind == TokenKind::Newline || last.kind.continues_line(),
    }
}

/// How many tokens `Lexer::run` gathers on the stack before it copies them
/// to the vector: storing into an array keeps the count in a register, where
/// `Vec::push` loads and stores the length and checks the capacity for every token.
const CHUNK: usize = 64;

impl Lexer<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    /// Splits the text into tokens (ending with `Eof`), the `##` doc lines
    /// into `docs`.
    fn run(&mut self, tokens: &mut Vec<Token>, docs: &mut Vec<(u32, u32)>) {
        use TokenKind::*;
        let bytes = self.text.as_bytes();
        // Some editors start files with a byte-order mark; it is not text.
        let mut pos = if self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let mut chunk = [Token {
            kind: Eof,
            start: 0,
            end: 0,
        }; CHUNK];
        let mut chunk_len: usize = 0;
        while let Some(&(mut b)) = bytes.get(pos) {
            // Most tokens are followed by one space: skipping it here spares
            // a round of the dispatch.
            if b == b' ' {
                pos += 1;
                match bytes.get(pos) {
                    Some(&next) => b = next,
                    None => break,
                }
            }
            let start = pos;
            let (kind, end) = match CLASS[b as usize] {
                Class::Space => {
                    // Indentation is a run of spaces; a tab or `\r` goes round the main loop.
                    pos += 1;
                    while bytes.get(pos) == Some(&b' ') {
                        pos += 1;
                    }
                    continue;
                }
                Class::Newline => {
                    pos += 1;
                    if continues_line(chunk.get(..chunk_len).unwrap_or(&chunk), tokens) {
                        continue;
                    }
                    (Newline, pos)
                }
                Class::Letter => self.word(bytes, start),
                Class::Whole(kind) => (kind, pos + 1),
                Class::Digit => self.int_or_number(bytes, start),
                Class::Question if is_letter(bytes.get(pos + 1)) => {
                    (Unknown, ident_end(bytes, pos + 2))
                }
                Class::Dot => {
                    if bytes.get(pos + 1) == Some(&b'.') && bytes.get(pos + 2) == Some(&b'.') {
                        (Ellipsis, pos + 3)
                    } else {
                        (Dot, pos + 1)
                    }
                }
                Class::Star if bytes.get(pos + 1) == Some(&b'*') => (StarStar, pos + 2),
                Class::Star => (Star, pos + 1),
                Class::Equals if bytes.get(pos + 1) == Some(&b'=') => (EqEq, pos + 2),
                Class::Equals => (Eq, pos + 1),
                Class::Bang if bytes.get(pos + 1) == Some(&b'=') => (NotEq, pos + 2),
                Class::Less if bytes.get(pos + 1) == Some(&b'=') => (Le, pos + 2),
                Class::Less => (Lt, pos + 1),
                Class::Greater if bytes.get(pos + 1) == Some(&b'=') => (Ge, pos + 2),
                Class::Greater => (Gt, pos + 1),
                Class::Minus if bytes.get(pos + 1) == Some(&b'>') => (Arrow, pos + 2),
                Class::Minus => (Minus, pos + 1),
                Class::Hash => {
                    pos = self.comment(start, docs);
                    continue;
                }
                Class::Quote => self.string(bytes, start),
                // A lone `!` or `?` starts no token either.
                Class::Other | Class::Question | Class::Bang => (Error, self.unexpected(start)),
            };
            // Flushing before the store tells the compiler that `chunk_len` is
            // in bounds there.
            if chunk_len >= CHUNK {
                tokens.extend_from_slice(&chunk);
                chunk_len = 0;
            }
            chunk[chunk_len] = Token {
                kind,
                start: start as u32,
                end: end as u32,
            };
            chunk_len += 1;
            pos = end;
        }
        tokens.extend_from_slice(chunk.get(..chunk_len).unwrap_or(&chunk));
        tokens.push(Token {
            kind: Eof,
            start: bytes.len() as u32,
            end: bytes.len() as u32,
        });
    }

    /// The name or keyword starting at `start` (a letter), and where it ends;
    /// counts declarations. Inlined into `run`'s dispatch, where it was written.
    #[inline(always)]
    fn word(&mut self, bytes: &[u8], start: usize) -> (TokenKind, usize) {
        use TokenKind::*;
        match bytes.get(start..).and_then(<[u8]>::first_chunk::<8>) {
            // Most names and all keywords are shorter than eight bytes.
            Some(word) => match word[1..].iter().position(|&b| !IDENT_CONTINUE[b as usize]) {
                Some(n) if may_be_keyword(word[0], n + 1) => {
                    // The name's bytes, and zeros above its length (at most seven).
                    let key = u64::from_le_bytes(*word) & (u64::MAX >> (56 - 8 * n));
                    let kind = keyword_by_key(key);
                    self.declarations += declares(kind);
                    (kind, start + n + 1)
                }
                Some(n) => (Ident, start + n + 1),
                None => (Ident, ident_end(bytes, start + 8)),
            },
            None => {
                let end = ident_end(bytes, start + 1);
                let kind = keyword(&bytes[start..end]);
                self.declarations += declares(kind);
                (kind, end)
            }
        }
    }

    /// The number starting at `start` (a digit), and where it ends. Inlined
    /// into `run`'s dispatch, where it was written.
    #[inline(always)]
    fn int_or_number(&mut self, bytes: &[u8], start: usize) -> (TokenKind, usize) {
        // Most numbers are whole and end at a space or bracket.
        let end = digits_end(bytes, start + 1);
        match bytes.get(end) {
            Some(&b) if b == b'.' || IDENT_CONTINUE[b as usize] => self.number(bytes, start),
            _ => (TokenKind::Int, end),
        }
    }

    /// Skips a comment to the end of its line, noting a `##` doc line.
    #[inline(never)]
    fn comment(&mut self, start: usize, docs: &mut Vec<(u32, u32)>) -> usize {
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        if self.text.as_bytes().get(start + 1) == Some(&b'#') {
            docs.push((start as u32, line_end as u32));
        }
        line_end
    }

    #[inline(never)]
    fn string(&mut self, bytes: &[u8], start: usize) -> (TokenKind, usize) {
        let mut pos = start + 1;
        loop {
            pos = match bytes[pos..]
                .iter()
                .position(|&b| ENDS_STRING_RUN[b as usize])
            {
                Some(n) => pos + n,
                None => bytes.len(),
            };
            match bytes.get(pos) {
                Some(b'"') => return (TokenKind::Str, pos + 1),
                Some(b'\\') => pos = self.escape(pos),
                _ => {
                    let span = self.span(start, pos);
                    self.diagnostics.push(
                        Diagnostic::error(codes::UNTERMINATED_STRING, "unterminated string")
                            .with_primary(span, "this string has no closing `\"`"),
                    );
                    return (TokenKind::Str, pos);
                }
            }
        }
    }

    /// Skips the `\x` escape at `pos` in a string, reporting an unknown one.
    #[cold]
    fn escape(&mut self, pos: usize) -> usize {
        match self.text.as_bytes().get(pos + 1) {
            Some(b'\\' | b'"' | b'n' | b't') => pos + 2,
            // A backslash at the end of the line leaves the string unterminated.
            Some(b'\n') | None => pos + 1,
            Some(_) => {
                let len = self.text[pos + 1..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                let span = self.span(pos, pos + 1 + len);
                self.diagnostics.push(
                    Diagnostic::error(codes::UNKNOWN_ESCAPE, "unknown escape in string")
                        .with_primary(span, "unknown escape")
                        .with_help("the escapes are `\\\\`, `\\\"`, `\\n` and `\\t`"),
                );
                pos + 1 + len
            }
        }
    }

    #[inline(never)]
    fn number(&mut self, bytes: &[u8], start: usize) -> (TokenKind, usize) {
        let mut pos = digits_end(bytes, start + 1);
        let mut kind = TokenKind::Int;
        if bytes.get(pos) == Some(&b'.') && is_digit(bytes.get(pos + 1)) {
            pos = digits_end(bytes, pos + 2);
            kind = TokenKind::Float;
        }
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            let exponent_digits = match bytes.get(pos + 1) {
                Some(b'+' | b'-') => is_digit(bytes.get(pos + 2)),
                d => is_digit(d),
            };
            if exponent_digits {
                pos = digits_end(bytes, pos + 2);
                kind = TokenKind::Float;
            }
        }
        if is_letter(bytes.get(pos)) {
            pos = ident_end(bytes, pos + 1);
            if kind == TokenKind::Int {
                kind = TokenKind::Grouped;
            } else {
                let span = self.span(start, pos);
                self.diagnostics.push(
                    Diagnostic::error(codes::INVALID_NUMBER, "invalid number")
                        .with_primary(span, "a float cannot touch a name")
                        .with_help("a grouped size such as `16gh` needs a whole number"),
                );
                kind = TokenKind::Error;
            }
        }
        (kind, pos)
    }

    /// Reports the run of characters at `start` that start no token, and
    /// returns its end.
    #[cold]
    fn unexpected(&mut self, start: usize) -> usize {
        let ch = self.text[start..].chars().next().unwrap_or('\u{fffd}');
        let mut pos = start + ch.len_utf8();
        // A run of such characters (`$$$`, a pasted `→`) is one mistake.
        let mut run = 1;
        while let Some(next) = self.text[pos..].chars().next() {
            if !is_unexpected(next) {
                break;
            }
            pos += next.len_utf8();
            run += 1;
        }
        let span = self.span(start, pos);
        let message = if run == 1 {
            format!("unexpected character `{}`", ch.escape_debug())
        } else {
            format!(
                "unexpected characters `{}`",
                self.text[start..pos].escape_debug()
            )
        };
        self.diagnostics.push(
            Diagnostic::error(codes::UNEXPECTED_CHARACTER, message)
                .with_primary(span, "no token starts with this"),
        );
        pos
    }
}

#[cfg(test)]
mod tests;
