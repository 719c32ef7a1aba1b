//! The ShapeScript parser: tokens to `ast::File`, by hand-written recursive
//! descent. Owns error reporting and recovery: one mistake gives one
//! diagnostic, then the parser resynchronises at the next statement, member
//! or declaration. Never panics and never fails; never looks at meanings.

mod expr;
mod items;
mod types;

#[cfg(test)]
mod tests;

use crate::ast::{Doc, Ident, Name, Path};
use crate::codes;
use crate::depth::{cut_too_deep, Bounded, MAX_TREE_DEPTH};
use crate::lexer::{Lexed, Token, TokenKind};
use diag::{Diagnostic, FileId, Span};

/// How a `{ ... }` body was opened: with its brace, or without one (after a
/// reported missing `{`) by a construct whose line has this indentation.
#[derive(Clone, Copy)]
enum Opening {
    Brace(Span),
    Missing { indent: usize },
}

/// What one parse hands to the next on the same thread: the token buffer,
/// grown to its working size, and the name cache. Names are interned for
/// the whole process, so cached ones stay valid from file to file.
pub(crate) struct Reused {
    pub(crate) tokens: Vec<Token>,
    /// A direct-mapped cache in front of `Name::new`: an identifier's text
    /// picks one slot, and a hit costs a comparison or two instead of the
    /// thread-local table's hashing and probing (a tenth of parsing before).
    /// A name of up to 8 bytes is keyed by its bytes packed into a `u64`
    /// (with its length, that is the whole text), so a hit compares no bytes.
    names: Box<[(u64, Name); NAME_SLOTS]>,
}

/// 8192 slots: with 2048, the generated workspace's names evicted one
/// another (30,000 misses in 100 files, 1.5% of parsing); 8192 leave 10,000.
/// Only the slots of names in use are ever touched.
const NAME_BITS: u32 = 13;
const NAME_SLOTS: usize = 1 << NAME_BITS;

impl Default for Reused {
    fn default() -> Self {
        Reused {
            tokens: Vec::new(),
            // Built on the heap: 128 KiB is too much to build on a thread's stack first.
            names: vec![(0, Name::EMPTY); NAME_SLOTS]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("the vector has NAME_SLOTS entries")),
        }
    }
}

pub(crate) struct Parser<'a> {
    file: FileId,
    text: &'a str,
    tokens: Vec<Token>,
    docs: Vec<(u32, u32)>,
    /// The lexer's count of declaration keywords, to size the item list.
    declarations: usize,
    /// The first doc line not yet attached to or skipped by a declaration.
    doc_cursor: usize,
    pos: usize,
    /// Inside `()` and `[]` line breaks are not statement ends; this counts how deep we are.
    skip_newlines: u32,
    /// Set once the current statement, member or declaration has a diagnostic:
    /// further ones are cascades and stay quiet until the next resynchronisation.
    muted: bool,
    /// Where the current statement, member or declaration began.
    statement_start: u32,
    /// The spans of the lexer's diagnostics, in order.
    lexer_errors: Vec<(u32, u32)>,
    /// The closers of the delimiters open around the current position, innermost last.
    open_closers: Vec<TokenKind>,
    /// Recursion depth of nested expressions, types and blocks, bounded to keep the stack safe.
    depth: u32,
    /// Whether an expression, type or size is being parsed: only the
    /// outermost one is held to `depth::MAX_TREE_DEPTH` as a whole.
    in_root: bool,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Buffers from the previous parse on this thread (its tokens are `tokens`).
    reused: Box<Reused>,
}

/// The smallest span covering both (same file assumed): `Span::to`, which
/// is not inlined across crates, and nodes join spans everywhere.
#[inline]
fn join(a: Span, b: Span) -> Span {
    Span {
        file: a.file,
        start: a.start.min(b.start),
        end: a.end.max(b.end),
    }
}

/// What `Parser::token_at` answers past the end, which never happens (the
/// tokens end with `Eof` and the cursor stops there): a constant `Eof`, so
/// no caller holds a panic or a call on its hot path for it.
const PAST_END: Token = Token {
    kind: TokenKind::Eof,
    start: 0,
    end: 0,
};

/// How far recovery heuristics look along one line (tokens or bytes), so
/// that they stay linear on enormous lines.
const LINE_SCAN_LIMIT: usize = 512;

/// Nesting deeper than this is reported instead of recursing further.
const MAX_DEPTH: u32 = 64;

/// Keywords that only start a declaration, never anything inside one.
fn starts_item(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::KwImport
            | TokenKind::KwDim
            | TokenKind::KwExtern
            | TokenKind::KwModel
            | TokenKind::KwRecord
    )
}

/// Keywords that start a statement and never continue an expression.
fn starts_statement(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::KwLet
            | TokenKind::KwReturn
            | TokenKind::KwIf
            | TokenKind::KwFor
            | TokenKind::KwFn
    )
}

impl<'a> Parser<'a> {
    pub(crate) fn new(file: FileId, text: &'a str, lexed: Lexed, reused: Box<Reused>) -> Self {
        Parser {
            file,
            text,
            tokens: lexed.tokens,
            docs: lexed.docs,
            declarations: lexed.declarations,
            doc_cursor: 0,
            pos: 0,
            skip_newlines: 0,
            muted: false,
            open_closers: Vec::new(),
            statement_start: 0,
            lexer_errors: lexed
                .diagnostics
                .iter()
                .filter_map(|d| {
                    d.primary
                        .as_ref()
                        .map(|label| (label.span.start, label.span.end))
                })
                .collect(),
            depth: 0,
            in_root: false,
            diagnostics: lexed.diagnostics,
            reused,
        }
    }

    /// The diagnostics, and the buffers for reuse (the tokens among them).
    pub(crate) fn finish(self) -> (Vec<Diagnostic>, Box<Reused>) {
        let mut reused = self.reused;
        reused.tokens = self.tokens;
        (self.diagnostics, reused)
    }

    /// The interned name of the text at `start..end`, through the cache.
    #[inline(always)]
    fn intern(&mut self, start: u32, end: u32) -> Name {
        let (start, end) = (start as usize, end as usize);
        let len = end - start;
        if len > 8 {
            let text = self.text;
            return self.intern_long(&text[start..end]);
        }
        let bytes = self.text.as_bytes();
        // One 8-byte load, masked to the name's bytes (little-endian), unless
        // the name is within 8 bytes of the end of the text.
        let word = match bytes.get(start..start + 8) {
            Some(word) => u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or_default()),
            None => bytes[start..end]
                .iter()
                .rev()
                .fold(0u64, |key, &b| (key << 8) | u64::from(b)),
        };
        let key = word & u64::MAX.checked_shr(64 - 8 * len as u32).unwrap_or(0);
        let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - NAME_BITS)) as usize;
        let (cached_key, cached) = self.reused.names[slot];
        if cached_key == key && cached.len() == len {
            return cached;
        }
        self.intern_miss(start, end, slot, key)
    }

    #[cold]
    #[inline(never)]
    fn intern_miss(&mut self, start: usize, end: usize, slot: usize, key: u64) -> Name {
        let name = Name::new(&self.text[start..end]);
        self.reused.names[slot] = (key, name);
        name
    }

    /// `intern` for names longer than 8 bytes: hashed, and compared byte by byte.
    #[inline(never)]
    fn intern_long(&mut self, text: &str) -> Name {
        let bytes = text.as_bytes();
        let hash = bytes.iter().fold(bytes.len() as u64, |hash, &b| {
            (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let slot = (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - NAME_BITS)) as usize;
        let (_, cached) = self.reused.names[slot];
        if cached.as_bytes() == bytes {
            return cached;
        }
        let name = Name::new(text);
        // The key is never compared for names longer than 8 bytes.
        self.reused.names[slot] = (0, name);
        name
    }

    // ------------------------------------------------------------ cursor

    /// The token at `index`. The tokens end with `Eof` and the cursor never
    /// passes it, so `index` is in bounds; a miss would answer `PAST_END`.
    /// Unlike indexing, this leaves no panic path in every caller: the
    /// cursor's reads are the parser's most frequent operation.
    #[inline(always)]
    fn token_at(&self, index: usize) -> Token {
        match self.tokens.get(index) {
            Some(&token) => token,
            None => PAST_END,
        }
    }

    /// The current token, skipping line breaks inside brackets.
    #[inline]
    fn current(&mut self) -> Token {
        let token = self.token_at(self.pos);
        // Line breaks are rare inside brackets (none follows an operator or
        // a comma), so the token's kind is tested first.
        if token.kind == TokenKind::Newline && self.skip_newlines > 0 {
            return self.skip_to_non_newline();
        }
        token
    }

    #[cold]
    fn skip_to_non_newline(&mut self) -> Token {
        while self.token_at(self.pos).kind == TokenKind::Newline {
            self.pos += 1;
        }
        self.token_at(self.pos)
    }

    fn kind(&mut self) -> TokenKind {
        self.current().kind
    }

    fn at(&mut self, kind: TokenKind) -> bool {
        self.kind() == kind
    }

    /// The kind of the token `n` places after the current one (line breaks
    /// count as tokens, except inside brackets).
    #[inline]
    fn nth_kind(&mut self, n: usize) -> TokenKind {
        let token = self.current();
        // Most look-aheads are one token, with no line break to skip.
        if n == 1 && token.kind != TokenKind::Eof {
            // In bounds: the tokens end with `Eof`, and this one is not it.
            let next = self.token_at(self.pos + 1).kind;
            if self.skip_newlines == 0 || next != TokenKind::Newline {
                return next;
            }
        }
        self.nth_kind_slow(n)
    }

    #[inline(never)]
    fn nth_kind_slow(&mut self, n: usize) -> TokenKind {
        let mut i = self.pos;
        let mut left = n;
        while left > 0 && self.token_at(i).kind != TokenKind::Eof {
            i += 1;
            if self.skip_newlines == 0 || self.token_at(i).kind != TokenKind::Newline {
                left -= 1;
            }
        }
        self.token_at(i).kind
    }

    /// Skips line breaks when the first token after them is `kind`, which
    /// continues the construct before them (`else`, `-> Ret`, a body's `{`).
    fn skip_newlines_before(&mut self, kind: TokenKind) {
        let mut next = self.pos;
        while self.token_at(next).kind == TokenKind::Newline {
            next += 1;
        }
        if self.token_at(next).kind == kind {
            self.pos = next;
        }
    }

    /// The indentation (spaces and tabs) of the line holding byte `offset`.
    /// Looks back at most `LINE_SCAN_LIMIT` bytes: a longer line counts as unindented.
    fn indent_at(&self, offset: u32) -> usize {
        let before = &self.text.as_bytes()[..offset as usize];
        let window = &before[before.len().saturating_sub(LINE_SCAN_LIMIT)..];
        let line_start = match window.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None if window.len() == before.len() => 0,
            None => return 0,
        };
        window[line_start..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count()
    }

    /// Whether the brace at token `index` is most likely a stray one typed by
    /// mistake, so recovery should skip it rather than let it open or close a
    /// body: a `{` in mid-line whose `}` is not on the same line, or a `}`
    /// followed on its line by something that cannot follow a body.
    fn stray_brace(&self, index: usize) -> bool {
        match self.token_at(index).kind {
            TokenKind::LBrace => {
                let mut depth = 0u32;
                let mut i = index + 1;
                if matches!(self.token_at(i).kind, TokenKind::Newline | TokenKind::Eof) {
                    return false;
                }
                loop {
                    // Bounded, so recovery on one enormous line stays linear.
                    if i > index + LINE_SCAN_LIMIT {
                        return false;
                    }
                    match self.token_at(i).kind {
                        TokenKind::Newline | TokenKind::Eof => return true,
                        TokenKind::LBrace => depth += 1,
                        TokenKind::RBrace if depth == 0 => return false,
                        TokenKind::RBrace => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                }
            }
            // No body is ever inside `()` or `[]`, so `})` and `}]` are stray too.
            TokenKind::RBrace => !matches!(
                self.token_at(index + 1).kind,
                TokenKind::Newline
                    | TokenKind::Eof
                    | TokenKind::Semi
                    | TokenKind::RBrace
                    | TokenKind::KwElse
            ),
            _ => false,
        }
    }

    /// After a reported missing `{`: moves to a `{` later on this line, if
    /// one comes before any `}`, and says whether it did.
    fn find_brace_on_line(&mut self) -> bool {
        let mut i = self.pos;
        loop {
            if i > self.pos + LINE_SCAN_LIMIT {
                return false;
            }
            match self.token_at(i).kind {
                TokenKind::LBrace => {
                    self.pos = i;
                    return true;
                }
                TokenKind::RBrace | TokenKind::Newline | TokenKind::Eof => return false,
                _ => i += 1,
            }
        }
    }

    /// Consumes the current token (never `Eof`) and returns it.
    fn bump(&mut self) -> Token {
        let token = self.current();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
        }
        token
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        // `at` then `bump` would find the current token twice.
        let token = self.current();
        if token.kind != kind {
            return false;
        }
        if kind != TokenKind::Eof {
            self.pos += 1;
        }
        true
    }

    fn span_of(&self, token: Token) -> Span {
        Span::new(self.file, token.start, token.end)
    }

    fn text_of(&self, token: Token) -> &'a str {
        &self.text[token.start as usize..token.end as usize]
    }

    /// The span of the current token.
    fn here(&mut self) -> Span {
        let token = self.current();
        self.span_of(token)
    }

    /// Where the last consumed token ended, for closing a node's span.
    fn prev_end(&self) -> u32 {
        let mut i = self.pos;
        while i > 0 {
            i -= 1;
            if self.token_at(i).kind != TokenKind::Newline {
                return self.token_at(i).end;
            }
        }
        0
    }

    /// A span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        Span::new(self.file, start.start, self.prev_end().max(start.start))
    }

    // ------------------------------------------------------------ errors

    /// Reports a diagnostic unless this statement already has one.
    fn report(&mut self, diagnostic: Diagnostic) {
        let at = diagnostic
            .primary
            .as_ref()
            .map_or(0, |label| label.span.start);
        if !self.muted && !self.lexer_error_between(self.statement_start, at) {
            self.diagnostics.push(diagnostic);
        }
        self.muted = true;
    }

    /// Starts a new statement, member or declaration: its first mistake will be reported.
    fn begin_statement(&mut self) {
        self.muted = false;
        self.statement_start = self.token_at(self.pos).start;
    }

    /// Whether the lexer reported a mistake starting in `start..end`: an
    /// unterminated string or a bad character there explains what follows.
    fn lexer_error_between(&self, start: u32, end: u32) -> bool {
        let first = self
            .lexer_errors
            .partition_point(|&(error_start, _)| error_start < start);
        self.lexer_errors
            .get(first)
            .is_some_and(|&(error_start, _)| error_start < end)
    }

    /// "expected X, found Y" on the current token. An `Error` token was
    /// already reported by the lexer, so it only mutes.
    fn error_expected(&mut self, what: &str) {
        let token = self.current();
        if self.lexer_reported(token) {
            self.muted = true;
            return;
        }
        let found = self.describe(token);
        let span = self.span_of(token);
        self.report(
            Diagnostic::error(codes::EXPECTED, format!("expected {what}, found {found}"))
                .with_primary(span, format!("expected {what}")),
        );
    }

    /// Whether the lexer already reported a mistake in this token (a bad
    /// character, an unterminated string...): the parser then stays quiet.
    fn lexer_reported(&self, token: Token) -> bool {
        if token.kind == TokenKind::Error {
            return true;
        }
        // Lexer diagnostics are in source order.
        let first_after = self
            .lexer_errors
            .partition_point(|&(_, end)| end <= token.start);
        self.lexer_errors
            .get(first_after)
            .is_some_and(|&(start, _)| start < token.end.max(token.start + 1))
    }

    /// How a token is named in messages: its text in backticks when short.
    fn describe(&self, token: Token) -> String {
        match token.kind {
            TokenKind::Ident
            | TokenKind::Int
            | TokenKind::Float
            | TokenKind::Grouped
            | TokenKind::Unknown => {
                format!("`{}`", self.text_of(token))
            }
            kind => kind.describe().to_string(),
        }
    }

    fn expect(&mut self, kind: TokenKind) -> bool {
        if self.eat(kind) {
            return true;
        }
        self.error_expected(kind.describe());
        false
    }

    #[inline]
    fn expect_ident(&mut self, what: &str) -> Option<Ident> {
        let token = self.current();
        if token.kind == TokenKind::Ident {
            self.pos += 1;
            return Some(self.ident(token));
        }
        self.missing_expected(what)
    }

    #[cold]
    #[inline(never)]
    fn missing_expected<T>(&mut self, what: &str) -> Option<T> {
        self.error_expected(what);
        None
    }

    #[inline(always)]
    fn ident(&mut self, token: Token) -> Ident {
        Ident {
            name: self.intern(token.start, token.end),
            span: self.span_of(token),
        }
    }

    /// A placeholder name for a declaration whose name is missing, so the
    /// rest of it still lands in the tree; its span is empty.
    /// An identifier, or after reporting (as `expect_ident`) a missing one:
    /// empty, where the cursor is.
    fn expect_name(&mut self, what: &str) -> Ident {
        self.expect_ident(what)
            .unwrap_or_else(|| self.missing_ident())
    }

    fn missing_ident(&mut self) -> Ident {
        let here = self.here();
        Ident {
            name: Name::EMPTY,
            span: Span::new(self.file, here.start, here.start),
        }
    }

    /// `name` or `file.name`.
    #[inline]
    fn path_from(&mut self, first: Token) -> Path {
        let first = self.ident(first);
        if self.at(TokenKind::Dot) && self.nth_kind(1) == TokenKind::Ident {
            self.bump();
            let token = self.bump();
            let name = self.ident(token);
            let span = join(first.span, name.span);
            return Path {
                file: Some(first),
                name,
                span,
            };
        }
        let span = first.span;
        Path {
            file: None,
            name: first,
            span,
        }
    }

    /// Guards recursion; reports once and returns false when nesting is too deep.
    #[inline]
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.report_too_deep();
            return false;
        }
        self.depth += 1;
        true
    }

    #[cold]
    #[inline(never)]
    fn report_too_deep(&mut self) {
        let span = self.here();
        self.report(
            Diagnostic::error(
                codes::EXPECTED,
                "expected less nesting, found too many nested brackets",
            )
            .with_primary(span, "nested too deeply"),
        );
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Runs `parse` and, when it is the outermost expression, type or size,
    /// cuts what it built if it nests deeper than `depth::MAX_TREE_DEPTH`
    /// (one diagnostic), so that no later walk over the tree recurses
    /// without bound.
    fn bounded<T: Bounded>(&mut self, parse: impl FnOnce(&mut Self) -> T) -> T {
        if self.in_root {
            return parse(self);
        }
        self.in_root = true;
        let mut tree = parse(self);
        self.in_root = false;
        if let Some(span) = cut_too_deep(tree.root()) {
            self.report_too_deep_tree(T::WHAT, T::HELP, span);
        }
        tree
    }

    #[cold]
    #[inline(never)]
    fn report_too_deep_tree(&mut self, what: &str, help: &str, span: Span) {
        self.report(
            Diagnostic::error(
                codes::EXPECTED,
                format!(
                    "expected less nesting, found {what} nested more than {MAX_TREE_DEPTH} levels deep"
                ),
            )
            .with_primary(span, "nested too deeply")
            .with_help(help),
        );
    }

    // ------------------------------------------------------------ delimiters

    /// Parses `open inner close`, with line breaks ignored inside. On a
    /// missing closer reports once (E0103 or E0104) and skips to the matching
    /// closer or the next statement. Returns the result and the closing position.
    fn delimited<T>(&mut self, close: TokenKind, inner: impl FnOnce(&mut Self) -> T) -> (T, u32) {
        self.delimited_with_stops(close, &[], inner)
    }

    /// `delimited`, where recovery from a missing closer also stops before
    /// any of `stops` outside nested brackets (`->` after a parameter list).
    fn delimited_with_stops<T>(
        &mut self,
        close: TokenKind,
        stops: &[TokenKind],
        inner: impl FnOnce(&mut Self) -> T,
    ) -> (T, u32) {
        let open = self.current();
        self.delimited_from(open, close, stops, inner)
    }

    /// `delimited_with_stops` when the caller already holds the current
    /// token `open` (so it is not looked up again).
    #[inline]
    fn delimited_from<T>(
        &mut self,
        open: Token,
        close: TokenKind,
        stops: &[TokenKind],
        inner: impl FnOnce(&mut Self) -> T,
    ) -> (T, u32) {
        // What `bump` does to the current token.
        if open.kind != TokenKind::Eof {
            self.pos += 1;
        }
        let open_span = self.span_of(open);
        self.skip_newlines += 1;
        self.open_closers.push(close);
        let value = inner(self);
        self.open_closers.pop();
        // Looked for while still inside, so a line break before it is skipped.
        let token = self.current();
        self.skip_newlines -= 1;
        if token.kind == close {
            self.pos += 1;
            return (value, token.end);
        }
        if self.report_unclosed(open_span, close) {
            self.recover_to_closer(close, stops);
        }
        (value, self.prev_end())
    }

    /// Reports a missing closer: E0104 when the text plainly went on without
    /// it (end of file, a declaration, a new line), else E0103 "expected `)`,
    /// found ...". Returns whether the caller should skip to the closer.
    fn report_unclosed(&mut self, open_span: Span, close: TokenKind) -> bool {
        self.skip_newlines += 1;
        let token = self.current();
        self.skip_newlines -= 1;
        let is_closer = matches!(
            token.kind,
            TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace
        );
        let runs_on = token.kind == TokenKind::Eof
            || (starts_item(token.kind) && self.line_start_at(self.pos))
            || (!is_closer && self.line_start_at(self.pos));
        let since = open_span.start.min(self.statement_start);
        if self.lexer_reported(token) || self.lexer_error_between(since, token.start) {
            self.muted = true;
            return !runs_on;
        }
        let found = self.describe(token);
        let found_span = self.span_of(token);
        let opener = &self.text[open_span.start as usize..open_span.end as usize];
        let diagnostic = if runs_on {
            Diagnostic::error(
                codes::UNCLOSED_DELIMITER,
                format!("unclosed delimiter `{opener}`"),
            )
            .with_primary(open_span, "unclosed delimiter")
            .with_secondary(
                found_span,
                format!("expected {} before {found}", close.describe()),
            )
        } else {
            Diagnostic::error(
                codes::EXPECTED,
                format!("expected {}, found {found}", close.describe()),
            )
            .with_primary(found_span, format!("expected {}", close.describe()))
            .with_secondary(open_span, "to close this")
        };
        self.report(diagnostic);
        !runs_on
    }

    /// Whether token `index` is the first on its line. Looks at the text,
    /// since no `Newline` token is made after an operator or a comma.
    fn line_start_at(&self, index: usize) -> bool {
        if index == 0 || self.token_at(index - 1).kind == TokenKind::Newline {
            return true;
        }
        let gap = self.token_at(index - 1).end as usize..self.token_at(index).start as usize;
        self.text.as_bytes()[gap].contains(&b'\n')
    }

    /// Skips to and past the closer matching an already-open delimiter. A
    /// different closer at the same depth is taken as a mistyped one unless
    /// it closes an outer delimiter. Stops before anything that plainly
    /// starts a new statement or declaration.
    fn recover_to_closer(&mut self, close: TokenKind, stops: &[TokenKind]) {
        let mut depth = 0u32;
        loop {
            let token = self.token_at(self.pos);
            match token.kind {
                TokenKind::Eof => return,
                kind if depth == 0 && stops.contains(&kind) => return,
                TokenKind::LBrace | TokenKind::RBrace if self.stray_brace(self.pos) => {}
                // No `{` is ever inside `()` or `[]`: it starts the body after them.
                TokenKind::LBrace if depth == 0 && close != TokenKind::RBrace => return,
                kind if starts_item(kind) && self.line_start_at(self.pos) => return,
                kind if starts_statement(kind) && self.line_start_at(self.pos) => return,
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => depth += 1,
                kind @ (TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace) => {
                    if depth == 0 {
                        if kind != close && self.open_closers.contains(&kind) {
                            return;
                        }
                        self.pos += 1;
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips the rest of a broken statement or member: to the line break,
    /// `;` or `}` that ends it (not consumed), skipping nested brackets.
    fn recover_to_statement_end(&mut self) {
        // Brackets and braces are counted apart: a broken statement may leave
        // a `(` open, but a `{` it opened is skipped whole (a body of its own).
        let mut brackets = 0u32;
        let mut braces = 0u32;
        loop {
            let token = self.token_at(self.pos);
            let line_start = self.line_start_at(self.pos);
            match token.kind {
                TokenKind::Eof => return,
                kind if starts_item(kind) && line_start => return,
                kind if starts_statement(kind) && line_start && braces == 0 => return,
                TokenKind::LBrace | TokenKind::RBrace if self.stray_brace(self.pos) => {}
                TokenKind::Newline | TokenKind::Semi if brackets == 0 && braces == 0 => return,
                TokenKind::RBrace if braces == 0 => return,
                TokenKind::LParen | TokenKind::LBracket => brackets += 1,
                TokenKind::RParen | TokenKind::RBracket => brackets = brackets.saturating_sub(1),
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace => braces -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// After a statement, member or declaration: it must end here (line
    /// break, `;`, `,` where allowed, `}` or end of file); otherwise report
    /// once and skip the rest.
    fn finish_line(&mut self, allow_comma: bool) {
        self.finish_line_then(allow_comma, Self::recover_to_statement_end);
    }

    /// `finish_line` with the recovery to use when the line does not end.
    fn finish_line_then(&mut self, allow_comma: bool, recover: fn(&mut Self)) {
        let kind = self.kind();
        let ends = matches!(
            kind,
            TokenKind::Newline | TokenKind::Semi | TokenKind::RBrace | TokenKind::Eof
        ) || (allow_comma && kind == TokenKind::Comma);
        if !ends {
            self.error_expected("a newline or `;`");
            recover(self);
        }
    }

    /// Recovery inside a block or a model: a statement or member with a body
    /// (`if`, `for`, a method) has read its `{`, so a `{` at the end of the
    /// line that broke one is debris, not a body to skip whole.
    fn recover_in_block(&mut self) {
        let brace_at_end = self.token_at(self.pos).kind == TokenKind::LBrace
            && self.token_at(self.pos + 1).kind == TokenKind::Newline;
        if brace_at_end {
            self.pos += 1;
        }
        self.recover_to_statement_end();
    }

    /// After a statement of a block or a member of a model or record, begun
    /// at token `before`: the line must end there (`,` allowed where
    /// `allow_comma`); after a mistake, skips to the next statement unless
    /// the broken one already ended at a new line. Always moves on.
    fn end_block_line(&mut self, before: usize, allow_comma: bool) {
        if !self.muted {
            self.finish_line_then(allow_comma, Self::recover_in_block);
        } else if !(self.pos > before && self.line_start_at(self.pos)) {
            self.recover_in_block();
        }
        self.ensure_progress(before);
    }

    /// Makes sure a loop over statements, members or declarations moves on:
    /// if nothing was consumed since `before`, skips one token.
    fn ensure_progress(&mut self, before: usize) {
        if self.pos == before && self.token_at(self.pos).kind != TokenKind::Eof {
            self.pos += 1;
        }
    }

    /// Skips line breaks and `;` (and `,` where members allow it).
    /// Skips line breaks and `;` (and `,` if allowed); returns the current token after them.
    fn skip_separators(&mut self, allow_comma: bool) -> Token {
        loop {
            let token = self.current();
            match token.kind {
                TokenKind::Newline | TokenKind::Semi => {}
                TokenKind::Comma if allow_comma => {}
                _ => return token,
            }
            self.pos += 1;
        }
    }

    // ------------------------------------------------------------ docs

    /// The `##` lines between the previous declaration or member and the
    /// token at `before`, joined; they are consumed.
    #[inline]
    fn take_doc(&mut self, before: u32) -> Option<Box<Doc>> {
        // Most declarations have no doc lines before them.
        match self.docs.get(self.doc_cursor) {
            Some(&(start, _)) if start < before => self.take_doc_lines(before),
            _ => None,
        }
    }

    fn take_doc_lines(&mut self, before: u32) -> Option<Box<Doc>> {
        let first = self.doc_cursor;
        while self.doc_cursor < self.docs.len() && self.docs[self.doc_cursor].0 < before {
            self.doc_cursor += 1;
        }
        let lines = &self.docs[first..self.doc_cursor];
        let (start, _) = *lines.first()?;
        let (_, end) = *lines.last()?;
        let mut text = String::new();
        for (i, &(line_start, line_end)) in lines.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let line = &self.text[line_start as usize + 2..line_end as usize];
            let line = line.strip_prefix(' ').unwrap_or(line);
            text.push_str(line.trim_end());
        }
        Some(Box::new(Doc {
            text,
            span: Span::new(self.file, start, end),
        }))
    }

    /// Drops doc lines inside a finished declaration so they do not attach to the next one.
    fn skip_docs_until(&mut self, end: u32) {
        while self.doc_cursor < self.docs.len() && self.docs[self.doc_cursor].0 < end {
            self.doc_cursor += 1;
        }
    }
}
