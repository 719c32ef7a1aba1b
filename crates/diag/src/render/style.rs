//! Styled output lines for the terminal renderer: text segments tagged with a
//! style, turned into plain text or ANSI colour at the very end. Knows nothing
//! of diagnostics; never leaves trailing whitespace on a line.

use crate::Severity;

/// What a piece of output is, which decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    /// The header message and the `note` word.
    Bold,
    /// Line numbers, `|`, `-->`, `:::`, `...`.
    Gutter,
    /// The severity word and code, and the primary label's carets and text.
    Level(Severity),
    /// Secondary labels' dashes and text.
    Secondary,
    /// The `help` word.
    Help,
}

impl Style {
    fn ansi(self) -> Option<&'static str> {
        match self {
            Style::Plain => None,
            Style::Bold => Some("\x1b[1m"),
            Style::Gutter | Style::Secondary => Some("\x1b[1;34m"),
            Style::Level(Severity::Error) => Some("\x1b[1;31m"),
            Style::Level(Severity::Warning) => Some("\x1b[1;33m"),
            Style::Level(Severity::Hint) | Style::Help => Some("\x1b[1;36m"),
        }
    }
}

const RESET: &str = "\x1b[0m";

/// One output line being assembled from styled segments.
#[derive(Default)]
pub(crate) struct Line {
    segments: Vec<(Style, String)>,
}

impl Line {
    pub(crate) fn new() -> Self {
        Line::default()
    }

    pub(crate) fn push(&mut self, style: Style, text: &str) -> &mut Self {
        match self.segments.last_mut() {
            Some((last, buffer)) if *last == style => buffer.push_str(text),
            _ => self.segments.push((style, text.to_string())),
        }
        self
    }

    /// Appends the line and its `\n` to `out`, without trailing whitespace.
    pub(crate) fn write(mut self, out: &mut String, color: bool) {
        while let Some((_, text)) = self.segments.last_mut() {
            let trimmed = text.trim_end().len();
            text.truncate(trimmed);
            if !text.is_empty() {
                break;
            }
            self.segments.pop();
        }
        for (style, text) in &self.segments {
            match style.ansi().filter(|_| color) {
                Some(code) => {
                    out.push_str(code);
                    out.push_str(text);
                    out.push_str(RESET);
                }
                None => out.push_str(text),
            }
        }
        out.push('\n');
    }
}

/// A row of single-column cells, for the lines drawn under source text, where
/// marks, connectors and labels are placed at display columns.
#[derive(Default)]
pub(crate) struct Grid {
    cells: Vec<(char, Style)>,
}

impl Grid {
    pub(crate) fn new() -> Self {
        Grid::default()
    }

    pub(crate) fn put(&mut self, col: usize, ch: char, style: Style) {
        if self.cells.len() <= col {
            self.cells.resize(col + 1, (' ', Style::Plain));
        }
        self.cells[col] = (ch, style);
    }

    /// Writes `text` one char per cell from `col`; callers put text only
    /// where nothing else follows it on the row, so wide chars cannot
    /// push a later mark out of place.
    pub(crate) fn put_str(&mut self, col: usize, text: &str, style: Style) {
        for (i, ch) in text.chars().enumerate() {
            self.put(col + i, ch, style);
        }
    }

    /// Cells in use; marks are placed past this to append a label.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    pub(crate) fn append_to(&self, line: &mut Line) {
        let mut buffer = [0u8; 4];
        for &(ch, style) in &self.cells {
            line.push(style, ch.encode_utf8(&mut buffer));
        }
    }
}
