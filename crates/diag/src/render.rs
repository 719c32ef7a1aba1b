//! Renderers of diagnostics: the rustc-style terminal layout and JSON.
//! They read a `Diagnostic` and a `SourceMap`; they never change either.

mod human;
mod json;

pub use human::{render_human, HumanOptions};
pub use json::{render_json, to_json};
