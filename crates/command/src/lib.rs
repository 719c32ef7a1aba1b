//! The plumbing both commands share, so that `shapescript` and `sexpgpu`
//! behave alike: the `--format` choice, printing diagnostics (rustc-style
//! with the closing summary line, or JSON lines), `explain CODE`, and writing
//! to stdout when the reader may stop early (`| head`). The only I/O here is
//! stdout and stderr; reading files and choosing exit codes stay with each
//! command.

use diag::render::{color_wanted, render_human, render_json, summary_line, HumanOptions};
use diag::{Code, Diagnostic, SourceMap};
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

/// Prints `diagnostics` on stderr: rustc-style with a blank line between
/// two and the summary line (`error: aborting due to 2 previous errors`)
/// after the last, or one JSON object a line. Nothing is printed for none.
/// Write errors are ignored: stderr is where they would be reported.
pub fn print_diagnostics(sources: &SourceMap, diagnostics: &[Diagnostic], format: Format) {
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(format_diagnostics(sources, diagnostics, format, color_on_stderr()).as_bytes());
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
    let mut out = String::new();
    match format {
        Format::Human => {
            let options = HumanOptions { color };
            for (i, d) in diagnostics.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&render_human(sources, d, options));
            }
            if let Some(summary) = summary_line(diagnostics, options) {
                out.push('\n');
                out.push_str(&summary);
            }
        }
        Format::Json => {
            for d in diagnostics {
                out.push_str(&render_json(sources, d));
                out.push('\n');
            }
        }
    }
    out
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
    fn nothing_is_printed_for_no_diagnostics() {
        let map = SourceMap::new();
        assert_eq!(format_diagnostics(&map, &[], Format::Human, false), "");
    }

    #[test]
    fn explain_knows_the_table() {
        assert_eq!(diag::lookup(TABLE, "e0001"), Some(E0001));
    }
}
