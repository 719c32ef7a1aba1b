//! Parsing declarations: the file, `import`, `dim`, `extern fn`, `fn`,
//! `model` and `record`, with their parameters and fields. Recovers at the
//! next declaration (top level) or the next member (inside a body).

use super::{starts_item, Parser};
use crate::ast::*;
use crate::codes;
use crate::lexer::{Token, TokenKind};
use diag::{Diagnostic, Span};

impl Parser<'_> {
    pub(crate) fn parse_file(&mut self) -> File {
        // Sized up front: growing a vector of large items (or moving them from
        // a scratch stack) copies big blocks. The lexer counted the `import
        // dim fn model record` keywords (an upper bound: methods count too).
        let mut items = Vec::with_capacity(self.declarations);
        loop {
            self.begin_statement();
            let token = self.skip_separators(false);
            if token.kind == TokenKind::Eof {
                break;
            }
            let before = self.pos;
            let doc = self.take_doc(token.start);
            // Each arm pushes its item itself: an `Option<Item>` in between
            // cost one more copy of 320 bytes per declaration.
            let count = items.len();
            match token.kind {
                TokenKind::KwImport => items.push(Item::Import(self.parse_import(doc, token))),
                TokenKind::KwDim => items.push(Item::Dim(self.parse_dim(doc, token))),
                TokenKind::KwExtern => items.push(Item::ExternFn(self.parse_extern_fn(doc, token))),
                TokenKind::KwFn => items.push(Item::Fn(self.parse_fn(doc, token))),
                TokenKind::KwModel => items.push(Item::Model(self.parse_model(doc, token))),
                TokenKind::KwRecord => items.push(Item::Record(self.parse_record(doc, token))),
                _ => self.error_expected_declaration(),
            }
            // No item: its doc lines stay skipped up to here.
            let end = match items.get(count) {
                Some(item) => item.span().end,
                None => 0,
            };
            self.skip_docs_until(end);
            if !self.muted {
                self.finish_line(false);
            }
            if self.muted {
                self.recover_to_item();
            }
            self.ensure_progress(before);
        }
        let end = self.text.len() as u32;
        File {
            items,
            span: Span::new(self.file, 0, end),
        }
    }

    /// "expected a declaration", with a hint for habits from other languages.
    fn error_expected_declaration(&mut self) {
        let what = "a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`)";
        let token = self.current();
        let help = match (token.kind, self.text_of(token)) {
            (TokenKind::Ident, "def") => Some("functions are declared with `fn`"),
            (TokenKind::Ident, "class") => {
                Some("declare a model with `model`, or plain data with `record`")
            }
            (TokenKind::KwLet, _) => {
                Some("a constant size at the top level is a `dim`: `dim D = 768`")
            }
            _ => None,
        };
        let Some(help) = help else {
            self.error_expected(what);
            return;
        };
        let found = self.describe(token);
        let span = self.span_of(token);
        self.report(
            Diagnostic::error(codes::EXPECTED, format!("expected {what}, found {found}"))
                .with_primary(span, "expected a declaration")
                .with_help(help),
        );
    }

    /// Skips to the next line that starts with a declaration keyword (for
    /// `fn`, one outside any braces the skipped text opened: not a method),
    /// or with anything at all in the first column outside those braces, so
    /// junk after a broken declaration is not skipped unseen.
    fn recover_to_item(&mut self) {
        let mut braces = 0i64;
        let first = self.pos;
        loop {
            let token = self.token_at(self.pos);
            let line_start = self.line_start_at(self.pos);
            let closer = matches!(
                token.kind,
                TokenKind::RBrace | TokenKind::RParen | TokenKind::RBracket
            );
            match token.kind {
                TokenKind::Eof => return,
                kind if starts_item(kind) && line_start => return,
                TokenKind::KwFn if line_start && braces <= 0 => return,
                // A closer in the first column ends what broke; what follows it may be new.
                _ if !closer
                    && self.pos > first
                    && line_start
                    && braces <= 0
                    && self.indent_at(token.start) == 0 =>
                {
                    return
                }
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace => braces -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// The keyword that starts a declaration (`keyword`, the current token)
    /// and the name after it (`what`, in the diagnostic where it is
    /// missing): where the declaration starts, and its name.
    fn keyword_and_name(&mut self, keyword: Token, what: &str) -> (Span, Ident) {
        self.pos += 1;
        let name = self.expect_name(what);
        (self.span_of(keyword), name)
    }

    /// `keyword` is the current token, `import`.
    fn parse_import(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> Import {
        let (start, name) = self.keyword_and_name(keyword, "a file name");
        Import {
            doc,
            name,
            span: self.since(start),
        }
    }

    /// `keyword` is the current token, `dim`.
    fn parse_dim(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> Dim {
        let (start, name) = self.keyword_and_name(keyword, "a dim name");
        let value = if self.expect(TokenKind::Eq) {
            let token = self.current();
            if token.kind == TokenKind::LBracket {
                DimValue::Alias(self.bounded(|p| p.parse_shape_list_from(token)))
            } else {
                DimValue::Size(self.parse_size("a size or a shape `[...]`"))
            }
        } else {
            let here = self.here();
            DimValue::Size(SizeExpr::error(here))
        };
        Dim {
            doc,
            name,
            value,
            span: self.since(start),
        }
    }

    /// `keyword` is the current token, `extern`.
    fn parse_extern_fn(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> ExternFn {
        self.pos += 1;
        let start = self.span_of(keyword);
        self.expect(TokenKind::KwFn);
        let name = self.expect_name("a function name");
        let (self_param, params) = self.parse_params();
        if let Some(span) = self_param {
            self.report(
                Diagnostic::error(codes::EXPECTED, "expected a parameter, found `self`")
                    .with_primary(span, "only methods of a model take `self`"),
            );
        }
        let ret = self.parse_return_type();
        let mut python = None;
        self.skip_newlines_before(TokenKind::Eq);
        if self.eat(TokenKind::Eq) {
            if self.at(TokenKind::Str) {
                let token = self.bump();
                let text = self.text_of(token);
                python = Some(StrLit {
                    value: unescape(text),
                    span: self.span_of(token),
                });
            } else {
                self.error_expected("a Python name in a string, as `\"torch.exp\"`");
            }
        }
        ExternFn {
            doc,
            name,
            params,
            ret,
            python,
            span: self.since(start),
        }
    }

    /// `fn name(params) [-> Type] ({ block } | = expr)`; a method when its
    /// first parameter is `self`. `keyword` is the current token, `fn`.
    pub(super) fn parse_fn(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> Fn {
        let (start, name) = self.keyword_and_name(keyword, "a function name");
        let (self_param, params) = self.parse_params();
        let ret = self.parse_return_type();
        // The body may start on the next line: `{` or `= expr`.
        self.skip_newlines_before(TokenKind::LBrace);
        self.skip_newlines_before(TokenKind::Eq);
        let body = if self.at(TokenKind::LBrace) {
            FnBody::Block(self.parse_block())
        } else if self.eat(TokenKind::Eq) {
            FnBody::Expr(self.parse_expr())
        } else {
            self.error_expected("`{` or `=` to start the body");
            FnBody::Block(self.parse_block_after_missing_brace(start))
        };
        Fn {
            doc,
            name,
            self_param,
            params,
            ret,
            body,
            span: self.since(start),
        }
    }

    fn parse_return_type(&mut self) -> Option<Type> {
        // A long signature may put `-> Ret` on its own line.
        self.skip_newlines_before(TokenKind::Arrow);
        if self.eat(TokenKind::Arrow) {
            Some(self.parse_type())
        } else {
            None
        }
    }

    /// `(self?, name: Type = default, ...)`; returns the `self` span separately.
    fn parse_params(&mut self) -> (Option<Span>, Vec<Param>) {
        let open = self.current();
        if open.kind != TokenKind::LParen {
            self.error_expected("`(`");
            return (None, Vec::new());
        }
        let stops = [TokenKind::Arrow];
        let ((self_param, params), _) = self.delimited_from(open, TokenKind::RParen, &stops, |p| {
            let mut self_param = None;
            let mut token = p.current();
            // As for axes: most lists have one to four parameters.
            let mut params = if token.kind == TokenKind::Ident {
                Vec::with_capacity(4)
            } else {
                Vec::new()
            };
            loop {
                if matches!(token.kind, TokenKind::RParen | TokenKind::Eof) {
                    break;
                }
                let is_self = token.kind == TokenKind::Ident
                    && p.text.as_bytes()[token.start as usize..token.end as usize] == *b"self"
                    && params.is_empty()
                    && self_param.is_none()
                    && p.nth_kind(1) != TokenKind::Colon;
                if is_self {
                    p.pos += 1;
                    self_param = Some(p.span_of(token));
                } else if token.kind == TokenKind::Ident {
                    p.pos += 1;
                    let name = p.ident(token);
                    let param = p.parse_param(name);
                    params.push(param);
                } else {
                    p.error_expected("a parameter name");
                    break;
                }
                if !p.eat(TokenKind::Comma) {
                    break;
                }
                token = p.current();
            }
            (self_param, params)
        });
        (self_param, params)
    }

    /// `: Type` after the name of a parameter or field (an error type
    /// after the name where the `:` is missing).
    fn parse_annotation(&mut self, name: &Ident) -> Type {
        if self.expect(TokenKind::Colon) {
            self.parse_type()
        } else {
            Type::error(Span::new(self.file, name.span.end, name.span.end))
        }
    }

    /// `= value` after a parameter's or field's type, if there.
    fn parse_default(&mut self) -> Option<Expr> {
        if self.eat(TokenKind::Eq) {
            Some(self.parse_expr())
        } else {
            None
        }
    }

    /// The rest of a parameter after its name.
    fn parse_param(&mut self, name: Ident) -> Param {
        let ty = self.parse_annotation(&name);
        let default = self.parse_default().map(Box::new);
        let span = self.since(name.span);
        Param {
            name,
            ty,
            default,
            span,
        }
    }

    /// `keyword` is the current token, `model`.
    fn parse_model(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> Model {
        let (start, name) = self.keyword_and_name(keyword, "a model name");
        let mut size_params = Vec::new();
        if self.at(TokenKind::LParen) {
            let (names, _) = self.delimited(TokenKind::RParen, |p| {
                let mut names = Vec::new();
                while p.at(TokenKind::Ident) {
                    let token = p.bump();
                    names.push(p.ident(token));
                    if !p.eat(TokenKind::Comma) {
                        break;
                    }
                }
                if !p.at(TokenKind::RParen) {
                    p.error_expected("a size parameter name");
                }
                names
            });
            size_params = names;
        }
        let mut fields = Vec::new();
        let mut methods = Vec::new();
        self.parse_members(true, &mut fields, &mut methods);
        Model {
            doc,
            name,
            size_params,
            fields,
            methods,
            span: self.since(start),
        }
    }

    /// `keyword` is the current token, `record`.
    fn parse_record(&mut self, doc: Option<Box<Doc>>, keyword: Token) -> Record {
        let (start, name) = self.keyword_and_name(keyword, "a record name");
        let mut fields = Vec::new();
        self.parse_members(false, &mut fields, &mut Vec::new());
        Record {
            doc,
            name,
            fields,
            span: self.since(start),
        }
    }

    /// `{ member (newline | ; | ,) ... }`: fields, and methods when `methods_allowed`.
    /// Line breaks matter here, so this is not `delimited`.
    fn parse_members(
        &mut self,
        methods_allowed: bool,
        fields: &mut Vec<Field>,
        methods: &mut Vec<Fn>,
    ) {
        self.skip_newlines_before(TokenKind::LBrace);
        // A missing `{` is reported once; the members are still read up to the `}`.
        let open = if self.at(TokenKind::LBrace) || {
            self.error_expected("`{`");
            self.find_brace_on_line()
        } {
            let open = self.bump();
            Some(self.span_of(open))
        } else {
            None
        };
        let outer_muted = self.muted;
        self.open_closers.push(TokenKind::RBrace);
        loop {
            if open.is_some() || self.line_start_at(self.pos) {
                self.begin_statement();
            }
            self.skip_separators(true);
            let kind = self.kind();
            if kind == TokenKind::RBrace {
                self.bump();
                self.muted = outer_muted;
                break;
            }
            if kind == TokenKind::Eof || (starts_item(kind) && self.line_start_at(self.pos)) {
                self.muted = outer_muted;
                if let Some(open_span) = open {
                    self.report_unclosed(open_span, TokenKind::RBrace);
                }
                self.muted = true;
                break;
            }
            let start = self.here();
            let before = self.pos;
            let doc = self.take_doc(start.start);
            match kind {
                TokenKind::KwFn if methods_allowed => {
                    let keyword = self.current();
                    let method = self.parse_fn(doc, keyword);
                    self.skip_docs_until(method.span.end);
                    methods.push(method);
                }
                TokenKind::Ident => {
                    // `buffer name: ...`; a field named `buffer` has its `:` next.
                    let token = self.current();
                    let buffer = methods_allowed
                        && self.text_of(token) == "buffer"
                        && self.nth_kind(1) == TokenKind::Ident;
                    if buffer {
                        self.bump();
                    }
                    let mut field = self.parse_field(doc);
                    if buffer {
                        field.buffer = true;
                        field.span = self.since(self.span_of(token));
                    }
                    fields.push(field);
                }
                _ if methods_allowed => self.error_expected("a field or `fn`"),
                _ => self.error_expected("a field"),
            }
            // A method has read its body: a `{` ending a broken member's line is debris.
            self.end_block_line(before, true);
        }
        self.open_closers.pop();
    }

    fn parse_field(&mut self, doc: Option<Box<Doc>>) -> Field {
        let token = self.bump();
        let name = self.ident(token);
        let ty = self.parse_annotation(&name);
        let init = self.parse_default();
        let span = self.since(name.span);
        Field {
            doc,
            name,
            ty,
            init,
            span,
            buffer: false,
        }
    }
}

/// The value of a string literal token: quotes removed, escapes applied
/// (unknown ones were reported by the lexer and are kept as written).
pub(crate) fn unescape(text: &str) -> String {
    let inner = text.strip_prefix('"').unwrap_or(text);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    if !inner.contains('\\') {
        return inner.to_string();
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other @ ('\\' | '"')) => out.push(other),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
