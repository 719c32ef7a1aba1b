//! Why a graph could not be compiled. Run-time failures (bad arguments,
//! ids out of range) are the graph crate's `ExecError`, so callers handle the
//! reference executor and this backend alike. Never formats diagnostics.

use std::fmt;

use sexpgpu_graph::NodeId;

/// A graph that breaks the invariants the builders promise (inputs after
/// their reader, wrong arity, outputs that do not exist).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
    pub node: Option<NodeId>,
}

impl CompileError {
    pub(crate) fn new(message: impl Into<String>, node: Option<NodeId>) -> CompileError {
        CompileError {
            message: message.into(),
            node,
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}
