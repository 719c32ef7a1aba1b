//! Parsing blocks, statements and expressions
//! (`docs/shapescript/functions.md`), with the precedence from loose to tight:
//! `or`, `and`, `not`, comparisons, `+ -`, `* /`, `@`, unary `-`, `**`,
//! `as`/`to`, postfix. Also call arguments, where `[...] -> [...]` is a
//! pattern (`docs/shapescript/patterns.md`). Recovers per statement.

use super::{join, starts_item, Opening, Parser, MAX_DEPTH};
use crate::ast::*;
use crate::codes;
use crate::lexer::TokenKind;
use diag::{Diagnostic, Span};

/// The comparison operators, one level of precedence.
const COMPARISONS: &[(TokenKind, BinaryOp)] = &[
    (TokenKind::EqEq, BinaryOp::Eq),
    (TokenKind::NotEq, BinaryOp::Ne),
    (TokenKind::Lt, BinaryOp::Lt),
    (TokenKind::Le, BinaryOp::Le),
    (TokenKind::Gt, BinaryOp::Gt),
    (TokenKind::Ge, BinaryOp::Ge),
];

impl Parser<'_> {
    /// `{ stmt (newline | ;) ... }`. Each statement gets its own diagnostic budget.
    pub(super) fn parse_block(&mut self) -> Block {
        let open = self.bump();
        let open_span = self.span_of(open);
        self.parse_block_body(Opening::Brace(open_span))
    }

    /// A block whose `{` is missing (already reported): from a `{` later on
    /// this line if there is one, else as if the `{` were here, so that its
    /// `}` still closes it and the statements after it stay where they belong.
    /// `owner` is where the construct with the body starts (`fn`, `if`, `for`):
    /// lines indented no deeper than it are not part of the body.
    pub(super) fn parse_block_after_missing_brace(&mut self, owner: Span) -> Block {
        if self.find_brace_on_line() {
            return self.parse_block();
        }
        let indent = self.indent_at(owner.start);
        self.parse_block_body(Opening::Missing { indent })
    }

    /// The statements of a block up to its `}`. Without a `{`, the first
    /// line's statements stay quiet and the block ends at a line indented no
    /// deeper than its owner (a `}` there is not its own when less indented).
    fn parse_block_body(&mut self, opening: Opening) -> Block {
        crate::depth::ensure_sufficient_stack(|| self.parse_block_body_here(opening))
    }

    fn parse_block_body_here(&mut self, opening: Opening) -> Block {
        let open = match opening {
            Opening::Brace(span) => Some(span),
            Opening::Missing { .. } => None,
        };
        let start = open.unwrap_or_else(|| {
            let here = self.here();
            Span::new(self.file, here.start, here.start)
        });
        if !self.enter() {
            return Block {
                stmts: Vec::new(),
                span: start,
            };
        }
        let outer_muted = self.muted;
        let outer_skip = std::mem::replace(&mut self.skip_newlines, 0);
        self.open_closers.push(TokenKind::RBrace);
        let mut stmts = Vec::new();
        let mut unclosed = false;
        loop {
            // After a missing `{`, or a `{` reached while the header was already
            // broken, the rest of the first line is likely debris: keep it quiet.
            let quiet = outer_muted || open.is_none();
            if !quiet || self.line_start_at(self.pos) {
                self.begin_statement();
            }
            self.skip_separators(false);
            let kind = self.kind();
            if let Opening::Missing { indent } = opening {
                if self.dedented_out_of(indent, kind) {
                    unclosed = true;
                    break;
                }
            }
            if kind == TokenKind::RBrace {
                self.bump();
                break;
            }
            // A declaration keyword (or a method's `fn`) cannot be inside a block: the `{` was left open.
            let declaration = starts_item(kind) || kind == TokenKind::KwFn;
            if kind == TokenKind::Eof || (declaration && self.line_start_at(self.pos)) {
                if let (Some(open_span), false) = (open, outer_muted) {
                    self.report_unclosed(open_span, TokenKind::RBrace);
                }
                unclosed = true;
                break;
            }
            let before = self.pos;
            stmts.push(self.parse_stmt());
            if self.at(TokenKind::KwElse) {
                // `if c { a else { b }`: the `}` before `else` is missing; let the `if` take the `else`.
                if let Some(open_span) = open {
                    self.report_unclosed(open_span, TokenKind::RBrace);
                }
                unclosed = true;
                break;
            }
            self.end_block_line(before, false);
        }
        self.open_closers.pop();
        self.skip_newlines = outer_skip;
        self.muted = outer_muted || unclosed;
        self.leave();
        Block {
            stmts,
            span: self.since(start),
        }
    }

    /// Whether a block whose `{` is missing ends at the current token: a
    /// line indented no deeper than the header's `indent` (a `}` there may
    /// still close it at the same indentation).
    fn dedented_out_of(&mut self, indent: usize, kind: TokenKind) -> bool {
        let line_start = self.line_start_at(self.pos);
        let token_start = self.current().start;
        let here = self.indent_at(token_start);
        let outside = if kind == TokenKind::RBrace {
            here < indent
        } else {
            here <= indent
        };
        line_start && outside
    }

    fn parse_stmt(&mut self) -> Stmt {
        let start = self.here();
        let kind = match self.kind() {
            TokenKind::KwLet => self.parse_let(),
            TokenKind::KwReturn => {
                self.bump();
                StmtKind::Return(self.parse_expr())
            }
            TokenKind::KwIf => self.parse_if(),
            TokenKind::KwFor => {
                self.bump();
                let var = self.expect_name("a loop variable");
                self.expect(TokenKind::KwIn);
                let iter = self.parse_expr();
                let body = self.parse_required_block(start);
                StmtKind::For { var, iter, body }
            }
            TokenKind::Ident if self.nth_kind(1) == TokenKind::Eq => {
                let token = self.bump();
                let name = self.ident(token);
                self.bump();
                StmtKind::Assign {
                    name,
                    value: self.parse_expr(),
                }
            }
            _ => StmtKind::Expr(self.parse_expr()),
        };
        Stmt {
            kind,
            span: self.since(start),
        }
    }

    fn parse_let(&mut self) -> StmtKind {
        self.bump();
        if self.at(TokenKind::LParen) {
            let (names, _) = self.delimited(TokenKind::RParen, |p| {
                let mut names = Vec::new();
                while let Some(name) = p.expect_ident("a name") {
                    names.push(name);
                    if !p.eat(TokenKind::Comma) || p.at(TokenKind::RParen) {
                        break;
                    }
                }
                names
            });
            self.expect(TokenKind::Eq);
            return StmtKind::LetTuple {
                names,
                value: self.parse_expr(),
            };
        }
        let name = self.expect_name("a name");
        let ty = if self.eat(TokenKind::Colon) {
            Some(self.parse_type())
        } else {
            None
        };
        self.expect(TokenKind::Eq);
        StmtKind::Let {
            name,
            ty,
            value: self.parse_expr(),
        }
    }

    fn parse_if(&mut self) -> StmtKind {
        let owner = self.here();
        self.bump();
        let cond = self.parse_expr();
        let then_block = self.parse_required_block(owner);
        // `else` may start the next line: `}` then a line break then `else {`.
        self.skip_newlines_before(TokenKind::KwElse);
        if !self.eat(TokenKind::KwElse) {
            return StmtKind::If {
                cond,
                then_block,
                else_block: None,
            };
        }
        let else_block = if self.at(TokenKind::KwIf) {
            let start = self.here();
            let kind = self.parse_if();
            let span = self.since(start);
            Block {
                stmts: vec![Stmt { kind, span }],
                span,
            }
        } else {
            self.parse_required_block(owner)
        };
        StmtKind::If {
            cond,
            then_block,
            else_block: Some(else_block),
        }
    }

    /// The `{ ... }` of an `if`, `else` or `for` starting at `owner`.
    fn parse_required_block(&mut self, owner: Span) -> Block {
        self.skip_newlines_before(TokenKind::LBrace);
        if self.at(TokenKind::LBrace) {
            return self.parse_block();
        }
        self.error_expected("`{`");
        self.parse_block_after_missing_brace(owner)
    }

    // ------------------------------------------------------------ expressions

    /// An expression, bounded in depth as a whole when it is the outermost one.
    pub(super) fn parse_expr(&mut self) -> Expr {
        if self.at_lone_atom() {
            return self.parse_primary();
        }
        self.bounded(Self::parse_expr_unbounded)
    }

    /// `parse_expr` past its one-atom shortcut.
    fn parse_expr_unbounded(&mut self) -> Expr {
        if !self.enter() {
            return self.error_expr();
        }
        // Brackets nest 64 deep, each level several frames of this descent.
        let expr = crate::depth::ensure_sufficient_stack(|| self.parse_or());
        self.leave();
        expr
    }

    /// Whether the expression here is one literal or name that no operator,
    /// call, index, field or cast continues (`1`, `x` before `,` `)` or the
    /// end of the line): then it is exactly `parse_primary`'s, and the ten
    /// precedence levels, each looking for its operator, can be skipped.
    fn at_lone_atom(&mut self) -> bool {
        let token = self.current();
        if !matches!(
            token.kind,
            TokenKind::Ident
                | TokenKind::Int
                | TokenKind::Float
                | TokenKind::Str
                | TokenKind::KwTrue
                | TokenKind::KwFalse
                | TokenKind::KwNone
        ) || self.depth >= MAX_DEPTH
        {
            return false;
        }
        let next = self.token_at(self.pos + 1).kind;
        // Inside brackets a line break is skipped, and what follows it may continue.
        if next == TokenKind::Newline {
            return self.skip_newlines == 0;
        }
        !matches!(
            next,
            TokenKind::LParen
                | TokenKind::LBracket
                | TokenKind::Dot
                | TokenKind::KwAs
                | TokenKind::KwTo
                | TokenKind::StarStar
                | TokenKind::At
                | TokenKind::Star
                | TokenKind::Slash
                | TokenKind::Plus
                | TokenKind::Minus
                | TokenKind::EqEq
                | TokenKind::NotEq
                | TokenKind::Lt
                | TokenKind::Le
                | TokenKind::Gt
                | TokenKind::Ge
                | TokenKind::KwAnd
                | TokenKind::KwOr
        )
    }

    fn error_expr(&mut self) -> Expr {
        let here = self.here();
        Expr::error(Span::new(self.file, here.start, here.start))
    }

    fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        let span = join(lhs.span, rhs.span);
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        }
    }

    fn parse_or(&mut self) -> Expr {
        self.parse_left_assoc(Self::parse_and, &[(TokenKind::KwOr, BinaryOp::Or)])
    }

    fn parse_and(&mut self) -> Expr {
        self.parse_left_assoc(Self::parse_not, &[(TokenKind::KwAnd, BinaryOp::And)])
    }

    /// One level of left-associative operators: operands parsed by
    /// `operand`, joined by the operators whose tokens `ops` lists.
    fn parse_left_assoc(
        &mut self,
        operand: fn(&mut Self) -> Expr,
        ops: &[(TokenKind, BinaryOp)],
    ) -> Expr {
        let mut lhs = operand(self);
        while let Some(&(_, op)) = ops.iter().find(|(token, _)| *token == self.kind()) {
            self.bump();
            let rhs = operand(self);
            lhs = Self::binary(op, lhs, rhs);
        }
        lhs
    }

    fn parse_not(&mut self) -> Expr {
        if self.at(TokenKind::KwNot) {
            return self.parse_prefix(UnaryOp::Not, Self::parse_not);
        }
        self.parse_comparison()
    }

    /// A prefix operator, the current token, and its operand, parsed by
    /// `operand` one level deeper.
    fn parse_prefix(&mut self, op: UnaryOp, operand: fn(&mut Self) -> Expr) -> Expr {
        let token = self.bump();
        if !self.enter() {
            return self.error_expr();
        }
        let operand = operand(self);
        self.leave();
        let span = join(self.span_of(token), operand.span);
        Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            span,
        }
    }

    fn parse_comparison(&mut self) -> Expr {
        self.parse_left_assoc(Self::parse_additive, COMPARISONS)
    }

    fn parse_additive(&mut self) -> Expr {
        let ops = [
            (TokenKind::Plus, BinaryOp::Add),
            (TokenKind::Minus, BinaryOp::Sub),
        ];
        self.parse_left_assoc(Self::parse_multiplicative, &ops)
    }

    fn parse_multiplicative(&mut self) -> Expr {
        let ops = [
            (TokenKind::Star, BinaryOp::Mul),
            (TokenKind::Slash, BinaryOp::Div),
        ];
        self.parse_left_assoc(Self::parse_matmul, &ops)
    }

    fn parse_matmul(&mut self) -> Expr {
        self.parse_left_assoc(Self::parse_unary, &[(TokenKind::At, BinaryOp::MatMul)])
    }

    fn parse_unary(&mut self) -> Expr {
        if self.at(TokenKind::Plus) {
            // Unary plus changes nothing: `+x` is `x`.
            self.bump();
            if !self.enter() {
                return self.error_expr();
            }
            let operand = self.parse_unary();
            self.leave();
            return operand;
        }
        if self.at(TokenKind::Minus) {
            return self.parse_prefix(UnaryOp::Neg, Self::parse_unary);
        }
        self.parse_power()
    }

    /// `a ** b` is right-associative and its exponent may be negated: `2 ** -x`.
    fn parse_power(&mut self) -> Expr {
        let base = self.parse_cast();
        if self.eat(TokenKind::StarStar) {
            if !self.enter() {
                return self.error_expr();
            }
            let exponent = self.parse_unary();
            self.leave();
            return Self::binary(BinaryOp::Pow, base, exponent);
        }
        base
    }

    fn parse_cast(&mut self) -> Expr {
        let mut expr = self.parse_postfix();
        loop {
            let kind = match self.kind() {
                TokenKind::KwAs => CastKind::As,
                TokenKind::KwTo => CastKind::To,
                _ => return expr,
            };
            self.bump();
            let ty = self.parse_type();
            let span = join(expr.span, ty.span);
            expr = Expr {
                kind: ExprKind::Cast {
                    kind,
                    expr: Box::new(expr),
                    ty: Box::new(ty),
                },
                span,
            };
        }
    }

    /// A call `(args)` or an index `[indices]` after `expr`, up to `close`:
    /// `kind` reads what is inside and builds the expression around `expr`.
    fn parse_bracketed_postfix(
        &mut self,
        expr: Expr,
        close: TokenKind,
        kind: impl FnOnce(&mut Self, Box<Expr>) -> ExprKind,
    ) -> Expr {
        let start = expr.span.start;
        let end = expr.span.end;
        let (kind, close_at) = self.delimited(close, |p| kind(p, Box::new(expr)));
        Expr {
            kind,
            span: Span::new(self.file, start, close_at.max(end)),
        }
    }

    fn parse_postfix(&mut self) -> Expr {
        let mut expr = self.parse_primary();
        if expr.kind == ExprKind::Error {
            return expr;
        }
        loop {
            match self.kind() {
                TokenKind::LParen => {
                    expr = self.parse_bracketed_postfix(expr, TokenKind::RParen, |p, callee| {
                        ExprKind::Call {
                            callee,
                            args: p.parse_args(),
                        }
                    });
                }
                TokenKind::LBracket => {
                    expr = self.parse_bracketed_postfix(expr, TokenKind::RBracket, |p, base| {
                        ExprKind::Index {
                            base,
                            indices: p.parse_indices(),
                        }
                    });
                }
                TokenKind::Dot => {
                    self.bump();
                    let Some(name) = self.expect_ident("a field name") else {
                        return expr;
                    };
                    let span = join(expr.span, name.span);
                    expr = Expr {
                        kind: ExprKind::Field {
                            base: Box::new(expr),
                            name,
                        },
                        span,
                    };
                }
                _ => return expr,
            }
        }
    }

    fn parse_primary(&mut self) -> Expr {
        let token = self.current();
        let span = self.span_of(token);
        let kind = match token.kind {
            TokenKind::Int => self.int_value(token).map_or(ExprKind::Error, ExprKind::Int),
            TokenKind::Float => ExprKind::Float(self.text_of(token).parse().unwrap_or(f64::NAN)),
            TokenKind::Str => ExprKind::Str(super::items::unescape(self.text_of(token))),
            TokenKind::KwTrue => ExprKind::Bool(true),
            TokenKind::KwFalse => ExprKind::Bool(false),
            TokenKind::KwNone => ExprKind::None,
            TokenKind::Ident => ExprKind::Name(self.ident(token)),
            TokenKind::LParen => return self.parse_paren(),
            TokenKind::Error => {
                self.muted = true;
                ExprKind::Error
            }
            _ => {
                self.error_expected("an expression");
                return self.error_expr();
            }
        };
        // `token` is current and not the end of the file.
        self.pos += 1;
        Expr { kind, span }
    }

    /// `(e)`, a tuple `(a, b)`, or an axis group `(n D)`.
    fn parse_paren(&mut self) -> Expr {
        let start = self.here();
        let ((kind, inner), end) = self.delimited(TokenKind::RParen, |p| {
            if p.at(TokenKind::RParen) {
                p.error_expected("an expression");
                return (ExprKind::Error, None);
            }
            let first = p.parse_expr();
            if let ExprKind::Name(first_name) = &first.kind {
                if p.at(TokenKind::Ident) {
                    let mut names = vec![*first_name];
                    while p.at(TokenKind::Ident) {
                        let token = p.bump();
                        names.push(p.ident(token));
                    }
                    return (ExprKind::AxisGroup(names), None);
                }
            }
            if !p.at(TokenKind::Comma) {
                return (ExprKind::Error, Some(first));
            }
            let mut items = vec![first];
            while p.eat(TokenKind::Comma) {
                if p.at(TokenKind::RParen) {
                    break;
                }
                items.push(p.parse_expr());
            }
            (ExprKind::Tuple(items), None)
        });
        let span = Span::new(self.file, start.start, end.max(start.start));
        match inner {
            // Parentheses only group: keep the inner node, widened to cover them.
            Some(mut expr) => {
                expr.span = span;
                expr
            }
            None => Expr { kind, span },
        }
    }

    /// Call arguments up to `)`: positional, `key=value`, patterns and shapes.
    fn parse_args(&mut self) -> Vec<Arg> {
        let mut args = Vec::new();
        loop {
            if matches!(self.kind(), TokenKind::RParen | TokenKind::Eof) {
                break;
            }
            if self.at(TokenKind::LBracket) {
                self.parse_bracket_args(&mut args, None);
            } else if self.kind().is_keyword() && self.nth_kind(1) == TokenKind::Eq {
                // `dim=1`: a keyword cannot name an argument (seed: pass it by position).
                let token = self.bump();
                let word = self.text_of(token);
                self.report(
                    Diagnostic::error(
                        codes::EXPECTED,
                        format!("expected an argument name, found keyword `{word}`"),
                    )
                    .with_primary(self.span_of(token), "a keyword")
                    .with_help(format!(
                        "`{word}` is a keyword: pass this argument by position"
                    )),
                );
                self.bump();
                let value = self.parse_expr();
                let span = join(self.span_of(token), value.span);
                args.push(Arg {
                    name: None,
                    value,
                    span,
                });
            } else if self.at(TokenKind::Ident) && self.nth_kind(1) == TokenKind::Eq {
                let token = self.bump();
                let name = self.ident(token);
                self.bump();
                if self.at(TokenKind::LBracket) {
                    self.parse_bracket_args(&mut args, Some(name));
                } else {
                    let value = self.parse_expr();
                    let span = join(name.span, value.span);
                    args.push(Arg {
                        name: Some(name),
                        value,
                        span,
                    });
                }
            } else {
                let value = self.parse_expr();
                let span = value.span;
                args.push(Arg {
                    name: None,
                    value,
                    span,
                });
            }
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        args
    }

    /// `[a], [b] -> [c]` is one pattern argument; `[n D]` without `->` is a
    /// shape argument (several when separated by commas). A named argument
    /// takes one bracket list.
    fn parse_bracket_args(&mut self, args: &mut Vec<Arg>, name: Option<Ident>) {
        let mut shapes = vec![self.parse_shape_list()];
        while name.is_none() && self.at(TokenKind::Comma) && self.nth_kind(1) == TokenKind::LBracket
        {
            self.bump();
            shapes.push(self.parse_shape_list());
        }
        let start = name.as_ref().map_or(shapes[0].span, |n| n.span);
        if self.eat(TokenKind::Arrow) {
            let rhs = if self.at(TokenKind::LBracket) {
                self.parse_shape_list()
            } else {
                self.error_expected("`[` to start the right side of the pattern");
                let here = self.here();
                ShapeList {
                    axes: Vec::new(),
                    span: Span::new(self.file, here.start, here.start),
                }
            };
            let pattern_span = join(shapes[0].span, rhs.span);
            let value = Expr {
                kind: ExprKind::Pattern(Box::new(Pattern {
                    lhs: shapes,
                    rhs,
                    span: pattern_span,
                })),
                span: pattern_span,
            };
            args.push(Arg {
                name,
                span: join(start, pattern_span),
                value,
            });
            return;
        }
        let mut name = name;
        for shape in shapes {
            let span = shape.span;
            let arg_name = name.take();
            let arg_span = arg_name.as_ref().map_or(span, |n| join(n.span, span));
            args.push(Arg {
                name: arg_name,
                value: Expr {
                    kind: ExprKind::Shape(shape),
                    span,
                },
                span: arg_span,
            });
        }
    }

    /// Index entries up to `]`: expressions and slices `a:b:c`.
    fn parse_indices(&mut self) -> Vec<IndexArg> {
        let mut indices = Vec::new();
        loop {
            if matches!(self.kind(), TokenKind::RBracket | TokenKind::Eof) {
                break;
            }
            let start = self.here();
            if self.at(TokenKind::Ellipsis) {
                self.bump();
                indices.push(IndexArg::Ellipsis(start));
                if !self.eat(TokenKind::Comma) {
                    break;
                }
                continue;
            }
            if self.at(TokenKind::LBracket) {
                let (items, end) = self.delimited(TokenKind::RBracket, Self::parse_index_list);
                let span = Span::new(self.file, start.start, end.max(start.start));
                indices.push(IndexArg::List { items, span });
                if !self.eat(TokenKind::Comma) {
                    break;
                }
                continue;
            }
            let first = if self.at(TokenKind::Colon) {
                None
            } else {
                Some(self.parse_expr())
            };
            if self.eat(TokenKind::Colon) {
                let end = self.parse_slice_bound();
                let step = if self.eat(TokenKind::Colon) {
                    self.parse_slice_bound()
                } else {
                    None
                };
                let span = self.since(start);
                indices.push(IndexArg::Slice {
                    start: first.map(Box::new),
                    end,
                    step,
                    span,
                });
            } else if let Some(expr) = first {
                indices.push(IndexArg::Expr(expr));
            }
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        indices
    }

    /// The items of a list index `[0, 2]` up to `]`.
    fn parse_index_list(&mut self) -> Vec<Expr> {
        let mut items = Vec::new();
        while !matches!(self.kind(), TokenKind::RBracket | TokenKind::Eof) {
            items.push(self.parse_expr());
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        items
    }

    fn parse_slice_bound(&mut self) -> Option<Box<Expr>> {
        match self.kind() {
            TokenKind::Colon | TokenKind::Comma | TokenKind::RBracket => None,
            _ => Some(Box::new(self.parse_expr())),
        }
    }
}
