//! The reader: source text to `Form`s, each with its byte span. Reading never
//! fails and never panics: unreadable text becomes an `E-READ-*` diagnostic
//! and the reader carries on. It never evaluates anything.

use crate::codes;
use diag::{Diagnostic, FileId, Span};

/// Forms nested deeper than this are refused, so that nothing downstream
/// (evaluation, printing, dropping) can exhaust the stack on hostile input.
pub const MAX_NESTING: usize = 256;

/// One piece of source code, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    pub kind: FormKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormKind {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// Without the leading colon.
    Keyword(String),
    Symbol(String),
    List(Vec<Form>),
    Vector(Vec<Form>),
    /// Keys and values alternating, as written.
    Map(Vec<Form>),
}

impl Form {
    pub fn new(kind: FormKind, span: Span) -> Self {
        Form { kind, span }
    }

    pub fn as_symbol(&self) -> Option<&str> {
        match &self.kind {
            FormKind::Symbol(s) => Some(s),
            _ => None,
        }
    }
}

/// What reading one file gave: the top-level forms and any reader errors.
pub struct ReadResult {
    pub forms: Vec<Form>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads every top-level form of `text`, whose spans refer to `file`.
pub fn read(file: FileId, text: &str) -> ReadResult {
    let mut reader = Reader {
        file,
        text,
        // A byte-order mark is not part of the program.
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
        diagnostics: Vec::new(),
        open: Vec::new(),
        reached_end: false,
    };
    let mut forms = Vec::new();
    loop {
        reader.skip_trivia();
        if reader.pos >= text.len() {
            break;
        }
        if let Some(form) = reader.read_form(0) {
            forms.push(form);
        }
    }
    ReadResult {
        forms,
        diagnostics: reader.diagnostics,
    }
}

struct Reader<'a> {
    file: FileId,
    text: &'a str,
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    /// The delimiters open around the current position, outermost first,
    /// with where each opened.
    open: Vec<(char, usize)>,
    /// Set once a mistake has run to the end of the file (an unterminated
    /// string), so the lists it swallowed are not reported as unclosed too.
    reached_end: bool,
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | '"' | ';' | ',')
}

/// A control character that is not whitespace (a NUL, an escape, DEL):
/// never part of a token (`E-READ-011`).
fn is_stray_control(c: char) -> bool {
    c.is_control() && !c.is_whitespace()
}

fn closer_of(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

impl<'a> Reader<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn error(
        &mut self,
        code: diag::Code,
        message: String,
        span: Span,
        label: &str,
    ) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::error(code, message).with_primary(span, label));
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// A token that reads as no atom (`E-READ-004`: no number,
    /// `E-READ-010`: no keyword or symbol), with `help`.
    fn refuse(
        &mut self,
        code: diag::Code,
        message: String,
        span: Span,
        help: &str,
    ) -> Option<FormKind> {
        let error = self.error(code, message, span, "");
        error.help.push(help.into());
        None
    }

    /// Skips whitespace, commas (whitespace in Clojure) and `;` comments.
    fn skip_trivia(&mut self) {
        while let Some(c) = self.peek() {
            if c == ';' {
                let rest = &self.text[self.pos..];
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if c.is_whitespace() || c == ',' {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    /// Reads one form starting at a non-trivia character. Returns `None` when
    /// the text there was not a form (the error is already recorded).
    fn read_form(&mut self, depth: usize) -> Option<Form> {
        let start = self.pos;
        let c = self.peek()?;
        match c {
            '(' | '[' | '{' => self.read_collection(c, depth),
            ')' | ']' | '}' => {
                self.pos += 1;
                let span = self.span(start, start + 1);
                self.error(
                    codes::E_READ_002,
                    format!("unexpected `{c}`"),
                    span,
                    "nothing to close here",
                );
                None
            }
            '"' => self.read_string(),
            '\'' | '`' | '~' => self.read_prefixed(depth),
            c if is_stray_control(c) => {
                self.pos += c.len_utf8();
                let span = self.span(start, self.pos);
                self.error(
                    codes::E_READ_011,
                    format!("control character U+{:04X} in the source", c as u32),
                    span,
                    "not text",
                )
                .help
                .push("remove it; inside a string, write it as an escape like `\\0`".into());
                None
            }
            _ => self.read_atom(),
        }
    }

    fn read_collection(&mut self, open: char, depth: usize) -> Option<Form> {
        let start = self.pos;
        self.pos += 1;
        if depth >= MAX_NESTING {
            let span = self.span(start, start + 1);
            self.error(
                codes::E_READ_009,
                format!("forms nested more than {MAX_NESTING} levels deep"),
                span,
                "too deep",
            );
            self.skip_balanced(1);
            return None;
        }
        self.open.push((open, start));
        let items = self.read_items(open, start, depth);
        self.open.pop();
        let items = items?;
        let span = self.span(start, self.pos);
        let kind = match open {
            '(' => FormKind::List(items),
            '[' => FormKind::Vector(items),
            _ => {
                if !items.len().is_multiple_of(2) {
                    self.error(
                        codes::E_READ_007,
                        "a map needs an even number of forms".to_string(),
                        span,
                        "keys and values must pair up",
                    );
                    return None;
                }
                FormKind::Map(items)
            }
        };
        Some(Form::new(kind, span))
    }

    /// The forms of a collection up to its closer; `None` when the file ends first.
    fn read_items(&mut self, open: char, start: usize, depth: usize) -> Option<Vec<Form>> {
        let close = closer_of(open);
        let mut items = Vec::new();
        loop {
            self.skip_trivia();
            let Some(c) = self.peek() else {
                if self.reached_end {
                    return None;
                }
                self.reached_end = true;
                let span = self.span(start, start + 1);
                // As rustc does for unclosed delimiters: the innermost form
                // is where the closer is missing, and the outermost one
                // (usually the `defn`) is where the reader kept reading.
                let outermost = match self.open.first() {
                    Some(&(_, at)) if at != start => Some(self.span(at, at + 1)),
                    _ => None,
                };
                let d = self.error(
                    codes::E_READ_001,
                    format!("unclosed `{open}`"),
                    span,
                    "opened here",
                );
                d.help
                    .push(format!("add `{close}` where the form should end"));
                if let Some(outer) = outermost {
                    d.secondary.push(diag::Label {
                        span: outer,
                        message: "the outermost form still open starts here".to_string(),
                    });
                }
                return None;
            };
            if c == close {
                self.pos += 1;
                break;
            }
            if matches!(c, ')' | ']' | '}') {
                let here = self.span(self.pos, self.pos + 1);
                let opened = self.span(start, start + 1);
                // A closer that belongs to an enclosing form ends this one
                // too, and is left for that form, so the outer ones still
                // close where the user meant them to.
                let outer = &self.open[..self.open.len() - 1];
                if !outer.iter().any(|&(o, _)| closer_of(o) == c) {
                    self.pos += 1;
                }
                self.diagnostics.push(
                    Diagnostic::error(codes::E_READ_003, format!("`{open}` closed by `{c}`"))
                        .with_primary(here, format!("expected `{close}`"))
                        .with_secondary(opened, "opened here"),
                );
                break;
            }
            if let Some(form) = self.read_form(depth + 1) {
                items.push(form);
            }
        }
        Some(items)
    }

    /// Skips to the end of a collection already `depth` levels open, used
    /// after refusing one that is nested too deep.
    fn skip_balanced(&mut self, mut depth: usize) {
        while depth > 0 {
            self.skip_trivia();
            let Some(c) = self.peek() else { return };
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                '"' => {
                    self.skip_string();
                    continue;
                }
                _ => {}
            }
            self.pos += c.len_utf8();
        }
    }

    fn skip_string(&mut self) {
        self.pos += 1;
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(bytes.len());
    }

    /// `'x` `` `x `` `~x` `~@x`: the reader's shorthands for
    /// `(quote x)` `(quasiquote x)` `(unquote x)` `(unquote-splicing x)`.
    fn read_prefixed(&mut self, depth: usize) -> Option<Form> {
        let start = self.pos;
        let (name, len) = match &self.text[self.pos..] {
            s if s.starts_with("~@") => ("unquote-splicing", 2),
            s if s.starts_with('~') => ("unquote", 1),
            s if s.starts_with('`') => ("quasiquote", 1),
            _ => ("quote", 1),
        };
        self.pos += len;
        let prefix = self.span(start, self.pos);
        self.skip_trivia();
        if depth >= MAX_NESTING {
            self.error(
                codes::E_READ_009,
                format!("forms nested more than {MAX_NESTING} levels deep"),
                prefix,
                "too deep",
            );
            return None;
        }
        match self.peek() {
            None | Some(')' | ']' | '}') => {
                let text = &self.text[start..start + len];
                self.error(
                    codes::E_READ_008,
                    format!("expected a form after `{text}`"),
                    prefix,
                    "",
                )
                .help
                .push(format!("`{text}` applies to the form right after it"));
                None
            }
            Some(_) => {
                let inner = self.read_form(depth + 1)?;
                let span = self.span(start, inner.span.end as usize);
                let head = Form::new(FormKind::Symbol(name.to_string()), prefix);
                Some(Form::new(FormKind::List(vec![head, inner]), span))
            }
        }
    }

    fn read_string(&mut self) -> Option<Form> {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        let mut ok = true;
        loop {
            let Some(c) = self.peek() else {
                self.reached_end = true;
                let span = self.span(start, start + 1);
                self.error(
                    codes::E_READ_005,
                    "unterminated string".to_string(),
                    span,
                    "starts here",
                )
                .help
                .push("close it with `\"`".to_string());
                return None;
            };
            let at = self.pos;
            self.pos += c.len_utf8();
            match c {
                '"' => break,
                '\\' => match self.read_escape(at) {
                    Some(ch) => value.push(ch),
                    None => ok = false,
                },
                _ => value.push(c),
            }
        }
        ok.then(|| Form::new(FormKind::Str(value), self.span(start, self.pos)))
    }

    /// Reads the escape after a backslash at `at`; records an error and
    /// returns `None` for an unknown one.
    fn read_escape(&mut self, at: usize) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            '\\' => Some('\\'),
            '"' => Some('"'),
            _ => None,
        };
        if simple.is_some() {
            return simple;
        }
        if c == 'u' {
            let hex = self.text.get(self.pos..self.pos + 4).unwrap_or("");
            if let Some(ch) = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                if hex.len() == 4 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    self.pos += 4;
                    return Some(ch);
                }
            }
        }
        let span = self.span(at, self.pos);
        self.error(
            codes::E_READ_006,
            format!("unknown escape `\\{c}` in a string"),
            span,
            "",
        )
        .help
        .push("known escapes: \\n \\t \\r \\0 \\\\ \\\" \\uXXXX".to_string());
        None
    }

    fn read_atom(&mut self) -> Option<Form> {
        let start = self.pos;
        let rest = &self.text[start..];
        let len = rest.find(is_delimiter).unwrap_or(rest.len());
        // A prefix character in the middle of a token ends nothing; only a
        // leading one is a reader shorthand, handled before we get here.
        self.pos += len.max(rest.chars().next().map_or(1, char::len_utf8));
        let token = &self.text[start..self.pos];
        let span = self.span(start, self.pos);
        let kind = self.classify(token, span);
        if kind.is_none() && token.starts_with('#') {
            // `#{...}` or `#(...)`: the whole dispatch form is one mistake.
            if let Some('(' | '[' | '{') = self.peek() {
                self.pos += 1;
                self.skip_balanced(1);
            }
        }
        let kind = kind?;
        Some(Form::new(kind, span))
    }

    fn classify(&mut self, token: &str, span: Span) -> Option<FormKind> {
        let first = token.chars().next()?;
        let second = token.chars().nth(1);
        let numeric = first.is_ascii_digit()
            || (matches!(first, '+' | '-') && second.is_some_and(|c| c.is_ascii_digit()));
        if numeric {
            return self.parse_number(token, span);
        }
        match token {
            "nil" => return Some(FormKind::Nil),
            "true" => return Some(FormKind::Bool(true)),
            "false" => return Some(FormKind::Bool(false)),
            // Clojure's symbolic floats, as values print them: what prints
            // reads back.
            "##NaN" => return Some(FormKind::Float(f64::NAN)),
            "##Inf" => return Some(FormKind::Float(f64::INFINITY)),
            "##-Inf" => return Some(FormKind::Float(f64::NEG_INFINITY)),
            _ => {}
        }
        if matches!(first, '#' | '\\' | '^' | '@') {
            self.error(
                codes::E_READ_010,
                format!("`{first}` reader syntax is not supported"),
                span,
                "not SexpGPU syntax",
            )
            .help
            .push(
                "SexpGPU reads lists, vectors, maps, strings, numbers, keywords, symbols and `'`"
                    .into(),
            );
            return None;
        }
        if let Some(name) = token.strip_prefix(':') {
            if name.is_empty() || name.starts_with(':') || name.ends_with('/') {
                return self.refuse(
                    codes::E_READ_010,
                    format!("`{token}` is not a keyword"),
                    span,
                    "a keyword is a colon and a name, like `:axes`",
                );
            }
            return Some(FormKind::Keyword(name.to_string()));
        }
        if token.len() > 1 && (token.ends_with('/') || token.starts_with('/')) {
            return self.refuse(
                codes::E_READ_010,
                format!("`{token}` is not a symbol"),
                span,
                "a qualified name is `library/name`, like `nn/softmax`",
            );
        }
        Some(FormKind::Symbol(token.to_string()))
    }

    fn parse_number(&mut self, token: &str, span: Span) -> Option<FormKind> {
        let digits = token.trim_start_matches(['+', '-']);
        let is_int = digits.bytes().all(|b| b.is_ascii_digit());
        if is_int {
            if let Ok(n) = token.parse::<i64>() {
                return Some(FormKind::Int(n));
            }
            return self.refuse(
                codes::E_READ_004,
                format!("integer `{token}` does not fit in 64 bits"),
                span,
                "write it as a float, like `1e19`",
            );
        }
        if is_float_syntax(digits) {
            if let Ok(x) = token.parse::<f64>() {
                return Some(FormKind::Float(x));
            }
        }
        self.refuse(
            codes::E_READ_004,
            format!("malformed number `{token}`"),
            span,
            "numbers look like `42`, `-3`, `0.5` or `1e-3`",
        )
    }
}

/// `digits.digits`, `digits.`, with an optional exponent `e[+-]digits`,
/// or `digits` with an exponent. No hex, ratios or suffixes.
fn is_float_syntax(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (whole, frac) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !frac.is_none_or(all_digits) {
        return false;
    }
    match exponent {
        None => frac.is_some(),
        Some(e) => {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && all_digits(e)
        }
    }
}

/// Whether `text` only lacks closing delimiters or a closing quote, so a
/// REPL should read another line before evaluating it.
pub fn is_incomplete(text: &str) -> bool {
    let read = read(diag::FileId(0), text);
    !read.diagnostics.is_empty()
        && read
            .diagnostics
            .iter()
            .all(|d| d.code == codes::E_READ_001 || d.code == codes::E_READ_005)
}

#[cfg(test)]
mod tests;
