//! The two ways a device call fails, as the `Backend` trait reports them:
//! a plain message, or a CUDA driver or library error rendered with its
//! code. Shared by the runtime layers so none depends on another for it.

use sexpgpu_graph::ExecError;

pub(crate) fn failure(message: impl Into<String>) -> ExecError {
    ExecError {
        message: message.into(),
        node: None,
    }
}

/// A driver or library error (its `Debug` names the CUDA error code).
pub(crate) fn driver(e: impl std::fmt::Debug) -> ExecError {
    failure(format!("CUDA error: {e:?}"))
}
