//! The rustc-style terminal layout (the `error[E-DIM-001]` block of `docs/sexpgpu/errors.md`):
//! header, one source excerpt per file, then `note:` and `help:` lines.
//! Written by hand: no renderer crate reproduces the gutter of `docs/sexpgpu/errors.md`'s example exactly.
//! Only `color_wanted` looks at the environment; rendering is pure.

use super::snippet::{Annotation, FileSnippet};
use super::style::{Line, Style};
use crate::{Diagnostic, FileId, Severity, SourceMap};

#[cfg(test)]
mod tests;

/// Options for the terminal renderer.
#[derive(Clone, Copy, Debug, Default)]
pub struct HumanOptions {
    /// ANSI colour; callers enable it only on a terminal without `NO_COLOR`
    /// (see `color_wanted`).
    pub color: bool,
}

/// Whether to colour output going to a stream: only on a terminal, and never
/// when `NO_COLOR` is set to a non-empty value (https://no-color.org).
pub fn color_wanted(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Renders one diagnostic, ending in a newline.
pub fn render_human(map: &SourceMap, diag: &Diagnostic, options: HumanOptions) -> String {
    let mut out = String::new();
    let color = options.color;
    header(&mut out, diag, color);

    let snippets = snippets(map, diag);
    let max_line = snippets
        .iter()
        .map(|(_, s)| s.max_line_number())
        .max()
        .unwrap_or(0);
    // One column wider than rustc's: the book's ` 7 |` for a one-digit line.
    let gutter = max_line.to_string().len() + 1;
    for (i, (file, snippet)) in snippets.iter().enumerate() {
        if i > 0 {
            empty_gutter(&mut out, gutter, color);
        }
        let arrow = if i == 0 { "-->" } else { ":::" };
        let at = map.display_line_col(*file, first_offset(diag, *file, i == 0));
        let mut line = Line::new();
        line.push(Style::Plain, &" ".repeat(gutter));
        line.push(Style::Gutter, arrow);
        line.push(
            Style::Plain,
            &format!(" {}:{}:{}", map.name(*file), at.line, at.col),
        );
        line.write(&mut out, color);
        empty_gutter(&mut out, gutter, color);
        snippet.render(&mut out, gutter, diag.severity, color);
    }

    for note in &diag.notes {
        trailer(&mut out, "note", Style::Bold, note, color);
    }
    for help in &diag.help {
        trailer(&mut out, "help", Style::Help, help, color);
    }
    out
}

/// Renders several diagnostics with a blank line between them, as rustc does.
pub fn render_human_all(map: &SourceMap, diags: &[Diagnostic], options: HumanOptions) -> String {
    let blocks: Vec<String> = diags
        .iter()
        .map(|d| render_human(map, d, options))
        .collect();
    blocks.join("\n")
}

/// rustc's closing line, e.g. `error: aborting due to 2 previous errors; 1
/// warning emitted` or `warning: 3 warnings emitted`, with its newline;
/// `None` when there are no errors or warnings (hints are not counted).
pub fn summary_line(diags: &[Diagnostic], options: HumanOptions) -> Option<String> {
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let warned = (warnings > 0).then(|| format!("{} emitted", plural(warnings, "warning")));
    let (severity, text) = match (errors, warned) {
        (0, None) => return None,
        (0, Some(warned)) => (Severity::Warning, warned),
        (n, None) => (
            Severity::Error,
            format!("aborting due to {}", plural(n, "previous error")),
        ),
        (n, Some(warned)) => (
            Severity::Error,
            format!("aborting due to {}; {warned}", plural(n, "previous error")),
        ),
    };
    let mut out = String::new();
    let mut line = Line::new();
    line.push(Style::Level(severity), severity.as_str());
    line.push(Style::Bold, &format!(": {text}"));
    line.write(&mut out, options.color);
    Some(out)
}

/// A `note:` line of its own, outside any diagnostic (the count of those a
/// command left out), styled as a diagnostic's notes, with its newline.
pub fn note_line(text: &str, options: HumanOptions) -> String {
    let mut out = String::new();
    trailer(&mut out, "note", Style::Bold, text, options.color);
    out
}

fn header(out: &mut String, diag: &Diagnostic, color: bool) {
    let mut lines = diag.message.split('\n');
    let mut line = Line::new();
    if diag.code.id.is_empty() {
        line.push(Style::Level(diag.severity), diag.severity.as_str());
    } else {
        line.push(
            Style::Level(diag.severity),
            &format!("{}[{}]", diag.severity.as_str(), diag.code),
        );
    }
    line.push(Style::Bold, &format!(": {}", lines.next().unwrap_or("")));
    line.write(out, color);
    for rest in lines {
        let mut line = Line::new();
        line.push(Style::Bold, rest);
        line.write(out, color);
    }
}

/// `note: ...`/`help: ...` at column 0; further lines of the text line up
/// after the `note: `.
fn trailer(out: &mut String, word: &str, style: Style, text: &str, color: bool) {
    for (i, text_line) in text.split('\n').enumerate() {
        let mut line = Line::new();
        if i == 0 {
            line.push(style, &format!("{word}:"));
            line.push(Style::Plain, " ");
        } else {
            line.push(Style::Plain, &" ".repeat(word.len() + 2));
        }
        line.push(Style::Plain, text_line);
        line.write(out, color);
    }
}

fn empty_gutter(out: &mut String, gutter: usize, color: bool) {
    let mut line = Line::new();
    line.push(Style::Gutter, &format!("{:gutter$} |", ""));
    line.write(out, color);
}

/// Files in the order they are shown: the primary's file first, then the
/// others in the order their labels appear, each with its labels.
fn snippets<'a>(map: &'a SourceMap, diag: &'a Diagnostic) -> Vec<(FileId, FileSnippet<'a>)> {
    let annotations: Vec<Annotation<'_>> = diag
        .primary
        .iter()
        .map(|l| Annotation {
            span: l.span,
            label: &l.message,
            primary: true,
        })
        .chain(diag.secondary.iter().map(|l| Annotation {
            span: l.span,
            label: &l.message,
            primary: false,
        }))
        .collect();
    let mut files: Vec<FileId> = Vec::new();
    for a in &annotations {
        if !files.contains(&a.span.file) {
            files.push(a.span.file);
        }
    }
    files
        .into_iter()
        .map(|file| {
            let in_file: Vec<Annotation<'_>> = annotations
                .iter()
                .filter(|a| a.span.file == file)
                .map(|a| Annotation {
                    span: a.span,
                    label: a.label,
                    primary: a.primary,
                })
                .collect();
            (file, FileSnippet::new(map, file, &in_file))
        })
        .collect()
}

/// Where a file's `-->`/`:::` line points: the primary span in the first
/// file, the earliest label elsewhere.
fn first_offset(diag: &Diagnostic, file: FileId, is_first: bool) -> u32 {
    match &diag.primary {
        Some(primary) if is_first && primary.span.file == file => primary.span.start,
        _ => diag
            .secondary
            .iter()
            .filter(|l| l.span.file == file)
            .map(|l| l.span.start)
            .min()
            .unwrap_or(0),
    }
}
