//! Lines laid out as Clojure's cljfmt and Emacs lay out Lisp
//! (`docs/sexpgpu/formatting.md`): a body form's lines indented two past
//! its `(`, a call's arguments under its first argument, a vector's or a
//! map's elements under its first; closers never start a line; one space
//! between tokens; blank lines kept one at a time; comments where they were;
//! a line over `MAX_WIDTH` broken before the arguments (or pairs) of its
//! outermost form that has several.

use super::tokens::{Kind, Line, Tok};
use super::MAX_WIDTH;
use diag::formatting::push_comment;
use std::collections::VecDeque;

/// One line to write.
#[derive(Clone, Debug, Default)]
struct Row<'a> {
    tokens: Vec<Tok<'a>>,
    comment: Option<&'a str>,
    comment_column: usize,
}

/// A form open where the next line starts.
#[derive(Clone, Debug)]
struct Frame<'a> {
    /// `(`, `[`, `{`, or ' ' for the file itself.
    open: char,
    /// The column of the opener.
    column: usize,
    /// The line (counted as written) of the opener.
    row: usize,
    /// How many elements it has so far.
    elements: usize,
    /// Its first element when that is an atom (a list's operator).
    head: Option<&'a str>,
    /// The column of its second element, when that is on the opener's line.
    argument: Option<usize>,
    /// A `let`-style binding vector: its elements pair up.
    bindings: bool,
    /// A reader prefix was written and its form has not started.
    prefixed: bool,
}

impl<'a> Frame<'a> {
    fn new(open: char, column: usize, row: usize) -> Frame<'a> {
        Frame {
            open,
            column,
            row,
            elements: 0,
            head: None,
            argument: None,
            bindings: false,
            prefixed: false,
        }
    }
}

/// Operators whose arguments are a body, with how many come before the
/// body (kept on the first line when a long form is broken). Any other
/// `def...` and `with-...` takes one.
const BODY_FORMS: &[(&str, usize)] = &[
    ("defn", 2),
    ("defmacro", 2),
    ("defgraph", 2),
    ("defmodel", 2),
    ("fn", 1),
    ("lambda", 1),
    ("let", 1),
    ("loop", 1),
    ("when", 1),
    ("when-not", 1),
    ("when-let", 1),
    ("if", 1),
    ("if-not", 1),
    ("if-let", 1),
    ("do", 0),
    ("doseq", 1),
    ("dotimes", 1),
    ("for", 1),
    ("cond", 0),
    ("case", 1),
];

/// Operators whose second element is a vector of name-value pairs.
const BINDING_FORMS: &[&str] = &[
    "let", "loop", "doseq", "dotimes", "for", "when-let", "if-let",
];

/// How many arguments come before the body, if `head` takes a body.
fn body_form(head: &str) -> Option<usize> {
    BODY_FORMS
        .iter()
        .find(|(name, _)| *name == head)
        .map(|&(_, before)| before)
        .or_else(|| (head.starts_with("def") || head.starts_with("with-")).then_some(1))
}

/// The text of `lines` in the canonical layout.
pub fn layout(lines: &[Line]) -> String {
    let mut frames = vec![Frame::new(' ', 0, 0)];
    let mut out = String::new();
    let mut blank = false;
    let mut written = 0;
    let mut queue: VecDeque<Option<Row>> = rows(lines).into();
    while let Some(row) = queue.pop_front() {
        let Some(row) = row else {
            blank = !out.is_empty();
            continue;
        };
        let indent = indent(&frames, row.tokens.first());
        let (code, columns) = render(&row.tokens, indent);
        if first_line_width(&code) > MAX_WIDTH {
            if let Some(pieces) = break_row(&row, &frames) {
                for piece in pieces.into_iter().rev() {
                    queue.push_front(Some(piece));
                }
                continue;
            }
        }
        if blank {
            out.push('\n');
            blank = false;
        }
        write_line(&mut out, &code, &row);
        track(&mut frames, &row.tokens, &columns, written);
        written += 1;
    }
    out
}

/// The rows of `lines` (`None` for a blank line), with the closers that
/// start a line moved to the end of the line of code before, where they can be.
fn rows<'a>(lines: &[Line<'a>]) -> Vec<Option<Row<'a>>> {
    let mut rows: Vec<Option<Row>> = Vec::with_capacity(lines.len());
    for line in lines {
        if line.is_blank() {
            rows.push(None);
            continue;
        }
        let mut tokens = line.tokens.clone();
        let closers = tokens
            .iter()
            .take_while(|t| matches!(t.kind, Kind::Close(_)))
            .count();
        let before = rows.iter().rposition(Option::is_some);
        let joinable = before
            .and_then(|i| rows[i].as_ref())
            .is_some_and(|r| r.comment.is_none() && !r.tokens.is_empty());
        if closers > 0 && joinable {
            let i = before.unwrap_or(0);
            rows.truncate(i + 1);
            if let Some(row) = rows[i].as_mut() {
                row.tokens.extend(tokens.drain(..closers));
            }
        }
        if tokens.is_empty() && line.comment.is_none() {
            continue;
        }
        rows.push(Some(Row {
            tokens,
            comment: line.comment,
            comment_column: line.comment_column,
        }));
    }
    rows
}

/// The indentation of a line starting with `first`, inside `frames`.
fn indent(frames: &[Frame], first: Option<&Tok>) -> usize {
    let frame = frames.last().expect("the file's frame is never closed");
    if frame.open == ' ' {
        return 0;
    }
    if first.is_some_and(|t| matches!(t.kind, Kind::Close(_))) {
        return frame.column;
    }
    match frame.open {
        '(' if frame.head.and_then(body_form).is_some() => frame.column + 2,
        '(' => frame.argument.unwrap_or(frame.column + 1),
        _ => frame.column + 1,
    }
}

/// Whether a space goes between two neighbours on a line.
fn spaced(left: &Tok, right: &Tok) -> bool {
    !matches!(left.kind, Kind::Open(_) | Kind::Prefix)
        && !matches!(right.kind, Kind::Close(_) | Kind::Comma)
}

/// The tokens on one line at `indent`, and the column of each.
fn render(tokens: &[Tok], indent: usize) -> (String, Vec<usize>) {
    let mut code = " ".repeat(indent);
    let mut column = indent;
    let mut columns = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 && spaced(&tokens[i - 1], token) {
            code.push(' ');
            column += 1;
        }
        columns.push(column);
        code.push_str(token.text);
        column = match token.text.rfind('\n') {
            Some(at) => token.text[at + 1..].chars().count(),
            None => column + token.text.chars().count(),
        };
    }
    (code, columns)
}

/// The width of a rendered line up to its first line break (a string may span lines).
fn first_line_width(code: &str) -> usize {
    code.split('\n').next().unwrap_or("").chars().count()
}

fn write_line(out: &mut String, code: &str, row: &Row) {
    out.push_str(code);
    if let Some(comment) = row.comment {
        // The code's last line (a string may span lines) ends where its
        // text after the last line break does.
        let end = (!row.tokens.is_empty())
            .then(|| code.rsplit('\n').next().unwrap_or("").chars().count());
        push_comment(out, comment, row.comment_column, end);
    }
    out.push('\n');
}

/// Follows the forms `tokens` (line `row`, at `columns`) open, fill and close.
fn track<'a>(frames: &mut Vec<Frame<'a>>, tokens: &[Tok<'a>], columns: &[usize], row: usize) {
    for (token, &column) in tokens.iter().zip(columns) {
        let parent = frames.last_mut().expect("the file's frame is never closed");
        let starts_element =
            !parent.prefixed && !matches!(token.kind, Kind::Close(_) | Kind::Comma);
        if starts_element {
            parent.elements += 1;
            if parent.elements == 1 && token.kind == Kind::Atom {
                parent.head = Some(token.text);
            }
            if parent.elements == 2 && parent.row == row {
                parent.argument = Some(column);
            }
        }
        parent.prefixed = token.kind == Kind::Prefix;
        match token.kind {
            Kind::Open(open) => {
                let bindings = open == '['
                    && parent.open == '('
                    && parent.elements == 2
                    && parent.head.is_some_and(|h| BINDING_FORMS.contains(&h));
                let mut frame = Frame::new(open, column, row);
                frame.bindings = bindings;
                frames.push(frame);
            }
            Kind::Close(_) if frames.len() > 1 => {
                frames.pop();
            }
            _ => {}
        }
    }
}

/// One element of a line: its tokens (prefixes and a trailing comma
/// included), and its own elements if it is a form opened on the line.
#[derive(Debug)]
struct Item<'a> {
    start: usize,
    open: Option<char>,
    head: Option<&'a str>,
    children: Vec<Item<'a>>,
    keyword: bool,
}

/// The elements of `tokens` from `*at` up to the closer of the form they
/// are in (or the line's end); `*at` ends after that closer.
fn items<'a>(tokens: &[Tok<'a>], at: &mut usize) -> Vec<Item<'a>> {
    let mut out: Vec<Item> = Vec::new();
    let mut start = None;
    while let Some(token) = tokens.get(*at) {
        *at += 1;
        // A comma stays with the element before it.
        if token.kind == Kind::Comma && start.is_none() {
            continue;
        }
        let begin = *start.get_or_insert(*at - 1);
        let item = match token.kind {
            Kind::Close(_) => return out,
            Kind::Comma | Kind::Prefix => continue,
            Kind::Open(open) => {
                let children = items(tokens, at);
                let head = children
                    .first()
                    .filter(|c| c.open.is_none() && tokens[c.start].kind == Kind::Atom)
                    .map(|c| tokens[c.start].text);
                Item {
                    start: begin,
                    open: Some(open),
                    head,
                    children,
                    keyword: false,
                }
            }
            Kind::Atom | Kind::Str => Item {
                start: begin,
                open: None,
                head: None,
                children: Vec::new(),
                keyword: token.kind == Kind::Atom && token.text.starts_with(':'),
            },
        };
        start = None;
        out.push(item);
    }
    out
}

/// What the elements being grouped belong to.
#[derive(Clone, Copy)]
struct Context<'a> {
    open: char,
    head: Option<&'a str>,
    bindings: bool,
    /// How many of its elements come before the first one on the line.
    before: usize,
    /// It opens on this line, so its operator and first arguments stay there.
    opened_here: bool,
}

/// `row` split before the arguments, pairs or elements of its outermost
/// form that has several, or `None` when nothing on it can be broken.
fn break_row<'a>(row: &Row<'a>, frames: &[Frame<'a>]) -> Option<Vec<Row<'a>>> {
    let frame = frames.last()?;
    let context = Context {
        open: frame.open,
        head: frame.head,
        bindings: frame.bindings,
        before: frame.elements,
        opened_here: false,
    };
    let mut at = 0;
    let top = items(&row.tokens, &mut at);
    let cuts = cuts(&top, context)?;
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts.into_iter().chain([row.tokens.len()]) {
        pieces.push(Row {
            tokens: row.tokens[start..cut].to_vec(),
            ..Row::default()
        });
        start = cut;
    }
    if let Some(last) = pieces.last_mut() {
        last.comment = row.comment;
    }
    Some(pieces)
}

/// Where to cut among `elements` of a form described by `context`: before
/// each unit but the first, or inside the last form if there is one unit.
fn cuts(elements: &[Item], context: Context) -> Option<Vec<usize>> {
    let units = units(elements, context);
    if units.len() >= 2 {
        return Some(units[1..].iter().map(|&u| elements[u].start).collect());
    }
    let (index, inner) = elements
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| e.open.is_some())?;
    let inner_context = Context {
        open: inner.open.unwrap_or('('),
        head: inner.head,
        bindings: inner.open == Some('[')
            && context.open == '('
            && context.before + index + 1 == 2
            && context.head.is_some_and(|h| BINDING_FORMS.contains(&h)),
        before: 0,
        opened_here: true,
    };
    cuts(&inner.children, inner_context)
}

/// The indices of the elements that start a unit: a line of their own when
/// the form is broken. Pairs stay together in maps and binding vectors, and
/// a keyword with its value in calls; a form opened on the line keeps its
/// operator with its first argument, or with the arguments before its body.
fn units(elements: &[Item], context: Context) -> Vec<usize> {
    let mut starts = Vec::new();
    let first = if context.opened_here && context.open == '(' {
        match context.head {
            Some(head) => 1 + body_form(head).unwrap_or(1),
            None => 1,
        }
    } else {
        1
    };
    let mut i = 0;
    while i < elements.len() {
        starts.push(i);
        let number = context.before + i + 1;
        let paired = match context.open {
            '{' => number % 2 == 1,
            '[' => context.bindings && number % 2 == 1,
            '(' => elements[i].keyword && number > 1,
            _ => false,
        };
        i += if i == 0 && context.opened_here {
            first
        } else if paired {
            2
        } else {
            1
        };
    }
    starts
}
