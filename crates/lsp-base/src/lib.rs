//! What the two language servers (`crates/lsp` for ShapeScript, `sexpgpu
//! lsp`) share, so that they speak the protocol alike: `file://` URIs,
//! positions in UTF-16 columns, applying a client's edits, the edits that
//! format a document, diagnostics as LSP values, and answering a request
//! with its handler's error or panic turned into an error response, and the
//! read-only library folder. Knows neither language; only
//! `library_folder` touches the disk.

pub mod diagnostics;
pub mod formatting;
pub mod library_folder;
pub mod line_index;
pub mod protocol;
pub mod uri;

pub use line_index::LineIndex;
