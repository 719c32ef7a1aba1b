//! Parsing types (`docs/shapescript/signatures.md`), shapes `[...]`, axes and size expressions.
//! Inside `[...]` axes are juxtaposed and an axis continues across binary
//! operators, so `[b (H + 2*P - kh)/S + 1]` has two axes. Never decides what
//! a name means: dims, axes and aliases all parse as names.

use super::{join, Parser, MAX_DEPTH};
use crate::ast::*;
use crate::codes;
use crate::lexer::{Token, TokenKind};
use diag::{Diagnostic, Span};

/// An axis while it is being parsed: a size can take part in arithmetic, the rest cannot.
enum AxisPart {
    Size(SizeExpr),
    Other(Axis),
}

impl AxisPart {
    fn into_axis(self) -> Axis {
        match self {
            AxisPart::Size(size) => {
                let span = size.span;
                Axis {
                    kind: AxisKind::Size(size),
                    span,
                }
            }
            AxisPart::Other(axis) => axis,
        }
    }

    fn span(&self) -> Span {
        match self {
            AxisPart::Size(size) => size.span,
            AxisPart::Other(axis) => axis.span,
        }
    }
}

/// The ShapeScript dtype for a PyTorch or NumPy dtype name, to say what to write instead.
fn foreign_dtype(name: &str) -> Option<DtypeKind> {
    Some(match name {
        "float32" | "float" => DtypeKind::F32,
        "float64" | "double" => DtypeKind::F64,
        "float16" | "half" => DtypeKind::F16,
        "bfloat16" => DtypeKind::Bf16,
        "int64" | "long" => DtypeKind::I64,
        "int32" | "int" => DtypeKind::I32,
        _ => return None,
    })
}

/// A token that ends an axis's arithmetic, for a missing operand.
fn stop_token(at: Token) -> Token {
    Token {
        kind: TokenKind::Eof,
        ..at
    }
}

fn starts_axis(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Ident
            | TokenKind::Int
            | TokenKind::Grouped
            | TokenKind::Unknown
            | TokenKind::Ellipsis
            | TokenKind::LParen
    )
}

impl Parser<'_> {
    /// A type, bounded in depth as a whole when it is the outermost one.
    pub(super) fn parse_type(&mut self) -> Type {
        self.bounded(Self::parse_type_unbounded)
    }

    /// `parse_type` without the depth bound.
    fn parse_type_unbounded(&mut self) -> Type {
        if !self.enter() {
            let here = self.here();
            return Type::error(here);
        }
        let ty = crate::depth::ensure_sufficient_stack(|| self.parse_type_inner());
        self.leave();
        ty
    }

    fn parse_type_inner(&mut self) -> Type {
        let token = self.current();
        let start = self.span_of(token);
        match token.kind {
            TokenKind::LBracket => {
                let shape = self.parse_shape_list_from(token);
                if !self.at(TokenKind::Ident) {
                    // No stack, domain or dtype follows (the common case):
                    // what `tensor_suffix` would make, without its lookups.
                    return Type {
                        kind: TypeKind::Tensor {
                            shape: Some(Shape::List(shape)),
                            domain: None,
                            dtype: None,
                        },
                        span: self.since(start),
                    };
                }
                let foreign = {
                    let token = self.current();
                    token.kind == TokenKind::Ident && foreign_dtype(self.text_of(token)).is_some()
                };
                if self.at(TokenKind::Ident)
                    && !self.at_domain_or_dtype()
                    && !foreign
                    && shape.axes.len() == 1
                {
                    if let AxisKind::Size(count) = &shape.axes[0].kind {
                        let count = Box::new(count.clone());
                        let elem = self.parse_type();
                        let kind = TypeKind::Stack {
                            count,
                            elem: Box::new(elem),
                        };
                        return Type {
                            kind,
                            span: self.since(start),
                        };
                    }
                }
                self.tensor_suffix(Some(Shape::List(shape)), start)
            }
            TokenKind::LParen => {
                let (types, _) = self.delimited(TokenKind::RParen, |p| {
                    let mut types = Vec::new();
                    let mut trailing_comma = false;
                    while !matches!(p.kind(), TokenKind::RParen | TokenKind::Eof) {
                        types.push(p.parse_type());
                        trailing_comma = p.eat(TokenKind::Comma);
                        if !trailing_comma {
                            break;
                        }
                    }
                    if types.is_empty() {
                        p.error_expected("a type");
                    }
                    (types, trailing_comma)
                });
                let span = self.since(start);
                let (mut list, trailing_comma) = types;
                // `(T)` is just `T`; `(T,)` and `(T, U)` are tuples.
                if !trailing_comma && list.len() == 1 {
                    if let Some(mut only) = list.pop() {
                        only.span = span;
                        return only;
                    }
                }
                Type {
                    kind: TypeKind::Tuple(list),
                    span,
                }
            }
            TokenKind::Ident => self.parse_named_type(token, start),
            _ => {
                self.error_expected("a type");
                Type::error(Span::new(self.file, start.start, start.start))
            }
        }
    }

    /// A type starting with a name: a domain, dtype, scalar, `Axis[n]`,
    /// `Axes[n]`, `Size[S]`, an alias with a domain or dtype, or a model/record/alias name.
    fn parse_named_type(&mut self, token: Token, start: Span) -> Type {
        let text = self.text_of(token);
        match text {
            "Bool" if !self.nth_is_dtype(1) => {
                self.bump();
                let kind = TypeKind::Scalar(Scalar {
                    kind: ScalarKind::Bool,
                    span: start,
                });
                return Type { kind, span: start };
            }
            "Int" | "Float" => {
                self.bump();
                let kind = if text == "Int" {
                    ScalarKind::Int
                } else {
                    ScalarKind::Float
                };
                return Type {
                    kind: TypeKind::Scalar(Scalar { kind, span: start }),
                    span: start,
                };
            }
            "Axis" | "Axes" | "Size" if self.nth_kind(1) == TokenKind::LBracket => {
                self.bump();
                let size = self.parse_bracketed_size();
                let size = Box::new(size);
                let kind = match text {
                    "Axis" => TypeKind::Axis(size),
                    "Axes" => TypeKind::Axes(size),
                    _ => TypeKind::Size(size),
                };
                return Type {
                    kind,
                    span: self.since(start),
                };
            }
            _ => {}
        }
        if self.at_domain_or_dtype() {
            return self.tensor_suffix(None, start);
        }
        if foreign_dtype(text).is_some() {
            let dtype = self.foreign_dtype_here();
            return Type {
                kind: TypeKind::Tensor {
                    shape: None,
                    domain: None,
                    dtype,
                },
                span: self.since(start),
            };
        }
        let first = self.bump();
        let path = Box::new(self.path_from(first));
        if self.at(TokenKind::LParen) {
            let (args, _) = self.delimited(TokenKind::RParen, |p| {
                let mut args = Vec::new();
                while !matches!(p.kind(), TokenKind::RParen | TokenKind::Eof) {
                    args.push(p.parse_size("a size"));
                    if !p.eat(TokenKind::Comma) {
                        break;
                    }
                }
                args
            });
            return Type {
                kind: TypeKind::Named { path, args },
                span: self.since(start),
            };
        }
        if self.at_domain_or_dtype() {
            return self.tensor_suffix(Some(Shape::Alias(path)), start);
        }
        let span = path.span;
        Type {
            kind: TypeKind::Named {
                path,
                args: Vec::new(),
            },
            span,
        }
    }

    fn nth_is_dtype(&mut self, n: usize) -> bool {
        if self.nth_kind(n) != TokenKind::Ident {
            return false;
        }
        let mut i = self.pos;
        let mut left = n;
        while left > 0 {
            i += 1;
            if self.skip_newlines == 0 || self.token_at(i).kind != TokenKind::Newline {
                left -= 1;
            }
        }
        DtypeKind::from_name(self.text_of(self.token_at(i))).is_some()
    }

    /// Whether the current token starts a domain (`Unit`, `Index[N]`) or is a dtype.
    fn at_domain_or_dtype(&mut self) -> bool {
        if !self.at(TokenKind::Ident) {
            return false;
        }
        let token = self.current();
        let text = self.text_of(token);
        DomainKind::from_name(text).is_some()
            || DtypeKind::from_name(text).is_some()
            || (text == "Index" && self.nth_kind(1) == TokenKind::LBracket)
    }

    /// The optional domain and dtype after a shape (or on their own).
    fn tensor_suffix(&mut self, shape: Option<Shape>, start: Span) -> Type {
        let mut domain = None;
        if self.at(TokenKind::Ident) {
            let token = self.current();
            let text = self.text_of(token);
            let span = self.span_of(token);
            if let Some(kind) = DomainKind::from_name(text) {
                self.bump();
                domain = Some(Domain { kind, span });
            } else if text == "Index" && self.nth_kind(1) == TokenKind::LBracket {
                self.bump();
                let size = self.parse_bracketed_size();
                domain = Some(Domain {
                    kind: DomainKind::Index(Box::new(size)),
                    span: self.since(span),
                });
            }
        }
        let mut dtype = None;
        if self.at(TokenKind::Ident) {
            let token = self.current();
            if let Some(kind) = DtypeKind::from_name(self.text_of(token)) {
                self.bump();
                dtype = Some(Dtype {
                    kind,
                    span: self.span_of(token),
                });
            } else if let Some(kind) = self.foreign_dtype_here() {
                dtype = Some(kind);
            }
        }
        let span = self.since(start);
        Type {
            kind: TypeKind::Tensor {
                shape,
                domain: domain.map(Box::new),
                dtype,
            },
            span,
        }
    }

    /// A PyTorch or NumPy dtype name here (`float32`): reported (E0103),
    /// consumed, and read as the dtype it stands for.
    fn foreign_dtype_here(&mut self) -> Option<Dtype> {
        let token = self.current();
        if token.kind != TokenKind::Ident {
            return None;
        }
        let written = self.text_of(token);
        let kind = foreign_dtype(written)?;
        let span = self.span_of(token);
        self.report(
            Diagnostic::error(
                codes::EXPECTED,
                format!("expected a dtype, found `{written}`"),
            )
            .with_primary(span, format!("write `{}`", kind.as_str()))
            .with_help("the dtypes are `f64 f32 f16 bf16 i64 i32 bool`"),
        );
        self.bump();
        Some(Dtype { kind, span })
    }

    /// `[size]` after `Index`, `Axis`, `Axes` or `Size`.
    fn parse_bracketed_size(&mut self) -> SizeExpr {
        self.delimited(TokenKind::RBracket, |p| p.parse_size("a size"))
            .0
    }

    /// `[axis axis ...]`, brackets included.
    pub(super) fn parse_shape_list(&mut self) -> ShapeList {
        let open = self.current();
        self.parse_shape_list_from(open)
    }

    /// `parse_shape_list` when the caller holds the current token `open`.
    pub(super) fn parse_shape_list_from(&mut self, open: Token) -> ShapeList {
        let start = open.start;
        let (axes, end) = self.delimited_from(open, TokenKind::RBracket, &[], |p| {
            p.parse_axes(TokenKind::RBracket)
        });
        ShapeList {
            axes,
            span: Span::new(self.file, start, end.max(start)),
        }
    }

    /// Juxtaposed axes up to (not including) `close`.
    fn parse_axes(&mut self, close: TokenKind) -> Vec<Axis> {
        // Most lists have one to four axes: allocating for four up front
        // skips the vector's general growth path on the first push.
        let mut token = self.current();
        let mut axes = if starts_axis(token.kind) {
            Vec::with_capacity(4)
        } else {
            Vec::new()
        };
        loop {
            let kind = token.kind;
            if kind == TokenKind::Comma {
                // NumPy's `(b, n)` habit: report once, then read on as if it were a space.
                let span = self.here();
                self.report(
                    Diagnostic::error(
                        codes::EXPECTED,
                        format!("expected an axis or {}, found `,`", close.describe()),
                    )
                    .with_primary(span, "axes are not separated by commas")
                    .with_help("separate axes with spaces, as in `[b n D]`"),
                );
                self.bump();
                token = self.current();
                continue;
            }
            if matches!(kind, TokenKind::Minus | TokenKind::Plus) {
                // A size that starts with a sign: only in parentheses, `(-1 + n)`.
                if close != TokenKind::RParen {
                    self.signed_size_error(token, token);
                }
                axes.push(self.parse_axis(token, true).into_axis());
                token = self.current();
                continue;
            }
            if kind == close || !starts_axis(kind) {
                // A wrong closer or the end is reported as an unclosed delimiter by `delimited`.
                let closer = matches!(
                    kind,
                    TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace
                );
                if kind != close && !closer && kind != TokenKind::Eof {
                    self.error_expected(&format!("an axis or {}", close.describe()));
                }
                break;
            }
            let axis = match self.simple_axis(token) {
                Some(size) => {
                    let span = size.span;
                    Axis {
                        kind: AxisKind::Size(size),
                        span,
                    }
                }
                None => self.parse_axis(token, true).into_axis(),
            };
            axes.push(axis);
            token = self.current();
        }
        axes
    }

    /// The most common axis, a lone name or number (`b`, `768`) with no
    /// operator or `.` after it, read without the descent through
    /// `parse_axis`; the same tree, spans and diagnostics. `None` for any
    /// other axis (then nothing is consumed). `token` is the current one.
    #[inline]
    fn simple_axis(&mut self, token: Token) -> Option<SizeExpr> {
        if !matches!(token.kind, TokenKind::Ident | TokenKind::Int) || self.depth >= MAX_DEPTH {
            return None;
        }
        // A line break next would need skipping: leave that to the general path.
        let next = self.token_at(self.pos + 1).kind;
        if matches!(
            next,
            TokenKind::Plus
                | TokenKind::Minus
                | TokenKind::Star
                | TokenKind::StarStar
                | TokenKind::Slash
                | TokenKind::Dot
                | TokenKind::Newline
        ) {
            return None;
        }
        self.pos += 1;
        let span = self.span_of(token);
        let kind = if token.kind == TokenKind::Int {
            self.int_value(token)
                .map_or(SizeExprKind::Error, |v| SizeExprKind::Int(U128::new(v)))
        } else {
            SizeExprKind::Name(self.ident(token))
        };
        Some(SizeExpr { kind, span })
    }

    /// One size that must not be a group, `...` or grouped size (dim values, `Index[N]`, model arguments).
    pub(super) fn parse_size(&mut self, what: &str) -> SizeExpr {
        self.bounded(|p| p.parse_size_unbounded(what))
    }

    /// `parse_size` without the depth bound.
    fn parse_size_unbounded(&mut self, what: &str) -> SizeExpr {
        let token = self.current();
        // A lone size may start with a sign (`dim Z = -1 + N`): nothing to
        // mistake it for, unlike in a shape.
        let signed = matches!(token.kind, TokenKind::Minus | TokenKind::Plus);
        if !starts_axis(token.kind) && !signed {
            self.error_expected(what);
            let here = self.here();
            return SizeExpr::error(Span::new(self.file, here.start, here.start));
        }
        match self.parse_axis(token, false) {
            AxisPart::Size(size) => size,
            AxisPart::Other(axis) => {
                self.report(
                    Diagnostic::error(
                        codes::EXPECTED,
                        format!("expected {what}, found {}", describe_axis(&axis)),
                    )
                    .with_primary(axis.span, format!("expected {what}")),
                );
                SizeExpr::error(axis.span)
            }
        }
    }

    /// An axis: terms joined by `+ -`, stopping at juxtaposition. `first`
    /// is the current token (callers have looked at it already).
    /// `juxtaposed`: among other axes, where `3 -1` is ambiguous (E0109).
    fn parse_axis(&mut self, first: Token, juxtaposed: bool) -> AxisPart {
        if !self.enter() {
            let here = self.here();
            self.bump();
            return AxisPart::Size(SizeExpr::error(here));
        }
        let (mut lhs, mut op_token) = if matches!(first.kind, TokenKind::Minus | TokenKind::Plus) {
            self.signed_product(first)
        } else {
            self.parse_axis_product(first)
        };
        loop {
            let op = match op_token.kind {
                TokenKind::Plus => SizeOp::Add,
                TokenKind::Minus => SizeOp::Sub,
                _ => break,
            };
            let before = self.token_at(self.pos.saturating_sub(1));
            self.pos += 1;
            let next = self.current();
            // `3 -1`: a space before the sign only reads as a new signed axis.
            if juxtaposed && before.end < op_token.start && op_token.end == next.start {
                self.signed_size_error(op_token, next);
            }
            let rhs;
            (rhs, op_token) = if starts_axis(next.kind) {
                self.parse_axis_product(next)
            } else {
                // Stop here: another operator next (`1 - - - 1`) would
                // otherwise grow the tree one level per operator.
                (self.missing_operand(op_token), stop_token(op_token))
            };
            lhs = self.size_binary(op, lhs, rhs);
        }
        self.leave();
        lhs
    }

    /// Factors joined by `* /`; `first` is the current token. Returns the
    /// product and the current token after it (the caller looks at it next).
    fn parse_axis_product(&mut self, first: Token) -> (AxisPart, Token) {
        let mut lhs = self.parse_axis_power(first);
        loop {
            let op_token = self.current();
            let op = match op_token.kind {
                TokenKind::Star => SizeOp::Mul,
                TokenKind::Slash => SizeOp::Div,
                _ => return (lhs, op_token),
            };
            self.pos += 1;
            let next = self.current();
            let rhs = if starts_axis(next.kind) {
                self.parse_axis_power(next)
            } else {
                self.missing_operand(op_token)
            };
            lhs = self.size_binary(op, lhs, rhs);
        }
    }

    /// E0103 for an operator (`op`) of a size that no size follows, and
    /// an error size at the operator in place of the missing operand.
    fn missing_operand(&mut self, op: Token) -> AxisPart {
        self.error_expected("a size");
        AxisPart::Size(SizeExpr::error(self.span_of(op)))
    }

    /// `-x` or `+x` at the start of a size: `x` is a product, and `-x` is
    /// `0 - x` with a `0` that covers no text (`print::is_negation`).
    fn signed_product(&mut self, sign: Token) -> (AxisPart, Token) {
        self.pos += 1;
        let next = self.current();
        let (operand, after) = if starts_axis(next.kind) {
            self.parse_axis_product(next)
        } else {
            (self.missing_operand(sign), stop_token(sign))
        };
        if sign.kind == TokenKind::Plus {
            return (operand, after);
        }
        let at = self.span_of(sign);
        let zero = AxisPart::Size(SizeExpr {
            kind: SizeExprKind::Int(U128::new(0)),
            span: Span::new(self.file, at.start, at.start),
        });
        let mut negated = self.size_binary(SizeOp::Sub, zero, operand);
        if let AxisPart::Size(size) = &mut negated {
            size.span = join(at, size.span);
        }
        (negated, after)
    }

    /// E0109 at a sign that starts a size outside parentheses (`from` to `to`).
    #[cold]
    fn signed_size_error(&mut self, from: Token, to: Token) {
        let span = Span::new(self.file, from.start, to.end.max(from.end));
        let sign = if from.kind == TokenKind::Plus {
            "+"
        } else {
            "-"
        };
        self.report(
            Diagnostic::error(
                codes::SIGNED_SIZE,
                format!("a size that starts with `{sign}` must be in parentheses"),
            )
            .with_primary(span, "is this a new axis, or part of the one before?")
            .with_help(format!(
                "write a new axis in parentheses, as `({sign}1 + n)`, or space both sides of a difference, as `3 {sign} 1`"
            )),
        );
    }

    /// An atom, or `atom ** exponent` (right-associative, tighter than `*`).
    fn parse_axis_power(&mut self, token: Token) -> AxisPart {
        let base = self.parse_axis_atom(token);
        let op_token = self.current();
        if op_token.kind != TokenKind::StarStar {
            return base;
        }
        self.pos += 1;
        let next = self.current();
        if !starts_axis(next.kind) || !self.enter() {
            if starts_axis(next.kind) {
                self.bump();
            } else {
                self.error_expected("a size");
            }
            return AxisPart::Size(SizeExpr::error(self.span_of(op_token)));
        }
        let exponent = self.parse_axis_power(next);
        self.leave();
        self.size_binary(SizeOp::Pow, base, exponent)
    }

    /// Joins two operands; a group, grouped size or `...` among them is E0107.
    fn size_binary(&mut self, op: SizeOp, lhs: AxisPart, rhs: AxisPart) -> AxisPart {
        let span = join(lhs.span(), rhs.span());
        // Unpacked one side at a time (the left one's culprit first): a
        // match on the pair moved both operands once more.
        let lhs = match lhs {
            AxisPart::Size(lhs) => lhs,
            AxisPart::Other(culprit) => return self.group_in_arithmetic(culprit, span),
        };
        let rhs = match rhs {
            AxisPart::Size(rhs) => rhs,
            AxisPart::Other(culprit) => return self.group_in_arithmetic(culprit, span),
        };
        let kind = SizeExprKind::Binary {
            op,
            operands: Box::new((lhs, rhs)),
        };
        AxisPart::Size(SizeExpr { kind, span })
    }

    /// E0107 on a group, grouped size or `...` inside arithmetic; the result is an error size.
    #[cold]
    fn group_in_arithmetic(&mut self, culprit: Axis, span: Span) -> AxisPart {
        let what = describe_axis(&culprit);
        self.report(
            Diagnostic::error(
                codes::GROUP_IN_ARITHMETIC,
                format!("{what} cannot be part of arithmetic"),
            )
            .with_primary(culprit.span, format!("{what} is a whole axis"))
            .with_help("write the size as a product, as `a*b` for the group `(a b)`"),
        );
        AxisPart::Size(SizeExpr::error(span))
    }

    /// A number, name, `?k`, grouped size, `...` or parenthesised axis;
    /// `token` is the current token.
    fn parse_axis_atom(&mut self, token: Token) -> AxisPart {
        let span = self.span_of(token);
        match token.kind {
            TokenKind::Int => {
                self.pos += 1;
                let kind = self
                    .int_value(token)
                    .map_or(SizeExprKind::Error, |v| SizeExprKind::Int(U128::new(v)));
                AxisPart::Size(SizeExpr { kind, span })
            }
            TokenKind::Grouped => self.grouped_axis(token, span),
            TokenKind::Unknown => {
                self.pos += 1;
                let name = Ident {
                    name: self.intern(token.start + 1, token.end),
                    span,
                };
                AxisPart::Size(SizeExpr {
                    kind: SizeExprKind::Unknown(name),
                    span,
                })
            }
            TokenKind::Ident => {
                self.pos += 1;
                // A plain name (no `.` next) needs no `Path` built first. A
                // line break next may hide a `.` after it: the general path.
                if !matches!(
                    self.token_at(self.pos).kind,
                    TokenKind::Dot | TokenKind::Newline
                ) {
                    let name = self.ident(token);
                    return AxisPart::Size(SizeExpr {
                        kind: SizeExprKind::Name(name),
                        span,
                    });
                }
                let path = self.path_from(token);
                let span = path.span;
                let kind = match path.file {
                    None => SizeExprKind::Name(path.name),
                    Some(_) => SizeExprKind::Qualified(Box::new(path)),
                };
                AxisPart::Size(SizeExpr { kind, span })
            }
            TokenKind::Ellipsis => {
                self.pos += 1;
                AxisPart::Other(Axis {
                    kind: AxisKind::Rest,
                    span,
                })
            }
            TokenKind::LParen => self.paren_axis(token, span),
            _ => {
                self.error_expected("an axis");
                AxisPart::Size(SizeExpr::error(span))
            }
        }
    }

    /// A grouped size token, `16gh`: the factor and the name.
    #[inline]
    fn grouped_axis(&mut self, token: Token, span: Span) -> AxisPart {
        self.pos += 1;
        let text = self.text_of(token);
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        // Too large (E0105): a factor of 1 keeps the name declared, and is
        // no size anything would report again.
        let factor = U128::new(self.parse_int_text(&text[..digits], span).unwrap_or(1));
        let name_span = Span::new(self.file, token.start + digits as u32, token.end);
        let name = Ident {
            name: self.intern(token.start + digits as u32, token.end),
            span: name_span,
        };
        AxisPart::Other(Axis {
            kind: AxisKind::Grouped { factor, name },
            span,
        })
    }

    /// A parenthesised axis: a group `(h d)` of two or more, or one axis in
    /// arithmetic parentheses; `token` is the `(`.
    fn paren_axis(&mut self, token: Token, span: Span) -> AxisPart {
        let (mut axes, end) = self.delimited_from(token, TokenKind::RParen, &[], |p| {
            p.parse_axes(TokenKind::RParen)
        });
        let span = Span::new(self.file, span.start, end.max(span.start));
        if axes.len() >= 2 {
            return AxisPart::Other(Axis {
                kind: AxisKind::Group(axes),
                span,
            });
        }
        // Parentheses around one axis are arithmetic grouping, not a group.
        match axes.pop() {
            None => {
                self.error_expected_at(span, "an axis inside `()`");
                AxisPart::Size(SizeExpr::error(span))
            }
            Some(Axis {
                kind: AxisKind::Size(mut size),
                ..
            }) => {
                size.span = span;
                AxisPart::Size(size)
            }
            Some(mut axis) => {
                axis.span = span;
                AxisPart::Other(axis)
            }
        }
    }

    fn error_expected_at(&mut self, span: Span, what: &str) {
        self.report(
            Diagnostic::error(codes::EXPECTED, format!("expected {what}, found `()`"))
                .with_primary(span, format!("expected {what}")),
        );
    }

    /// The value of an integer token; too large is E0105, and `None`: the
    /// caller puts an error node in its place, so nothing downstream sees a
    /// stand-in value (a size of 0) and reports it again.
    pub(super) fn int_value(&mut self, token: crate::lexer::Token) -> Option<u128> {
        let text = self.text_of(token);
        let span = self.span_of(token);
        self.parse_int_text(text, span)
    }

    #[inline]
    fn parse_int_text(&mut self, text: &str, span: Span) -> Option<u128> {
        // The lexer's integers (and a grouped size's factor) are all digits,
        // so they need no check here: up to 19 of them fit a `u64` without
        // overflow, far cheaper than the general `u128` parser.
        debug_assert!(text.bytes().all(|b| b.is_ascii_digit()));
        if !text.is_empty() && text.len() <= 19 {
            let value = text
                .bytes()
                .fold(0u64, |value, b| value * 10 + u64::from(b - b'0'));
            return Some(u128::from(value));
        }
        self.parse_long_int(text, span)
    }

    #[inline(never)]
    fn parse_long_int(&mut self, text: &str, span: Span) -> Option<u128> {
        let value = text.parse::<u128>().ok();
        if value.is_none() {
            self.report(
                Diagnostic::error(codes::NUMBER_TOO_LARGE, "integer literal too large")
                    .with_primary(span, "does not fit in 128 bits"),
            );
        }
        value
    }
}

fn describe_axis(axis: &Axis) -> &'static str {
    match axis.kind {
        AxisKind::Group(_) => "a group",
        AxisKind::Grouped { .. } => "a grouped size",
        AxisKind::Rest => "`...`",
        AxisKind::Size(_) => "a size",
    }
}
