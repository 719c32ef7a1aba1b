//! The plumbing both commands share, so that `shapescript` and `sexpgpu`
//! behave alike: the `--format` choice, printing diagnostics (rustc-style
//! with the closing summary line, or JSON lines, up to an error limit), `explain CODE`, and writing
//! to stdout when the reader may stop early (`| head`), and `fmt`'s driver.
//! The only I/O here is stdout and stderr, except `fmt`, which reads and
//! writes the files it formats; reading the files a command checks or runs,
//! and choosing exit codes, stay with each command.

pub mod fmt;

use diag::render::{
    color_wanted, note_line, render_human, render_json, render_json_note, summary_line,
    HumanOptions,
};
use diag::{Code, Diagnostic, Severity, SourceMap};
use std::io::{IsTerminal, Write};

/// How diagnostics are printed on stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style, coloured on a terminal unless `NO_COLOR` is set.
    #[default]
    Human,
    /// One JSON object a line (`docs/shapescript/command.md` shows the fields).
    Json,
}

/// How many errors `shapescript check` and `build` print by default before
/// they stop printing, as clang's `-ferror-limit` (20 there): enough for
/// every mistake of a day's edit, while a file of 50,000 errors prints a
/// screenful, not 14 MB. `--error-limit N` changes it, 0 lifts it.
pub const DEFAULT_ERROR_LIMIT: usize = 100;

/// Prints `diagnostics` on stderr: rustc-style with a blank line between
/// two and the summary line (`error: aborting due to 2 previous errors`)
/// after the last, or one JSON object a line. Nothing is printed for none.
/// Write errors are ignored: stderr is where they would be reported.
pub fn print_diagnostics(sources: &SourceMap, diagnostics: &[Diagnostic], format: Format) {
    print_diagnostics_limited(sources, diagnostics, format, 0);
}

/// `print_diagnostics`, stopping after `error_limit` errors (0: no limit);
/// see `format_diagnostics_limited`.
pub fn print_diagnostics_limited(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    format: Format,
    error_limit: usize,
) {
    let text =
        format_diagnostics_limited(sources, diagnostics, format, color_on_stderr(), error_limit);
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Whether diagnostics on stderr should be coloured now.
fn color_on_stderr() -> bool {
    color_wanted(std::io::stderr().is_terminal())
}

/// The text `print_diagnostics` writes.
pub fn format_diagnostics(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    format: Format,
    color: bool,
) -> String {
    format_diagnostics_limited(sources, diagnostics, format, color, 0)
}

/// The diagnostics alone, without the summary line: for a REPL, which
/// carries on after a mistake rather than aborting.
pub fn print_diagnostics_alone(sources: &SourceMap, diagnostics: &[Diagnostic], format: Format) {
    let text = format_with(sources, diagnostics, format, color_on_stderr(), 0, false);
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// The text `print_diagnostics_limited` writes: the diagnostics up to and
/// including the `error_limit`th error (all of them for 0), then, when some
/// were left out, a note that counts them and names `--error-limit` (in
/// JSON, an object of the diagnostics' shape with severity `note`). The
/// summary line counts every error, shown or not.
pub fn format_diagnostics_limited(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    format: Format,
    color: bool,
    error_limit: usize,
) -> String {
    format_with(sources, diagnostics, format, color, error_limit, true)
}

/// `format_diagnostics_limited`, with the summary line or without it.
fn format_with(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    format: Format,
    color: bool,
    error_limit: usize,
    summary: bool,
) -> String {
    let shown = shown_count(diagnostics, error_limit);
    let left_out = &diagnostics[shown..];
    let mut out = String::new();
    match format {
        Format::Human => {
            let options = HumanOptions { color };
            for (i, d) in diagnostics[..shown].iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&render_human(sources, d, options));
            }
            if !left_out.is_empty() {
                out.push('\n');
                out.push_str(&note_line(&left_out_note(left_out, error_limit), options));
            }
            if let Some(line) = summary_line(diagnostics, options).filter(|_| summary) {
                out.push('\n');
                out.push_str(&line);
            }
        }
        Format::Json => {
            for d in &diagnostics[..shown] {
                out.push_str(&render_json(sources, d));
                out.push('\n');
            }
            if !left_out.is_empty() {
                out.push_str(&render_json_note(&left_out_note(left_out, error_limit)));
                out.push('\n');
            }
        }
    }
    out
}

/// How many diagnostics to print: up to and including the `error_limit`th
/// error; all of them when there are no more errors than that, or for 0.
fn shown_count(diagnostics: &[Diagnostic], error_limit: usize) -> usize {
    if error_limit == 0 {
        return diagnostics.len();
    }
    let mut errors = 0;
    for (i, d) in diagnostics.iter().enumerate() {
        if d.severity == Severity::Error {
            errors += 1;
            if errors == error_limit {
                // What follows is shown only when no error is among it.
                let rest = &diagnostics[i + 1..];
                return if rest.iter().any(|d| d.severity == Severity::Error) {
                    i + 1
                } else {
                    diagnostics.len()
                };
            }
        }
    }
    diagnostics.len()
}

/// `49900 more errors and 2 hints not shown: ...`, for what was left out.
fn left_out_note(left_out: &[Diagnostic], error_limit: usize) -> String {
    let count = |s: Severity| left_out.iter().filter(|d| d.severity == s).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    for (severity, word) in [
        (Severity::Error, "more error"),
        (Severity::Warning, "warning"),
        (Severity::Hint, "hint"),
    ] {
        let n = count(severity);
        if n > 0 {
            parts.push(plural(n, word));
        }
    }
    let counted = match parts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "{counted} not shown, past the limit of {}: `--error-limit N` raises it, `--error-limit 0` shows them all",
        plural(error_limit, "error")
    )
}

/// Writes `text` to stdout. A reader that stopped early (`| head`) is not an
/// error; any other failure is returned for the command to report.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Prints `program: error: message` on stderr: a mistake in the command
/// line or the files it names, not in the program checked.
pub fn print_error(program: &str, message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{program}: error: {message}");
}

/// `program explain ID`: prints the code's explanation from `table` (the
/// codes of `language`) and returns the exit status, 0 when printed, 2 for
/// an unknown code (with a suggestion when the id is close to a real one)
/// or a failed write.
pub fn explain(program: &str, language: &str, table: &[Code], id: &str) -> u8 {
    let Some(code) = diag::lookup(table, id) else {
        let ids = table.iter().map(|code| code.id);
        let upper = id.to_ascii_uppercase();
        let suggestion = diag::closest(&upper, ids)
            .map(|best| format!("; did you mean `{best}`?"))
            .unwrap_or_default();
        print_error(
            program,
            &format!("`{id}` is not a {language} diagnostic code{suggestion}"),
        );
        return 2;
    };
    match write_stdout(&(code.explanation() + "\n")) {
        Ok(()) => 0,
        Err(e) => {
            print_error(program, &format!("cannot write the explanation: {e}"));
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diag::{FileId, Span};

    diag::codes! {
        static TABLE;
        E0001 = "E0001", "first mistake", "What it is.\n";
    }

    fn two_diagnostics() -> (SourceMap, Vec<Diagnostic>) {
        let mut map = SourceMap::new();
        let file: FileId = map.add("a.ss", "let x = 1\n");
        let at = Span::new(file, 4, 5);
        let d = Diagnostic::error(E0001, "bad x").with_primary(at, "here");
        (map, vec![d.clone(), d])
    }

    #[test]
    fn human_output_separates_and_summarises() {
        let (map, diagnostics) = two_diagnostics();
        let text = format_diagnostics(&map, &diagnostics, Format::Human, false);
        expect_test::expect![[r#"
            error[E0001]: bad x
              --> a.ss:1:5
               |
             1 | let x = 1
               |     ^ here

            error[E0001]: bad x
              --> a.ss:1:5
               |
             1 | let x = 1
               |     ^ here

            error: aborting due to 2 previous errors
        "#]]
        .assert_eq(&text);
    }

    #[test]
    fn json_output_is_one_object_a_line() {
        let (map, diagnostics) = two_diagnostics();
        let text = format_diagnostics(&map, &diagnostics, Format::Json, false);
        assert_eq!(text.lines().count(), 2);
        assert!(text.lines().all(|l| l.starts_with(r#"{"code":"E0001""#)));
    }

    #[test]
    fn the_error_limit_counts_what_it_leaves_out() {
        let (map, mut diagnostics) = two_diagnostics();
        let hint = Diagnostic::hint(E0001, "maybe x");
        diagnostics.insert(1, hint.clone());
        diagnostics.push(diagnostics[0].clone());
        diagnostics.push(hint);
        let text = format_diagnostics_limited(&map, &diagnostics, Format::Human, false, 1);
        expect_test::expect![[r#"
            error[E0001]: bad x
              --> a.ss:1:5
               |
             1 | let x = 1
               |     ^ here

            note: 2 more errors and 2 hints not shown, past the limit of 1 error: `--error-limit N` raises it, `--error-limit 0` shows them all

            error: aborting due to 3 previous errors
        "#]]
        .assert_eq(&text);
        let json = format_diagnostics_limited(&map, &diagnostics, Format::Json, false, 2);
        let last = json.lines().last().unwrap_or_default();
        assert_eq!(json.lines().count(), 4, "{json}");
        assert!(
            last.starts_with(
                r#"{"code":"","severity":"note","message":"1 more error and 1 hint not shown"#
            ),
            "{last}"
        );
        // Past the last error, nothing is left out: hints after it show.
        let all = format_diagnostics(&map, &diagnostics, Format::Json, false);
        assert_eq!(
            format_diagnostics_limited(&map, &diagnostics, Format::Json, false, 3),
            all
        );
        assert_eq!(
            format_diagnostics_limited(&map, &diagnostics, Format::Json, false, 0),
            all
        );
    }

    #[test]
    fn nothing_is_printed_for_no_diagnostics() {
        let map = SourceMap::new();
        assert_eq!(format_diagnostics(&map, &[], Format::Human, false), "");
    }

    #[test]
    fn explain_knows_the_table() {
        assert_eq!(diag::lookup(TABLE, "e0001"), Some(E0001));
    }
}
