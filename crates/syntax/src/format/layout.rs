//! Lines laid out: indentation from the brackets open at each line's start
//! (and a continued statement's second line), blank lines between groups,
//! comments where they were, and lines over `MAX_WIDTH` broken after the
//! commas of their outermost bracket that has any
//! (`docs/shapescript/formatting.md`). Spacing within a line is `spacing`'s.

use super::source::{Line, Tok};
use super::{spacing, INDENT, MAX_WIDTH};
use crate::lexer::TokenKind::{self, *};
use diag::formatting::push_comment;
use std::collections::VecDeque;
use std::ops::Range;

/// One line to write: a range of the file's tokens, and a comment.
#[derive(Clone, Debug)]
struct Row<'a> {
    tokens: Range<usize>,
    comment: Option<&'a str>,
    comment_column: usize,
}

/// The whole file's tokens, with the space before each.
struct Tokens<'a> {
    tokens: Vec<Tok<'a>>,
    space: Vec<bool>,
}

/// What is open where the next line starts.
#[derive(Default)]
struct State {
    /// Open brackets, innermost last, with the indentation of the line that opened each.
    open: Vec<(TokenKind, usize)>,
    /// The last line of code ended with an operator, `=`, `,` or `->`: the
    /// statement goes on.
    continued: bool,
    /// The last line of code ended with `{`.
    opened_block: bool,
}

/// The text of `lines` in the canonical layout.
pub fn layout(lines: &[Line]) -> String {
    let (tokens, rows) = rows(lines);
    let mut state = State::default();
    let mut out = String::new();
    // A blank line waits for the next written line: none at the start or the
    // end of the file, of a block, or twice.
    let mut blank = false;
    let mut queue: VecDeque<Option<Row>> = rows.into();
    while let Some(row) = queue.pop_front() {
        let Some(row) = row else {
            blank = !out.is_empty() && !state.opened_block;
            continue;
        };
        let indent = state.indent(&tokens, &row);
        let code = tokens.render(row.tokens.clone());
        if indent + code.chars().count() > MAX_WIDTH {
            if let Some(pieces) = tokens.break_row(&row, indent, state.in_block()) {
                for piece in pieces.into_iter().rev() {
                    queue.push_front(Some(piece));
                }
                continue;
            }
        }
        let closes_block = !row.tokens.is_empty() && tokens.tokens[row.tokens.start].kind == RBrace;
        if blank && !closes_block {
            out.push('\n');
        }
        blank = false;
        write_line(&mut out, indent, &code, &row);
        state.after(&tokens, &row, indent);
    }
    out
}

/// The file's tokens and its lines as rows (`None` for a blank line).
fn rows<'a>(lines: &[Line<'a>]) -> (Tokens<'a>, Vec<Option<Row<'a>>>) {
    let mut all = Vec::new();
    let mut line_start = Vec::new();
    let mut rows = Vec::with_capacity(lines.len());
    for line in lines {
        if line.is_blank() {
            rows.push(None);
            continue;
        }
        let start = all.len();
        all.extend_from_slice(&line.tokens);
        line_start.extend((0..line.tokens.len()).map(|i| i == 0));
        rows.push(Some(Row {
            tokens: start..all.len(),
            comment: line.comment,
            comment_column: line.comment_column,
        }));
    }
    let space = spacing::spaces(&all, &line_start);
    (Tokens { tokens: all, space }, rows)
}

fn write_line(out: &mut String, indent: usize, code: &str, row: &Row) {
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str(code);
    if let Some(comment) = row.comment {
        let end = (!code.is_empty()).then(|| indent + code.chars().count());
        push_comment(out, comment, row.comment_column, end);
    }
    out.push('\n');
}

impl State {
    /// The indentation of `row`, given what is open before it.
    fn indent(&self, tokens: &Tokens, row: &Row) -> usize {
        let first = tokens
            .tokens
            .get(row.tokens.start)
            .filter(|_| !row.tokens.is_empty());
        if first.is_some_and(|t| matches!(t.kind, RParen | RBracket | RBrace)) {
            // A closer goes under the line that opened it.
            return self.open.last().map_or(0, |&(_, indent)| indent);
        }
        match self.open.last() {
            Some(&(LParen | LBracket, indent)) => indent + INDENT,
            Some(&(_, indent)) => indent + INDENT + self.continuation(),
            None => self.continuation(),
        }
    }

    /// Whether a line here is a statement's or a member's (not inside `()` or `[]`).
    fn in_block(&self) -> bool {
        !matches!(self.open.last(), Some((LParen | LBracket, _)))
    }

    fn continuation(&self) -> usize {
        if self.continued {
            INDENT
        } else {
            0
        }
    }

    /// Notes the brackets `row` (written at `indent`) opens and closes.
    fn after(&mut self, tokens: &Tokens, row: &Row, indent: usize) {
        let Some(last) = row.tokens.clone().last() else {
            return;
        };
        for token in &tokens.tokens[row.tokens.clone()] {
            match token.kind {
                LParen | LBracket | LBrace => self.open.push((token.kind, indent)),
                RParen | RBracket | RBrace => {
                    self.open.pop();
                }
                _ => {}
            }
        }
        self.continued = tokens.tokens[last].kind.continues_line();
        self.opened_block = tokens.tokens[last].kind == LBrace;
    }
}

impl Tokens<'_> {
    /// The tokens of `range` on one line, spaced.
    fn render(&self, range: Range<usize>) -> String {
        let mut text = String::new();
        for i in range.clone() {
            if i > range.start && self.space[i] {
                text.push(' ');
            }
            text.push_str(self.tokens[i].text);
        }
        text
    }

    /// `row` (written at `indent`) split into shorter lines, or `None` when
    /// nothing on it can be broken. A statement (`in_block`) whose value
    /// after its first `=` fits on the next line breaks there, as
    /// `fn f(...) -> T =` over its body; otherwise the line breaks after
    /// the commas of its outermost bracket that has any, its opener ending
    /// the first line and its closer starting the last.
    fn break_row<'a>(&self, row: &Row<'a>, indent: usize, in_block: bool) -> Option<Vec<Row<'a>>> {
        let cuts = match self
            .after_equals(row.tokens.clone(), indent)
            .filter(|_| in_block)
        {
            Some(cut) => vec![cut],
            None => self.comma_cuts(row.tokens.clone())?,
        };
        let mut pieces = Vec::with_capacity(cuts.len() + 1);
        let mut start = row.tokens.start;
        for cut in cuts.into_iter().chain([row.tokens.end]) {
            pieces.push(Row {
                tokens: start..cut,
                comment: None,
                comment_column: 0,
            });
            start = cut;
        }
        if let Some(last) = pieces.last_mut() {
            last.comment = row.comment;
        }
        Some(pieces)
    }

    /// Where to cut after the first `=` outside brackets, when both sides
    /// then fit (the value one level deeper).
    fn after_equals(&self, range: Range<usize>, indent: usize) -> Option<usize> {
        let mut depth = 0usize;
        let equals = range.clone().find(|&i| {
            match self.tokens[i].kind {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth = depth.saturating_sub(1),
                Eq => return depth == 0,
                _ => {}
            }
            false
        })?;
        let cut = equals + 1;
        let fits =
            |part: Range<usize>, at: usize| at + self.render(part).chars().count() <= MAX_WIDTH;
        (cut < range.end && fits(range.start..cut, indent) && fits(cut..range.end, indent + INDENT))
            .then_some(cut)
    }

    /// The cuts after the commas of the outermost group that has any.
    fn comma_cuts(&self, range: Range<usize>) -> Option<Vec<usize>> {
        let group = self.outermost_commas(range.clone())?;
        let mut cuts: Vec<usize> = group.opener.map(|o| o + 1).into_iter().collect();
        cuts.extend(group.commas.iter().map(|&c| c + 1));
        cuts.extend(group.closer);
        cuts.retain(|&cut| cut > range.start && cut < range.end);
        cuts.dedup();
        (!cuts.is_empty()).then_some(cuts)
    }

    /// The outermost group of `range` with commas (`None` if none has any).
    fn outermost_commas(&self, range: Range<usize>) -> Option<Group> {
        // The groups open on the line; the first is the one the line starts in.
        let mut groups = vec![Group::default()];
        let mut stack = vec![0];
        for i in range {
            match self.tokens[i].kind {
                LParen | LBracket | LBrace => {
                    groups.push(Group {
                        opener: Some(i),
                        depth: stack.len(),
                        ..Group::default()
                    });
                    stack.push(groups.len() - 1);
                }
                RParen | RBracket | RBrace if stack.len() > 1 => {
                    let group = stack.pop().unwrap_or(0);
                    groups[group].closer = Some(i);
                }
                Comma => {
                    let group = stack.last().copied().unwrap_or(0);
                    groups[group].commas.push(i);
                }
                _ => {}
            }
        }
        // A block's braces are never broken: its lines are the writer's.
        groups
            .into_iter()
            .filter(|g| !g.commas.is_empty())
            .filter(|g| g.opener.is_none_or(|o| self.tokens[o].kind != LBrace))
            .min_by_key(|g| g.depth)
    }
}

/// A bracketed group on one line.
#[derive(Default)]
struct Group {
    /// `None` for the group the line starts in, opened on an earlier line.
    opener: Option<usize>,
    /// Brackets open around it on the line.
    depth: usize,
    /// The commas at its level.
    commas: Vec<usize>,
    /// Its closer, if it is on the line.
    closer: Option<usize>,
}
