//! The ShapeScript language server: the one crate that knows LSP and JSON-RPC.
