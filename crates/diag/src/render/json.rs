//! JSON rendering: one object per diagnostic with code, severity, message,
//! file, byte and line/column ranges, labels, notes and help.

use crate::{Diagnostic, Label, SourceMap};
use serde_json::{json, Value};

fn label_json(map: &SourceMap, label: &Label) -> Value {
    let start = map.line_col(label.span.file, label.span.start);
    let end = map.line_col(label.span.file, label.span.end);
    json!({
        "file": map.name(label.span.file),
        "byte_start": label.span.start,
        "byte_end": label.span.end,
        "line_start": start.line,
        "column_start": start.col,
        "line_end": end.line,
        "column_end": end.col,
        "message": label.message,
    })
}

/// The JSON value of one diagnostic.
pub fn to_json(map: &SourceMap, diag: &Diagnostic) -> Value {
    json!({
        "code": diag.code,
        "severity": diag.severity.as_str(),
        "message": diag.message,
        "primary": diag.primary.as_ref().map(|l| label_json(map, l)),
        "secondary": diag.secondary.iter().map(|l| label_json(map, l)).collect::<Vec<_>>(),
        "notes": diag.notes,
        "help": diag.help,
    })
}

/// One line of JSON, without a trailing newline.
pub fn render_json(map: &SourceMap, diag: &Diagnostic) -> String {
    to_json(map, diag).to_string()
}
