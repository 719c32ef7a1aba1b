//! JSON rendering: one object per diagnostic with code, severity, message,
//! file, byte and line/column ranges of the primary and secondary labels,
//! notes and help. The schema is documented in `docs/diagnostics.md`; the
//! UI-test harness reads `code`, `severity` and `primary.line_start`.

use crate::{Diagnostic, Label, SourceMap};
use serde::Serialize;
use serde_json::Value;

/// Field order here is the order printed by `render_json`.
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    /// The primary label's file, or `null` for a diagnostic with no place.
    file: Option<&'a str>,
    primary: Option<JsonLabel<'a>>,
    secondary: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    help: &'a [String],
}

/// A span as byte offsets and as 1-based lines and character columns
/// (`column_end` is just past the last character, as in rustc's JSON).
#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    byte_start: u32,
    byte_end: u32,
    line_start: u32,
    column_start: u32,
    line_end: u32,
    column_end: u32,
    message: &'a str,
}

fn label<'a>(map: &'a SourceMap, label: &'a Label) -> JsonLabel<'a> {
    // The positions the terminal layout shows, so an annotation written next
    // to a caret at the end of a file is on the line the JSON reports.
    let start = map.display_line_col(label.span.file, label.span.start);
    let end = map.display_line_col(label.span.file, label.span.end.max(label.span.start));
    JsonLabel {
        file: map.name(label.span.file),
        byte_start: label.span.start,
        byte_end: label.span.end,
        line_start: start.line,
        column_start: start.col,
        line_end: end.line,
        column_end: end.col,
        message: &label.message,
    }
}

fn json_diagnostic<'a>(map: &'a SourceMap, diag: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        code: diag.code.id,
        severity: diag.severity.as_str(),
        message: &diag.message,
        file: diag.primary.as_ref().map(|l| map.name(l.span.file)),
        primary: diag.primary.as_ref().map(|l| label(map, l)),
        secondary: diag.secondary.iter().map(|l| label(map, l)).collect(),
        notes: &diag.notes,
        help: &diag.help,
    }
}

/// The JSON value of one diagnostic.
pub fn to_json(map: &SourceMap, diag: &Diagnostic) -> Value {
    serde_json::to_value(json_diagnostic(map, diag))
        .expect("plain strings and numbers always serialize")
}

/// One line of JSON, without a trailing newline, fields in schema order.
pub fn render_json(map: &SourceMap, diag: &Diagnostic) -> String {
    serde_json::to_string(&json_diagnostic(map, diag))
        .expect("plain strings and numbers always serialize")
}

/// One line of JSON in a diagnostic's shape for a note outside any
/// diagnostic (the count of those a command left out): severity `note`, an
/// empty code, no place.
pub fn render_json_note(message: &str) -> String {
    serde_json::to_string(&JsonDiagnostic {
        code: "",
        severity: "note",
        message,
        file: None,
        primary: None,
        secondary: Vec::new(),
        notes: &[],
        help: &[],
    })
    .expect("plain strings always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::test_code;
    use crate::{Diagnostic, FileId, Span};
    use expect_test::{expect, Expect};

    fn check(diag: impl FnOnce(FileId, FileId) -> Diagnostic, expect: Expect) {
        let mut map = SourceMap::new();
        let main = map.add("main.ss", "dim D = 4\nfn f(x: [D]) -> [D] {\n  x @ x\n}\n");
        let lib = map.add("lib/layers.ss", "dim H = 8\n");
        let diag = diag(main, lib);
        let line = render_json(&map, &diag);
        assert!(!line.contains('\n'));
        let round_trip: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(round_trip, to_json(&map, &diag));
        expect.assert_eq(&serde_json::to_string_pretty(&round_trip).unwrap());
        // The ordered one-line form, as the harness and editors read it.
        assert!(line.starts_with(r#"{"code":"#), "{line}");
    }

    #[test]
    fn full_diagnostic() {
        check(
            |main, lib| {
                Diagnostic::error(test_code("E0401"), "shapes differ: [D] vs [D D]")
                    .with_primary(Span::new(main, 34, 39), "this product")
                    .with_secondary(Span::new(lib, 4, 5), "defined here")
                    .with_note("D = 4")
                    .with_help("use `*` for an elementwise product")
            },
            expect![[r#"
                {
                  "code": "E0401",
                  "file": "main.ss",
                  "help": [
                    "use `*` for an elementwise product"
                  ],
                  "message": "shapes differ: [D] vs [D D]",
                  "notes": [
                    "D = 4"
                  ],
                  "primary": {
                    "byte_end": 39,
                    "byte_start": 34,
                    "column_end": 8,
                    "column_start": 3,
                    "file": "main.ss",
                    "line_end": 3,
                    "line_start": 3,
                    "message": "this product"
                  },
                  "secondary": [
                    {
                      "byte_end": 5,
                      "byte_start": 4,
                      "column_end": 6,
                      "column_start": 5,
                      "file": "lib/layers.ss",
                      "line_end": 1,
                      "line_start": 1,
                      "message": "defined here"
                    }
                  ],
                  "severity": "error"
                }"#]],
        );
    }

    #[test]
    fn no_span_gives_null_file_and_primary() {
        check(
            |_, _| Diagnostic::hint(test_code("H2201"), "alias `Seq` is never used"),
            expect![[r#"
                {
                  "code": "H2201",
                  "file": null,
                  "help": [],
                  "message": "alias `Seq` is never used",
                  "notes": [],
                  "primary": null,
                  "secondary": [],
                  "severity": "hint"
                }"#]],
        );
    }

    #[test]
    fn end_of_file_points_at_the_last_line() {
        check(
            |main, _| {
                Diagnostic::warning(test_code("E0104"), "unclosed delimiter")
                    .with_primary(Span::new(main, 42, 42), "")
            },
            expect![[r#"
                {
                  "code": "E0104",
                  "file": "main.ss",
                  "help": [],
                  "message": "unclosed delimiter",
                  "notes": [],
                  "primary": {
                    "byte_end": 42,
                    "byte_start": 42,
                    "column_end": 2,
                    "column_start": 2,
                    "file": "main.ss",
                    "line_end": 4,
                    "line_start": 4,
                    "message": ""
                  },
                  "secondary": [],
                  "severity": "warning"
                }"#]],
        );
    }
}
