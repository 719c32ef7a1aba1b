//! The ShapeScript language server: the one crate that knows LSP and JSON-RPC.
//! `ide` answers editor questions as plain data; `handlers`, `publish` and
//! `server` speak the protocol; `library` writes the read-only library folder.

mod handlers;
pub mod ide;
pub mod library;
mod line_index;
mod publish;
mod server;
pub mod uri;

pub use server::{run, run_stdio};
