//! Renderers of diagnostics: the rustc-style terminal layout and JSON.
//! They read a `Diagnostic` and a `SourceMap`; they never change either.

mod human;
mod json;
mod snippet;
mod style;

pub use human::{
    color_wanted, note_line, render_human, render_human_all, summary_line, HumanOptions,
};
pub use json::{render_json, render_json_note, to_json};
