//! The rustc-style terminal layout (seed 003's `error[E-DIM-001]` block).
//! Written by hand: no renderer crate reproduces the seed's gutter exactly.

use crate::{Diagnostic, SourceMap};

/// Options for the terminal renderer.
#[derive(Clone, Copy, Debug, Default)]
pub struct HumanOptions {
    /// ANSI colour; callers enable it only on a terminal without `NO_COLOR`.
    pub color: bool,
}

/// Renders one diagnostic, ending in a newline.
pub fn render_human(map: &SourceMap, diag: &Diagnostic, _options: HumanOptions) -> String {
    let mut out = format!("{}[{}]: {}\n", diag.severity.as_str(), diag.code, diag.message);
    if let Some(primary) = &diag.primary {
        let lc = map.line_col(primary.span.file, primary.span.start);
        out.push_str(&format!("  --> {}:{}:{}\n", map.name(primary.span.file), lc.line, lc.col));
    }
    for note in &diag.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    for help in &diag.help {
        out.push_str(&format!("help: {help}\n"));
    }
    out
}
