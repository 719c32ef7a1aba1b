//! Why a gradient could not be formed: a loss that is not a float scalar, a
//! node that is not in the graph, a `wrt` node that cannot have a gradient.
//! Carries messages only; the caller turns them into diagnostics with spans.

use std::fmt;

use sexpgpu_graph::{NodeId, OpError};

/// A refused differentiation. `message` is a headline in the book's style;
/// `note` says what to do about it, when there is something to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradError {
    pub kind: GradErrorKind,
    pub message: String,
    pub note: Option<String>,
    /// The node to blame (the loss, or the `wrt` node at fault).
    pub node: Option<NodeId>,
}

/// What went wrong, for callers that pick a diagnostic code by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradErrorKind {
    /// The loss is not a scalar `[]`.
    LossNotScalar,
    /// The loss is an integer or boolean tensor.
    LossNotFloat,
    /// A `wrt` node is an integer or boolean tensor.
    WrtNotFloat,
    /// A node id outside the graph.
    UnknownNode,
    /// A graph builder refused an adjoint node. The forward graph was built
    /// by the same builders, so this is a bug in a gradient rule, reported
    /// rather than panicking.
    Rule,
}

impl GradError {
    pub(crate) fn new(kind: GradErrorKind, message: String, node: Option<NodeId>) -> GradError {
        GradError {
            kind,
            message,
            note: None,
            node,
        }
    }

    pub(crate) fn with_note(mut self, note: impl Into<String>) -> GradError {
        self.note = Some(note.into());
        self
    }

    /// An adjoint builder's refusal while differentiating `node`.
    pub(crate) fn rule(node: NodeId, op: &str, err: OpError) -> GradError {
        GradError::new(
            GradErrorKind::Rule,
            format!("gradient of {op} ({node}): {}", err.message),
            Some(node),
        )
    }
}

impl fmt::Display for GradError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GradError {}
