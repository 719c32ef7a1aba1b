//! Which neighbouring tokens of a line get a space between them
//! (`docs/shapescript/formatting.md`, "Spaces"). Where a space can change
//! what is read (`b (c h)` among a shape's axes is two axes, `Index[N]`
//! one type; `[n -1]` is refused), the writer's choice is kept; everywhere
//! else the rule decides. Knows nothing of lines' lengths or indentation.

use super::source::Tok;
use crate::lexer::TokenKind::{self, *};

/// For each token of `tokens` (a whole file in order, `line_start[i]` when
/// token `i` begins a line), whether a space goes before it; never before
/// a line's first token.
pub fn spaces(tokens: &[Tok], line_start: &[bool]) -> Vec<bool> {
    let mut open: Vec<TokenKind> = Vec::new();
    let mut out = Vec::with_capacity(tokens.len());
    for i in 0..tokens.len() {
        let inside = open.last().copied();
        let space = !line_start[i] && {
            let after = tokens
                .get(i + 1)
                .filter(|_| !line_start.get(i + 1).copied().unwrap_or(true));
            // A line's first token inside a block starts a statement, unless
            // the line before ended with an operator: nothing comes before it.
            let starts_statement = line_start[i - 1]
                && !matches!(inside, Some(LParen | LBracket))
                && !(i >= 2 && tokens[i - 2].kind.continues_line());
            let gap = Gap {
                before2: i.checked_sub(3).map(|j| tokens[j].kind),
                before: i
                    .checked_sub(2)
                    .map(|j| tokens[j].kind)
                    .filter(|_| !starts_statement),
                left: tokens[i - 1],
                right: tokens[i],
                after: after.copied(),
                inside,
            };
            gap.spaced()
        };
        out.push(space);
        match tokens[i].kind {
            LParen | LBracket | LBrace => open.push(tokens[i].kind),
            RParen | RBracket | RBrace => {
                open.pop();
            }
            _ => {}
        }
    }
    out
}

/// The gap between `left` and `right`, two neighbours on one line.
struct Gap<'a> {
    /// The two tokens before `left` (on any line), nearest last.
    before2: Option<TokenKind>,
    before: Option<TokenKind>,
    left: Tok<'a>,
    right: Tok<'a>,
    /// The token after `right`, when it is on the same line.
    after: Option<Tok<'a>>,
    /// The innermost bracket open at the gap.
    inside: Option<TokenKind>,
}

impl Gap<'_> {
    fn spaced(&self) -> bool {
        let (left, right) = (self.left.kind, self.right.kind);
        let in_brackets = self.inside == Some(LBracket);
        match (left, right) {
            (_, Comma | Semi | RParen | RBracket | Dot) | (LParen | LBracket | Dot, _) => false,
            (_, LBrace | RBrace) | (LBrace | RBrace, _) => true,
            // Slices (`x[1:]`, `x[:, 0]`) keep the writer's spacing.
            (_, Colon) => in_brackets && self.right.spaced,
            (Colon, _) => !in_brackets || self.right.spaced,
            (Comma | Semi, _) => true,
            _ if is_sign(left, self.before) => false,
            // A call `f(x)`, but `b (c h)` among a shape's axes and `[b] Index[N]` as written.
            (_, LParen) if ends_operand(left) && !in_brackets => false,
            (_, LParen | LBracket) if ends_operand(left) => self.right.spaced,
            _ if is_binary(right, Some(left)) => self.operator(right, self.right, self.after),
            _ if is_binary(left, self.before) => self.operator(left, self.left, Some(self.right)),
            _ => true,
        }
    }

    /// Around a binary operator `op` (token `tok`, followed by `next` on its line).
    fn operator(&self, op: TokenKind, tok: Tok, next: Option<Tok>) -> bool {
        // As written, the same on both sides: `2*P + 1` and `2 * P + 1` both read well.
        let as_written = || tok.spaced || next.is_some_and(|n| n.spaced);
        match op {
            Star | Slash | StarStar => as_written(),
            // `[n - 1]` and `[n-1]` are one axis, `[n -1]` is refused: kept symmetric.
            Plus | Minus if self.inside == Some(LBracket) => as_written(),
            // A keyword argument `f(x, over=D)`, a default `eps: f32 = 1e-5`.
            Eq => !self.is_keyword_argument(op == self.left.kind),
            _ => true,
        }
    }

    /// Whether the `=` at this gap follows `name` right after `(` or `,`
    /// (`eq_is_left`: the `=` is the gap's left token).
    fn is_keyword_argument(&self, eq_is_left: bool) -> bool {
        let (name, opener) = if eq_is_left {
            (self.before, self.before2)
        } else {
            (Some(self.left.kind), self.before)
        };
        self.inside == Some(LParen) && name == Some(Ident) && matches!(opener, Some(LParen | Comma))
    }
}

/// Whether a token ends an operand, so that a `-` after it subtracts.
fn ends_operand(kind: TokenKind) -> bool {
    matches!(
        kind,
        Ident
            | Int
            | Float
            | Str
            | Grouped
            | Unknown
            | KwNone
            | KwTrue
            | KwFalse
            | RParen
            | RBracket
            | RBrace
            | Ellipsis
    )
}

/// Whether `kind`, after `before`, is a sign: `-x`, `+x`.
fn is_sign(kind: TokenKind, before: Option<TokenKind>) -> bool {
    matches!(kind, Minus | Plus) && !before.is_some_and(ends_operand)
}

/// Whether `kind`, after `before`, is a binary operator (or `=`, `->`).
fn is_binary(kind: TokenKind, before: Option<TokenKind>) -> bool {
    match kind {
        Minus | Plus => !is_sign(kind, before),
        Star | StarStar | Slash | At | EqEq | NotEq | Lt | Le | Gt | Ge | Eq | Arrow => true,
        _ => false,
    }
}
