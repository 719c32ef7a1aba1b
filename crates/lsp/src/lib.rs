//! The ShapeScript language server: the one crate that knows LSP and JSON-RPC.
//! `ide` answers editor questions as plain data; `handlers`, `publish` and
//! `server` speak the protocol; `library` writes the read-only library folder.

mod handlers;
pub mod ide;
pub mod library;
mod publish;
mod server;
pub mod uri;

// Shared with `sexpgpu lsp` (`crates/lsp-base`), under the names this crate used.
use lsp_base::line_index;

pub use server::{run, run_stdio, DiskFiles};
