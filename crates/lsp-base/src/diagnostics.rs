//! A `diag::Diagnostic` as an LSP diagnostic: its notes and help under the
//! message, its secondary labels as related information, its code and its
//! language as the source. Where spans lie is the server's (`Places`).

use diag::{Severity, Span};

/// Where spans are, in the server's files.
pub trait Places {
    fn range(&mut self, span: Span) -> lsp_types::Range;
    fn location(&mut self, span: Span) -> lsp_types::Location;
}

/// One diagnostic as published by the server of `source` (`shapescript`);
/// `None` for one with no place in a file.
pub fn diagnostic(
    places: &mut impl Places,
    d: &diag::Diagnostic,
    source: &str,
) -> Option<lsp_types::Diagnostic> {
    let primary = d.primary.as_ref()?;
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    for help in &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<lsp_types::DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .map(|label| lsp_types::DiagnosticRelatedInformation {
            location: places.location(label.span),
            message: label.message.clone(),
        })
        .collect();
    let severity = match d.severity {
        Severity::Error => lsp_types::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp_types::DiagnosticSeverity::WARNING,
        Severity::Hint => lsp_types::DiagnosticSeverity::HINT,
    };
    Some(lsp_types::Diagnostic {
        range: places.range(primary.span),
        severity: Some(severity),
        code: Some(lsp_types::NumberOrString::String(d.code.id.to_string())),
        source: Some(source.to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    })
}
