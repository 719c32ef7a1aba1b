//! The source excerpt of one file in a terminal diagnostic: which lines are
//! shown, and the marks, connectors and labels drawn under them (rustc's
//! layout). Pure text layout; never reads anything but the `SourceMap`.

use super::style::{Grid, Line, Style};
use crate::{FileId, Severity, SourceMap, Span};
use std::collections::BTreeSet;
use unicode_width::UnicodeWidthChar;

/// Display columns a tab takes, as rustc shows it.
const TAB_WIDTH: usize = 4;
/// Lines of a multi-line span shown after its first line before eliding.
const MULTILINE_HEAD: usize = 3;

/// A label to draw, before it is resolved to lines and columns.
pub(crate) struct Annotation<'a> {
    pub(crate) span: Span,
    pub(crate) label: &'a str,
    pub(crate) primary: bool,
}

/// A line as it is displayed: tabs expanded, control characters made
/// visible, with the display column of each source byte.
struct DisplayLine {
    text: String,
    /// (byte offset in the source line, display column) of each char.
    char_cols: Vec<(usize, usize)>,
    source_len: usize,
    width: usize,
}

impl DisplayLine {
    fn new(line: &str) -> Self {
        let mut text = String::with_capacity(line.len());
        let mut char_cols = Vec::with_capacity(line.len());
        let mut col = 0;
        for (byte, ch) in line.char_indices() {
            char_cols.push((byte, col));
            match ch {
                '\t' => {
                    text.push_str(&" ".repeat(TAB_WIDTH));
                    col += TAB_WIDTH;
                }
                ch if ch.is_control() => {
                    text.push(char::REPLACEMENT_CHARACTER);
                    col += 1;
                }
                ch => {
                    text.push(ch);
                    col += ch.width().unwrap_or(0);
                }
            }
        }
        DisplayLine {
            text,
            char_cols,
            source_len: line.len(),
            width: col,
        }
    }

    /// Display column of the char holding byte `byte` of the source line;
    /// the line's width for a byte at or past its end.
    fn col_at(&self, byte: usize) -> usize {
        if byte >= self.source_len {
            return self.width;
        }
        match self.char_cols.binary_search_by_key(&byte, |&(b, _)| b) {
            Ok(i) => self.char_cols[i].1,
            Err(i) => self.char_cols[i - 1].1,
        }
    }
}

/// A label resolved to 0-based lines and display columns.
struct Mark {
    start_line: usize,
    end_line: usize,
    /// Display column of the first char.
    start_col: usize,
    /// One-line marks: the display column just past the mark (at least
    /// `start_col + 1`, so an empty span still gets one caret). Multi-line
    /// marks: the display column of the span's last char.
    end_col: usize,
    primary: bool,
    label: String,
    /// Multi-line marks: which of the columns left of the text draws it.
    depth: usize,
    /// Multi-line marks starting after only whitespace: drawn as `/` on the
    /// first line instead of a `_^` line under it.
    slash: bool,
}

impl Mark {
    fn is_multiline(&self) -> bool {
        self.start_line != self.end_line
    }

    fn style(&self, severity: Severity) -> Style {
        if self.primary {
            Style::Level(severity)
        } else {
            Style::Secondary
        }
    }

    fn symbol(&self) -> char {
        if self.primary {
            '^'
        } else {
            '-'
        }
    }
}

/// One file's part of a diagnostic: its marks and the lines to show.
pub(crate) struct FileSnippet<'a> {
    map: &'a SourceMap,
    file: FileId,
    marks: Vec<Mark>,
    lines: Vec<usize>,
    /// Columns reserved left of the text for multi-line marks.
    multiline_depths: usize,
}

impl<'a> FileSnippet<'a> {
    /// `annotations` all point into `file`.
    pub(crate) fn new(map: &'a SourceMap, file: FileId, annotations: &[Annotation<'_>]) -> Self {
        let mut marks: Vec<Mark> = annotations.iter().map(|a| resolve(map, file, a)).collect();
        let multiline_depths = assign_depths(&mut marks);
        let mut lines = BTreeSet::new();
        for mark in &marks {
            lines.insert(mark.start_line);
            if mark.is_multiline() {
                let head_end = (mark.start_line + 1 + MULTILINE_HEAD).min(mark.end_line);
                lines.extend(mark.start_line + 1..head_end);
                lines.insert(mark.end_line - 1);
                lines.insert(mark.end_line);
            }
        }
        FileSnippet {
            map,
            file,
            marks,
            lines: lines.into_iter().collect(),
            multiline_depths,
        }
    }

    /// The largest 1-based line number this snippet prints.
    pub(crate) fn max_line_number(&self) -> usize {
        self.lines.last().map_or(0, |&l| l + 1)
    }

    /// Appends the snippet's rows; `gutter` is the width of the line-number column.
    pub(crate) fn render(&self, out: &mut String, gutter: usize, severity: Severity, color: bool) {
        let mut open = vec![false; self.marks.len()];
        for (i, &line) in self.lines.iter().enumerate() {
            let mut rows = Rows {
                out: &mut *out,
                gutter,
                color,
            };
            self.render_line(&mut rows, line, severity, &mut open);
            let Some(&next) = self.lines.get(i + 1) else {
                continue;
            };
            if next - line == 2 {
                self.source_row(line + 1, gutter, severity, &mut open)
                    .write(out, color);
            } else if next - line > 2 {
                let mut row = Line::new();
                row.push(Style::Gutter, "...");
                row.push(Style::Plain, &" ".repeat(gutter));
                self.open_bars(&open, severity).append_to(&mut row);
                row.write(out, color);
            }
        }
    }

    fn shift(&self) -> usize {
        2 * self.multiline_depths
    }

    /// One source line and the rows of marks under it: the marks within the
    /// line, then the multi-line marks that start and end on it.
    fn render_line(&self, rows: &mut Rows, line: usize, severity: Severity, open: &mut [bool]) {
        let source = self.source_row(line, rows.gutter, severity, open);
        source.write(rows.out, rows.color);
        self.single_line_marks(rows, line, severity, open);
        self.multiline_marks(rows, line, severity, open);
    }

    /// The marks within `line`: one underline row (the last mark's label
    /// on it when nothing follows it), then the other labels below, each
    /// hanging from its mark.
    fn single_line_marks(
        &self,
        rows: &mut Rows,
        line: usize,
        severity: Severity,
        open: &mut [bool],
    ) {
        let shift = self.shift();

        let mut singles: Vec<&Mark> = self
            .marks
            .iter()
            .filter(|m| !m.is_multiline() && m.start_line == line)
            .collect();
        singles.sort_by_key(|m| (m.start_col, m.primary));
        if singles.is_empty() {
            return;
        }
        let mut underline = self.open_bars(open, severity);
        for mark in singles
            .iter()
            .filter(|m| !m.primary)
            .chain(singles.iter().filter(|m| m.primary))
        {
            for col in mark.start_col..mark.end_col {
                underline.put(shift + col, mark.symbol(), mark.style(severity));
            }
        }
        let last = singles[singles.len() - 1];
        let others = &singles[..singles.len() - 1];
        let inline = !last.label.is_empty() && others.iter().all(|m| m.end_col <= last.start_col);
        if inline {
            let at = underline.len() + 1;
            underline.put_str(at, &last.label, last.style(severity));
        }
        rows.annotation(&underline);

        let below: Vec<&Mark> = singles
            .iter()
            .rev()
            .filter(|m| !m.label.is_empty() && (!inline || !std::ptr::eq(**m, last)))
            .copied()
            .collect();
        if !below.is_empty() {
            let mut connectors = self.open_bars(open, severity);
            for mark in &below {
                connectors.put(shift + mark.start_col, '|', mark.style(severity));
            }
            rows.annotation(&connectors);
        }
        for (i, mark) in below.iter().enumerate() {
            let mut row = self.open_bars(open, severity);
            for left in &below[i + 1..] {
                row.put(shift + left.start_col, '|', left.style(severity));
            }
            row.put_str(shift + mark.start_col, &mark.label, mark.style(severity));
            rows.annotation(&row);
        }
    }

    /// The rows of the multi-line marks at `line`: those starting on it
    /// open, outermost first; then those ending on it close, innermost
    /// first, each with its label.
    fn multiline_marks(&self, rows: &mut Rows, line: usize, severity: Severity, open: &mut [bool]) {
        let mut starting = self.multiline_where(|m| m.start_line == line && !m.slash);
        starting.sort_by_key(|&i| self.marks[i].depth);
        for i in starting {
            let mark = &self.marks[i];
            let row = self.multiline_row(mark, mark.start_col, open, severity);
            rows.annotation(&row);
            open[i] = true;
        }
        let mut ending = self.multiline_where(|m| m.end_line == line);
        ending.sort_by_key(|&i| std::cmp::Reverse(self.marks[i].depth));
        for i in ending {
            open[i] = false;
            let mark = &self.marks[i];
            let mut row = self.multiline_row(mark, mark.end_col, open, severity);
            let style = mark.style(severity);
            row.put(2 * mark.depth, '|', style);
            if !mark.label.is_empty() {
                let at = row.len() + 1;
                row.put_str(at, &mark.label, style);
            }
            rows.annotation(&row);
        }
    }

    /// The multi-line marks `keep` picks, by index.
    fn multiline_where(&self, keep: impl Fn(&Mark) -> bool) -> Vec<usize> {
        (0..self.marks.len())
            .filter(|&i| self.marks[i].is_multiline() && keep(&self.marks[i]))
            .collect()
    }

    /// A row drawing `mark`'s line from its bar to its symbol at `col`,
    /// with the bars of the marks still open.
    fn multiline_row(&self, mark: &Mark, col: usize, open: &[bool], severity: Severity) -> Grid {
        let shift = self.shift();
        let mut row = Grid::new();
        let style = mark.style(severity);
        for c in 2 * mark.depth + 1..shift + col {
            row.put(c, '_', style);
        }
        row.put(shift + col, mark.symbol(), style);
        self.put_open_bars(&mut row, open, severity);
        row
    }

    /// A source line with its number and the multi-line columns; a `/` here
    /// opens a multi-line mark.
    fn source_row(
        &self,
        line: usize,
        gutter: usize,
        severity: Severity,
        open: &mut [bool],
    ) -> Line {
        let mut bars = self.open_bars(open, severity);
        for (i, mark) in self.marks.iter().enumerate() {
            if mark.is_multiline() && mark.slash && mark.start_line == line {
                bars.put(2 * mark.depth, '/', mark.style(severity));
                open[i] = true;
            }
        }
        let mut row = Line::new();
        row.push(Style::Gutter, &format!("{:>gutter$} |", line + 1));
        row.push(Style::Plain, " ");
        bars.append_to(&mut row);
        let shown = DisplayLine::new(self.map.line_text(self.file, line));
        row.push(
            Style::Plain,
            &" ".repeat(self.shift() - bars.len().min(self.shift())),
        );
        row.push(Style::Plain, &shown.text);
        row
    }

    fn open_bars(&self, open: &[bool], severity: Severity) -> Grid {
        let mut grid = Grid::new();
        self.put_open_bars(&mut grid, open, severity);
        grid
    }

    fn put_open_bars(&self, grid: &mut Grid, open: &[bool], severity: Severity) {
        for (mark, _) in self.marks.iter().zip(open).filter(|(_, &o)| o) {
            grid.put(2 * mark.depth, '|', mark.style(severity));
        }
    }
}

/// Where a snippet's rows go: the text, the width of the line-number
/// column, and whether to colour them.
struct Rows<'o> {
    out: &'o mut String,
    gutter: usize,
    color: bool,
}

impl Rows<'_> {
    /// A row under a source line: an empty gutter, then `grid`.
    fn annotation(&mut self, grid: &Grid) {
        let gutter = self.gutter;
        let mut row = Line::new();
        row.push(Style::Gutter, &format!("{:gutter$} |", ""));
        row.push(Style::Plain, " ");
        grid.append_to(&mut row);
        row.write(self.out, self.color);
    }
}

/// Labels are drawn on one row; line breaks and tabs would break the layout.
fn one_line(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn resolve(map: &SourceMap, file: FileId, annotation: &Annotation<'_>) -> Mark {
    let text = map.text(file);
    let start = map.display_offset(file, annotation.span.start) as usize;
    let end = (map.display_offset(file, annotation.span.end) as usize).max(start);
    let mut last = if end > start { end - 1 } else { start };
    while !text.is_char_boundary(last) {
        last -= 1;
    }
    let start_line = map.line_index(file, start as u32);
    let end_line = map.line_index(file, last as u32).max(start_line);

    let start_line_text = map.line_text(file, start_line);
    let start_in_line = start - map.line_start(file, start_line) as usize;
    let start_col = DisplayLine::new(start_line_text).col_at(start_in_line);
    let end_col = if start_line == end_line {
        let end_in_line = end - map.line_start(file, start_line) as usize;
        DisplayLine::new(start_line_text)
            .col_at(end_in_line)
            .max(start_col + 1)
    } else {
        let last_in_line = last - map.line_start(file, end_line) as usize;
        DisplayLine::new(map.line_text(file, end_line)).col_at(last_in_line)
    };
    let before = start_line_text.get(..start_in_line).unwrap_or("");
    Mark {
        start_line,
        end_line,
        start_col,
        end_col,
        primary: annotation.primary,
        label: one_line(annotation.label),
        depth: 0,
        slash: before.trim().is_empty(),
    }
}

/// Gives overlapping multi-line marks different columns, outermost first;
/// returns how many columns are used.
fn assign_depths(marks: &mut [Mark]) -> usize {
    let mut order: Vec<usize> = (0..marks.len())
        .filter(|&i| marks[i].is_multiline())
        .collect();
    order.sort_by_key(|&i| (marks[i].start_line, std::cmp::Reverse(marks[i].end_line)));
    let mut placed: Vec<usize> = Vec::new();
    let mut depths = 0;
    for i in order {
        let mut depth = 0;
        while placed.iter().any(|&j| {
            marks[j].depth == depth
                && marks[j].start_line <= marks[i].end_line
                && marks[i].start_line <= marks[j].end_line
        }) {
            depth += 1;
        }
        marks[i].depth = depth;
        depths = depths.max(depth + 1);
        placed.push(i);
    }
    depths
}
