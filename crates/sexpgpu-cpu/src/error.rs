//! The CPU kernels' one error for a broken internal promise (a buffer too
//! short for its launch, an operand of the wrong kind): a bug here or in
//! the plan, never in the user's graph, reported rather than a panic.

use sexpgpu_graph::ExecError;

pub(crate) fn internal(message: &str) -> ExecError {
    ExecError {
        message: format!("internal: {message}"),
        node: None,
    }
}
