//! What an editor asks of an evaluation (`ide`) beyond the step limit every
//! evaluation has: a budget of time, asked of the host's clock, so that slow
//! host code is stopped and reported (`E-EVAL-014`) before the editor waits
//! long, and the shape and dtype of every tensor each form of one file
//! evaluated to, for hovers and inlay hints. Plain data; `Interp` holds one
//! only when an editor asked.

use crate::codes;
use crate::eval::{EvalResult, Flow, Host};
use crate::value::Value;
use diag::{Diagnostic, FileId, Span};
use sexpgpu_graph::{DType, Shape};
use std::collections::HashMap;

/// How many distinct shapes are kept for one form (a layer's body traced
/// for twelve blocks of the same width has one).
const MAX_SHAPES_PER_FORM: usize = 8;

/// Steps between two questions to the host whether to stop (its clock).
pub(crate) const STEPS_PER_POLL: u64 = 1024;

/// What an editor's evaluation has seen.
#[derive(Debug)]
pub struct Watch {
    /// The file whose forms' tensors are recorded.
    pub file: FileId,
    /// For each form of `file` (by its span's start and end) that evaluated
    /// to a tensor, the distinct shapes and dtypes it had, in order.
    pub tensors: HashMap<(u32, u32), Vec<(Shape, DType)>>,
}

impl Watch {
    pub fn new(file: FileId) -> Watch {
        Watch {
            file,
            tensors: HashMap::new(),
        }
    }

    /// The error that stops evaluation at `span` once the host says its time is spent.
    pub(super) fn poll(&mut self, host: &mut dyn Host, span: Span) -> EvalResult<()> {
        if !host.interrupted() {
            return Ok(());
        }
        Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_014,
                "host code ran past the editor's time budget",
            )
            .with_primary(span, "still evaluating this")
            .with_note("the editor evaluates host code as you type, and stops code that runs long or forever")
            .with_help("raise the `sexpgpu.evaluation.budgetMs` setting if the work is meant to be that long"),
        ))
    }

    /// Records what the form at `span` evaluated to, if a tensor of `file`'s.
    pub(super) fn observe(&mut self, span: Span, value: &Value) {
        if span.file != self.file {
            return;
        }
        let (shape, dtype) = match value {
            Value::Tensor(t) => (&t.shape, t.dtype),
            Value::HostTensor(t) => (t.shape(), t.dtype()),
            _ => return,
        };
        let seen = self.tensors.entry((span.start, span.end)).or_default();
        if seen.len() < MAX_SHAPES_PER_FORM && !seen.iter().any(|(s, d)| s == shape && *d == dtype)
        {
            seen.push((shape.clone(), dtype));
        }
    }
}
